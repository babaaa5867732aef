"""Client side of the simulator HTTP contract: the async client and its exceptions."""

from __future__ import annotations

from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.simulator.errors import (
    SimulatorError,
    SimulatorHTTPError,
    SimulatorProtocolError,
    SimulatorUnavailable,
)

__all__ = [
    "SimulatorClient",
    "SimulatorError",
    "SimulatorHTTPError",
    "SimulatorProtocolError",
    "SimulatorUnavailable",
]

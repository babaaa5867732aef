"""Aspen-Plus-compatible flowsheet simulation service with real thermodynamics (thermo + chemicals)."""

from __future__ import annotations

from typing import Any

from simulator_mock.errors import SimulationError

__version__ = "0.1.0"


def run_config(
    config: dict[str, Any], run_id: str | None = None, time_limit_s: float | None = None
) -> dict[str, Any]:
    """Simulate a flowsheet config in-process and return its results document.

    See :func:`simulator_mock.flowsheet.engine.run_config`; raises a typed :class:`SimulationError` on bad
    input or an unsolvable flowsheet.
    """
    from simulator_mock.flowsheet.engine import run_config as _run

    return _run(config, run_id, time_limit_s)


__all__ = ["SimulationError", "__version__", "run_config"]

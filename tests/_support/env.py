"""Environments for child processes: the repository importable, no user settings leaking in."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
"""The repository root."""


def repo_env(**extra: str) -> dict[str, str]:
    """This environment with the repository on PYTHONPATH and no simulator/model settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL", "ASPEN_", "SIMULATOR_MOCK_"))}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env

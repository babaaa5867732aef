"""Fixtures of the end-to-end CLI tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from _support import Run, run_cli_in


@pytest.fixture
def run_cli(tmp_path: Path):
    """Run ``python -m aspen_rl.train`` offline in ``tmp_path`` and return the finished :class:`Run`."""

    def _run(*args: str, timeout: float = 240, env: dict[str, str] | None = None) -> Run:
        return run_cli_in(tmp_path, *args, timeout=timeout, env=env)

    return _run

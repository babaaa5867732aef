"""The standalone mock and ``serve``: a port in use is one error line and exit 1, before anything loads."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _support.env import repo_env


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another process listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


@pytest.mark.parametrize(
    "command",
    [
        ["-m", "simulator_mock", "--port", "{port}"],
        ["-m", "aspen_rl.llm.serve", "--model", "{tmp}/no-model", "--port", "{port}"],
    ],
    ids=["mock", "serve"],
)
def test_a_port_in_use_is_one_error_line_and_exit_1(
    command: list[str], taken_port: int, tmp_path: Path
) -> None:
    argv = [a.replace("{port}", str(taken_port)).replace("{tmp}", str(tmp_path)) for a in command]
    proc = subprocess.run(
        [sys.executable, *argv], cwd=tmp_path, env=repo_env(), capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.strip().splitlines()  # one line, no traceback
    assert line.startswith(f"error: cannot listen on 127.0.0.1:{taken_port}: ")
    assert line.endswith("(choose another --port)")
    # checked before the mock's engine workers or the model start: nothing else was printed
    assert proc.stdout == ""

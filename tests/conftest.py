"""Suite-wide checks: no process the suite started may outlive it.

At the end of the session every live descendant of the pytest process is listed; those still running after a
grace period are killed and the run fails, naming them (a left-over mock, worker or policy server otherwise
keeps a port and CPU after the suite reports success). Multiprocessing's resource tracker and fork server are
not counted: they belong to this process and end with it.
"""

from __future__ import annotations

import os
from contextlib import suppress

import psutil
import pytest
from _support.processes import alive

LEAK_GRACE_S = 10.0
"""How long processes may take to finish exiting after the last test."""

_ENDS_WITH_PYTEST = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def _command(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline()) or process.name()
    except psutil.Error:
        return "?"


def _left_behind() -> list[psutil.Process]:
    try:
        children = psutil.Process(os.getpid()).children(recursive=True)
    except psutil.Error:
        return []
    suspects = [p for p in children if not any(mark in _command(p) for mark in _ENDS_WITH_PYTEST)]
    return alive(suspects, within_s=LEAK_GRACE_S)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    left = _left_behind()
    if not left:
        return
    lines = [f"  pid {p.pid}: {_command(p)[:300]}" for p in left]
    for process in left:
        with suppress(psutil.Error):
            process.kill()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = f"{len(left)} process(es) started by the test suite were still alive at its end (killed now):"
    if reporter is not None:
        reporter.write_line("")
        reporter.write_line(message, red=True, bold=True)
        for line in lines:
            reporter.write_line(line, red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED

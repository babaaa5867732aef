"""What the test suites share: ONE way to start the simulator mock (in process, or as a live service on a
free port), to find free ports, to run the CLI as a user would, and to find processes left behind.

``tests/`` is on ``sys.path`` (``pythonpath`` in pyproject's pytest options), so tests write
``from _support import LiveMock, in_process_client, free_port``.
"""

from _support.cli import Run, offline_env, run_cli_in
from _support.env import REPO, repo_env
from _support.mock import LiveMock, in_process_client, in_process_transport, mock_app, serve_in_thread
from _support.ports import free_port
from _support.processes import alive, descendants, processes_mentioning

__all__ = [
    "REPO",
    "LiveMock",
    "Run",
    "alive",
    "descendants",
    "free_port",
    "in_process_client",
    "in_process_transport",
    "mock_app",
    "offline_env",
    "processes_mentioning",
    "repo_env",
    "run_cli_in",
    "serve_in_thread",
]

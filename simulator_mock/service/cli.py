"""Command line of the simulator service: flags and environment to settings, then serve until a signal."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import ssl
import sys
import time
from contextlib import suppress
from pathlib import Path
from types import FrameType
from typing import Any

from pydantic import ValidationError

from simulator_mock.service.auth import bind_warning
from simulator_mock.service.listening import port_in_use
from simulator_mock.service.parent_watch import die_with_parent
from simulator_mock.service.settings import Settings

log = logging.getLogger("simulator_mock")
SHUTDOWN_GRACE_S = 2
"""Seconds in-flight requests get to finish after SIGTERM/SIGINT before they are cancelled."""


#: The flags that set a Settings field: (flag, field, type, help; ``{d}`` in a help is the defaults). Unset, a
#: field keeps its SIMULATOR_MOCK_* environment value or default.
OPTIONS: tuple[tuple[str, str, type | None, str], ...] = (
    ("--host", "host", None, "interface to bind (default {d.host})"),
    ("--port", "port", int, "TCP port (default {d.port})"),
    (
        "--results-dir",
        "results_dir",
        Path,
        "folder for each run's config, output and workbook files (default {d.results_dir})",
    ),
    (
        "--schema-dir",
        "schema_dir",
        Path,
        "serve the schema documents of this folder (base_schema.json, blocks_<Type>_data.json, as the real "
        "service names them) instead of the packaged ones; validation keeps the packaged schemas",
    ),
    (
        "--workers",
        "workers",
        int,
        "engine worker processes; 0 = one thread in the server process (default {d.workers})",
    ),
    (
        "--max-runs-kept",
        "max_runs_kept",
        int,
        "runs whose files stay in the results folder, older ones deleted ({d.max_runs_kept})",
    ),
    ("--max-body-bytes", "max_body_bytes", int, "largest accepted request body"),
    (
        "--timeout",
        "request_timeout_s",
        float,
        "per-run time budget in seconds (default {d.request_timeout_s:g}); a run past it fails with Timeout. "
        "Keep budget + --queue-wait + 10 below the client's timeout",
    ),
    (
        "--queue-wait",
        "queue_wait_s",
        float,
        "longest wait for a free worker before a 503 (default {d.queue_wait_s:g})",
    ),
    (
        "--max-age",
        "retention_max_age_s",
        float,
        "delete runs older than this many seconds; 0 = never (default 0)",
    ),
    ("--log-level", "log_level", None, "uvicorn log level (default warning)"),
    (
        "--run-delay",
        "run_delay_s",
        float,
        "seconds added to every simulation's answer, a real Aspen's pace (default 0)",
    ),
    (
        "--ssl-certfile",
        "ssl_certfile",
        Path,
        "serve HTTPS with this PEM certificate, as the real service does (needs --ssl-keyfile)",
    ),
    ("--ssl-keyfile", "ssl_keyfile", Path, "PEM private key of --ssl-certfile"),
    (
        "--parent-pid",
        "parent_pid",
        int,
        "stop when this process ends, however it ends (for a program starting the service for itself)",
    ),
)


def build_parser(defaults: Settings) -> argparse.ArgumentParser:
    """The command line: one flag per :data:`OPTIONS` row, plus ``--token-file`` and ``--windows-paths``."""
    parser = argparse.ArgumentParser(
        prog="python -m simulator_mock",
        description=(
            "Aspen-Plus-compatible flowsheet simulation service with real thermodynamics (thermo + "
            "chemicals). "
            "Endpoints (those of the real Aspen service): GET /health, GET /api/schema/list, "
            "GET /api/schema?types=base,Heater, POST /run-aspen-simulation, "
            "GET /get-aspen-result?file_path=, GET /download?file_path=; "
            "extension: GET /api/results/{run_id}."
        ),
    )
    for flag, field, kind, text in OPTIONS:
        metavar = flag.removeprefix("--").replace("-", "_").upper()  # argparse's own dest, upper-cased
        extra: dict[str, Any] = {"type": kind} if kind is not None else {}
        parser.add_argument(
            flag,
            dest=field,
            metavar=metavar,
            default=getattr(defaults, field),
            help=text.format(d=defaults),
            **extra,
        )
    parser.add_argument(
        "--token-file",
        type=Path,
        default=None,
        help="file holding the shared X-Aspen-Token every request must carry (or SIMULATOR_MOCK_TOKEN)",
    )
    parser.add_argument(
        "--windows-paths",
        dest="windows_paths",
        action="store_true",
        default=defaults.windows_paths,
        help="answer file paths as the real service on Windows does (D:\\aspen\\resultfile\\...)",
    )
    return parser


def _check_paths(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse with argparse's ``error:`` line: TLS files given alone or missing, a schema folder missing."""
    if (args.ssl_certfile is None) != (args.ssl_keyfile is None):
        parser.error("--ssl-certfile and --ssl-keyfile go together: give both to serve HTTPS")
    for flag, path in (("--ssl-certfile", args.ssl_certfile), ("--ssl-keyfile", args.ssl_keyfile)):
        if path is not None and not path.is_file():
            parser.error(f"{flag} {path}: no such file")
    if args.schema_dir is not None and not args.schema_dir.is_dir():
        parser.error(f"--schema-dir {args.schema_dir}: no such folder")


def parse_args(argv: list[str] | None = None) -> Settings:
    """Settings from command-line flags (unset flags keep SIMULATOR_MOCK_* environment values or defaults).

    Invalid settings (an empty token among them) end the program with a clear ``error:`` line and exit 2.
    """
    try:
        defaults = Settings()
    except ValidationError as exc:  # from the environment: SIMULATOR_MOCK_*
        print(f"error: invalid SIMULATOR_MOCK_* environment: {_problems(exc)}", file=sys.stderr)
        raise SystemExit(2) from exc
    parser = build_parser(defaults)
    args = parser.parse_args(argv)
    _check_paths(parser, args)
    token = defaults.token
    if args.token_file is not None:
        try:
            token = args.token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            parser.error(f"--token-file: {exc}")
    fields = vars(args)
    token_file = fields.pop("token_file")
    try:
        return Settings(**fields, token=token)
    except ValidationError as exc:
        where = f" (--token-file {token_file})" if token_file is not None else ""
        parser.error(f"{_problems(exc)}{where}")


def _problems(exc: ValidationError) -> str:
    """A validation error as one line: ``field: reason; ...``."""
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())


def main(argv: list[str] | None = None) -> int:
    """Parse flags and serve until interrupted; returns the exit code.

    Exit codes: 0 after a normal shutdown, 130 after SIGINT, 143 after SIGTERM (uvicorn shuts the
    server down gracefully first), 1 when the server could not start, 2 for a certificate and key that
    cannot be loaded. On every path the engine
    workers and multiprocessing's resource tracker are stopped before the process exits.
    """
    settings = parse_args(argv)
    busy = port_in_use(settings.host, settings.port)
    if busy:  # before any engine worker starts: one line and exit 1
        print(f"error: {busy}", file=sys.stderr, flush=True)
        return 1
    try:
        _check_tls(settings)
    except (ssl.SSLError, OSError) as exc:  # before any engine worker starts
        print(f"error: --ssl-certfile / --ssl-keyfile cannot be used: {exc}", file=sys.stderr, flush=True)
        return 2
    warning = bind_warning(settings.host, settings.token is not None)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    import uvicorn

    from simulator_mock.service.app import create_app

    app = create_app(settings)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        # uvicorn re-raises the signal that stopped it once it has shut down: end here, cleanly.
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not break the cleanup
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=False,
        # Requests still running this long after the signal are cancelled: their runs stop at
        # the engine's next time check instead of holding the shutdown for a whole run budget.
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        ssl_certfile=str(settings.ssl_certfile) if settings.ssl_certfile else None,
        ssl_keyfile=str(settings.ssl_keyfile) if settings.ssl_keyfile else None,
    )
    server = _announcing_server(uvicorn, config)
    if settings.parent_pid is not None:  # SIGTERM when it is gone: the orderly shutdown below
        die_with_parent(signal.SIGTERM, parent_pid=settings.parent_pid)
    try:
        server.run()
    finally:
        app.state.service.stop()
        stop_resource_tracker()
    return 0 if server.started else 1


def _announcing_server(uvicorn: Any, config: Any) -> Any:
    """uvicorn's server that says where it listens once its socket is bound (at any log level)."""

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                scheme = "https" if self.config.is_ssl else "http"
                host, port = self.config.host, self.servers[0].sockets[0].getsockname()[1]
                print(f"simulator_mock listening on {scheme}://{host}:{port} (Ctrl-C stops)", flush=True)

    return AnnouncingServer(config)


def _check_tls(settings: Settings) -> None:
    """Load the certificate and key once before serving, so a bad pair is one line, not a traceback.

    Raises:
        ssl.SSLError: the files are not a PEM certificate and its matching key.
    """
    if settings.ssl_certfile is not None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(settings.ssl_certfile, settings.ssl_keyfile)


def stop_resource_tracker(timeout_s: float = 3.0) -> None:
    """Stop multiprocessing's resource tracker of this process (it ignores SIGINT and SIGTERM).

    It exits once every holder of its pipe has closed it; our workers are gone by now, so closing
    ours ends it. If it lingers past ``timeout_s`` it is killed.
    """
    from multiprocessing import resource_tracker

    tracker = resource_tracker._resource_tracker
    pid, fd = getattr(tracker, "_pid", None), getattr(tracker, "_fd", None)
    if pid is None or fd is None:
        return
    with suppress(OSError):
        os.close(fd)
    setattr(tracker, "_fd", None)  # noqa: B010 - a private field the stubs do not declare
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
            time.sleep(0.02)
        else:
            log.warning("resource tracker %d did not stop; killing it", pid)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    setattr(tracker, "_pid", None)  # noqa: B010 - a private field the stubs do not declare

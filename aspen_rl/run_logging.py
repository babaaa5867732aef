"""Where a run's log lines go: everything into its ``training.log``, nothing of the services on the console.

Agent Lightning's store server, its runners, uvicorn, httpx, AutoGen and LiteLLM all log at INFO; a run
(``python -m aspen_rl.train``) and a script of the Python API call :func:`log_to_file` first, and the
console keeps only what the run prints itself (progress bars, tables, errors).
"""

from __future__ import annotations

import logging
from pathlib import Path

NOISY_LOGGERS = (
    "httpx",
    "httpcore",
    "autogen_core",
    "autogen_agentchat",
    "openai",
    "LiteLLM",
    "uvicorn.access",
)
"""Libraries whose INFO lines say nothing a run's reader needs: only their warnings are kept."""


def log_to_file(log_file: Path) -> None:
    """Everything at INFO into the run's ``training.log``; the console keeps the progress bar and tables.

    Agent Lightning's store server starts uvicorn with its default logging config, which would print
    INFO lines on the console: that config is pointed at this file instead.
    """
    log_file.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    file_handler = logging.FileHandler(log_file, encoding="utf-8")
    file_handler.setFormatter(
        logging.Formatter("%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s")
    )
    file_handler.addFilter(_StoreRaceFilter())
    # The store's polls would write an access line every 0.1 s: only their warnings are kept.
    file_handler.addFilter(lambda r: r.name != "uvicorn.access" or r.levelno >= logging.WARNING)
    root.addHandler(file_handler)
    root.setLevel(logging.INFO)
    _uvicorn_into_the_log()
    for noisy in NOISY_LOGGERS:
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _uvicorn_into_the_log() -> None:
    """Make uvicorn's default logging config (used by every ``uvicorn.Config`` of this process and its
    forks, e.g. the Agent Lightning store server) hand its records to the root logger, not the console."""
    from uvicorn.config import LOGGING_CONFIG

    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        entry = LOGGING_CONFIG["loggers"].setdefault(name, {})
        entry["handlers"] = []
        entry["propagate"] = True


class _StoreRaceFilter(logging.Filter):
    """One line instead of a traceback for the store's two start-up and shutdown races.

    Agent Lightning forks the runners before it starts the store server; on a loaded machine a runner's
    first heartbeat can come before the server answers, and Agent Lightning logs that (then retries and
    carries on) with a full traceback. At a signal, a runner stopped while it uploads its spans leaves the
    store's request half-read (starlette's ``ClientDisconnect``), which uvicorn logs with a traceback. The
    line and the exception's text are kept.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        heartbeat = record.name.startswith("agentlightning.runner") and "Heartbeat" in str(record.msg)
        cut_upload = record.name.startswith("uvicorn") and _is_client_disconnect(exc)
        if exc is not None and (heartbeat or cut_upload):
            record.msg = f"{record.getMessage()} ({exc!r}; {'retried' if heartbeat else 'client gone'})"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


def _is_client_disconnect(exc: BaseException | None) -> bool:
    """Whether ``exc`` is starlette's ``ClientDisconnect``, alone or inside exception groups (anyio's task
    groups wrap it)."""
    if isinstance(exc, BaseExceptionGroup):
        return bool(exc.exceptions) and all(_is_client_disconnect(e) for e in exc.exceptions)
    return type(exc).__name__ == "ClientDisconnect"

"""The agent stack's slow import (Agent Lightning, AutoGen, LiteLLM), overlapped with a run's start-up."""

from __future__ import annotations

import logging
import time

from rich.console import Console

logger = logging.getLogger(__name__)

AGENT_STACK = ("agentlightning", "aspen_rl.agent")
"""The slow imports of a run (Agent Lightning, AutoGen, LiteLLM, OpenTelemetry): 5-90 s on a cold cache."""


class StackImport:
    """Imports the agent stack in a thread while the services start; :meth:`wait` shows a spinner."""

    def __init__(self) -> None:
        import threading

        self.error: BaseException | None = None
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._load, name="aspen_rl-import", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        import importlib

        try:
            for name in AGENT_STACK:
                importlib.import_module(name)
        except BaseException as exc:  # re-raised in the main thread by wait()
            self.error = exc

    def wait(self, console: Console) -> None:
        """Block until the imports are done, with a spinner naming them and the seconds spent."""
        if self._thread.is_alive() and not console.is_terminal:  # a log or a pipe: one line, no spinner
            console.print("Loading Agent Lightning, AutoGen and LiteLLM (first run: up to 90 s)...")
            self._thread.join()
        elif self._thread.is_alive():
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            with Progress(
                SpinnerColumn(),
                TextColumn("Loading Agent Lightning, AutoGen and LiteLLM (first run: up to 90 s)"),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            ) as progress:
                task = progress.add_task("import", total=None)
                progress.tasks[task].start_time = self.started  # count from the import's start
                while self._thread.is_alive():
                    self._thread.join(0.1)
        seconds = time.monotonic() - self.started
        logger.info("agent stack imported in %.1f s", seconds)
        console.print(f"Loaded Agent Lightning, AutoGen and LiteLLM ({seconds:.0f} s)")
        if self.error is not None:
            raise self.error

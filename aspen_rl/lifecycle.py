"""One shutdown path for a run: SIGINT and SIGTERM stop every process the run started, then it exits 130/143.

What happens on the first SIGINT (Ctrl-C) or SIGTERM (``kill``) of ``python -m aspen_rl.train``:

1. The runner processes (forked by Agent Lightning) are terminated at once. They run with SIGINT
   ignored and SIGTERM at its default (set right after the fork), so a terminal's Ctrl-C, which
   reaches the whole process group, does not raise ``KeyboardInterrupt`` inside half-finished
   rollouts, and they end silently, without tracebacks in ``training.log``.
2. ``KeyboardInterrupt`` is raised in the main process: Agent Lightning's strategy stops the
   algorithm and the store server, the run's ``ExitStack`` stops the mock simulator (its engine
   workers included) and the policy/model servers.
3. ``train.py`` writes ``summary.json`` marked ``interrupted`` with what completed and which
   requested splits are missing, and exits ``128 + signal``: 130 for SIGINT, 143 for SIGTERM.

Whatever kills the run itself (SIGKILL, the OOM killer), its children end too: the forked runners and the
services it starts (the mock, whose engine workers follow it, and the policy server) watch their parent
(:mod:`simulator_mock.service.parent_watch`: Linux's parent-death signal and a thread polling the parent pid).

Further signals during that shutdown are logged and ignored. A watchdog thread bounds the whole
shutdown (``grace_s``): past it every descendant process is killed and the process exits with the
same code. :func:`reap_descendants` is the last step of every exit path, normal ones included.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType

import psutil

from simulator_mock.service.parent_watch import die_with_parent

logger = logging.getLogger(__name__)

HANDLED = (signal.SIGINT, signal.SIGTERM)


def exit_code_for(signum: int) -> int:
    """The shell's convention: 128 + the signal number (130 SIGINT, 143 SIGTERM)."""
    return 128 + int(signum)


class Lifecycle:
    """Signal handling of one run (main process only).

    Args:
        grace_s: Longest time the shutdown may take after the first signal before the watchdog kills
            every descendant and exits.
        on_timeout: Called by the watchdog before it exits (e.g. write the interrupted summary).
    """

    def __init__(self, grace_s: float = 20.0, on_timeout: Callable[[], None] | None = None) -> None:
        self.grace_s = grace_s
        self.on_timeout = on_timeout
        self.signum: int | None = None
        self.received_at: float | None = None
        self._previous: dict[int, object] = {}
        self._main_pid = os.getpid()
        self._done = threading.Event()
        self.keep: set[int] = set()
        """Pids the watchdog leaves alone (processes that existed before the run)."""

    @property
    def interrupted(self) -> bool:
        """Whether a stop signal was received."""
        return self.signum is not None

    @property
    def signal_name(self) -> str | None:
        """``"SIGINT"`` / ``"SIGTERM"``, or None."""
        return signal.Signals(self.signum).name if self.signum is not None else None

    @property
    def exit_code(self) -> int:
        """130 / 143 once interrupted; 0 otherwise."""
        return exit_code_for(self.signum) if self.signum is not None else 0

    def note_keyboard_interrupt(self) -> None:
        """Record a ``KeyboardInterrupt`` raised without our handler (treated as SIGINT)."""
        if self.signum is None:
            self.signum = signal.SIGINT
            self.received_at = time.monotonic()

    @contextmanager
    def installed(self) -> Iterator[Lifecycle]:
        """Install the handlers for the duration of the run; restore the previous ones afterwards."""
        for signum in HANDLED:
            self._previous[signum] = signal.signal(signum, self._on_signal)
        _ACTIVE.append(self)
        try:
            yield self
        finally:
            self._done.set()
            _ACTIVE.remove(self)
            for handled, handler in self._previous.items():
                signal.signal(handled, handler)  # type: ignore[arg-type]

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if os.getpid() != self._main_pid:  # a forked child that kept our handler: behave as default
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if self.signum is not None:
            logger.warning(
                "received %s again; the shutdown is already under way", signal.Signals(signum).name
            )
            return
        self.signum = signum
        self.received_at = time.monotonic()
        logger.warning("received %s: stopping the run", signal.Signals(signum).name)
        stop_runner_processes()
        threading.Thread(target=self._watchdog, name="shutdown-watchdog", daemon=True).start()
        raise KeyboardInterrupt

    def _watchdog(self) -> None:
        if self._done.wait(self.grace_s):
            return
        logger.error("shutdown took longer than %g s; killing every process of the run", self.grace_s)
        reap_descendants(timeout_s=0.0, keep=self.keep)
        if self.on_timeout is not None:
            with suppress(Exception):
                self.on_timeout()
        logging.shutdown()
        os._exit(self.exit_code)


_ACTIVE: list[Lifecycle] = []


def _quiet_forked_child() -> None:
    """After a fork during a run: SIGINT ignored, SIGTERM default (a runner then ends without tracebacks),
    and the child dies with the run, whatever kills the run (SIGKILL and the OOM killer included).

    ``subprocess`` children are not affected (they do not run Python's fork hooks and exec anyway); the
    services the run starts are told ``--parent-pid`` instead.
    """
    if _ACTIVE:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        die_with_parent(signal.SIGTERM)


os.register_at_fork(after_in_child=_quiet_forked_child)


def stop_runner_processes(wait_s: float = 3.0) -> None:
    """SIGTERM every live ``multiprocessing`` child of this process (the forked runners) and wait for them.

    Waiting (at most ``wait_s``) before the store is stopped keeps a runner that is mid-request from
    meeting a closed store and logging a connection traceback into ``training.log``.
    """
    import multiprocessing

    children = multiprocessing.active_children()
    for child in children:
        with suppress(OSError, ValueError):
            if child.pid is not None:
                os.kill(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    for child in children:
        with suppress(OSError, ValueError, AssertionError):
            child.join(max(0.0, deadline - time.monotonic()))


def descendant_pids() -> set[int]:
    """Pids of the live descendants of this process (to leave alone what existed before a run)."""
    try:
        return {p.pid for p in psutil.Process().children(recursive=True)}
    except psutil.Error:
        return set()


def reap_descendants(timeout_s: float = 5.0, keep: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Terminate every process descended from this one (SIGTERM, then SIGKILL after ``timeout_s``),
    except the pids in ``keep`` (processes that existed before the run, when ``main`` is embedded).

    The run's own services are stopped before this by their context managers; this is the net
    under them (a worker whose parent died first is still found while its parent lives, so the
    tree is collected before anything is signalled). Returns the pids that had to be signalled.
    """
    try:
        tree = psutil.Process().children(recursive=True)
    except psutil.Error:
        return []
    tree = [p for p in tree if p.pid not in keep and _running(p)]
    for process in tree:
        with suppress(psutil.Error):
            process.terminate()
    _, alive = psutil.wait_procs(tree, timeout=timeout_s)
    for process in alive:
        with suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=2.0)
    if tree:
        logger.info("stopped %d leftover process(es): %s", len(tree), [p.pid for p in tree])
    return [p.pid for p in tree]


def _running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False

"""Die with the parent, whatever kills it (SIGKILL and the OOM killer included): no orphan keeps running.

Two mechanisms, because neither alone covers every case:

* Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG)``, through ctypes): the kernel signals this process
  the moment the thread that started it ends. Immediate, but Linux-only, and armed only from the call on
  (a parent that died just before is caught by the check right after arming it).
* A watch thread polling ``os.getppid()``: an orphan is re-parented (to init or a sub-reaper), so a changed
  parent pid means the parent is gone. Portable; reacts within ``poll_s``.

Either sends ``sig`` to this process (its handler shuts it down in order: the mock stops its engine workers);
if the process still lives ``grace_s`` later it is killed outright. The mock and its engine workers use it,
and so do the processes an aspen_rl run starts (this module imports nothing of either package).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1
"""``prctl`` option (``<linux/prctl.h>``): the signal this process gets when its parent dies."""
POLL_S = 0.5
"""How often the watch thread checks the parent pid."""
GRACE_S = 10.0
"""How long the orderly shutdown started by ``sig`` may take before the process kills itself."""


def set_parent_death_signal(sig: int) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies (Linux); whether it could."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(
    sig: int = signal.SIGTERM,
    *,
    parent_pid: int | None = None,
    poll_s: float = POLL_S,
    grace_s: float = GRACE_S,
) -> None:
    """Make this process end when its parent (or the process ``parent_pid`` names) does.

    Args:
        sig: Signal this process sends itself when the parent is gone (SIGTERM: an orderly shutdown).
        parent_pid: The process to outlive no longer (default: the current parent). The parent itself gets
            both mechanisms; another process is watched by polling whether it still exists.
        poll_s: How often the watch thread checks.
        grace_s: After ``sig``, how long before the process kills itself (SIGKILL).
    """
    watched = os.getppid() if parent_pid is None else parent_pid
    if watched == os.getppid():
        set_parent_death_signal(sig)

        def gone() -> bool:
            return os.getppid() != watched  # re-parented: the parent died (even if its pid is reused)

    else:  # not (or no longer) our parent: the parent may have died before this call

        def gone() -> bool:
            return not _exists(watched)

    if gone():
        _orphaned(sig, watched, grace_s)
        return
    thread = threading.Thread(
        target=_watch, args=(gone, sig, watched, poll_s, grace_s), name="parent-watch", daemon=True
    )
    thread.start()


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def _watch(gone: Callable[[], bool], sig: int, parent: int, poll_s: float, grace_s: float) -> None:
    while not gone():
        time.sleep(poll_s)
    _orphaned(sig, parent, grace_s)


def _orphaned(sig: int, parent: int, grace_s: float) -> None:
    log.warning("parent process %d is gone; stopping (pid %d)", parent, os.getpid())
    last_resort = threading.Timer(grace_s, os.kill, args=(os.getpid(), signal.SIGKILL))
    last_resort.daemon = True  # an orderly exit before it is not held up by it
    last_resort.start()
    os.kill(os.getpid(), sig)

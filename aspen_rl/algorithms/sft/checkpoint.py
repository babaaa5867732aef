"""SFT checkpoints: ``<output_dir>/<run_name>-checkpoints/step_<n>/``, each written whole or not at all.

A directory is written under a temporary name beside its target and renamed into place, so a reader (or a
``--resume``) never meets a half-written one, whatever kills the writer. A resumable checkpoint holds the
trainable weights (``trainable.pt``), the optimizer state, the RNG and shuffling position, and
``sft_state.json`` (updates done, of how many, loss history, the config).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

STATE_FILE = "sft_state.json"
TRAINABLE_FILE = "trainable.pt"
OPTIMIZER_FILE = "optimizer.pt"
POSITION_FILE = "position.pt"
CHECKPOINTS_SUFFIX = "-checkpoints"

_STEP_DIR = re.compile(r"^step_(\d+)$")


def checkpoints_root(output_dir: str | Path, run_name: str) -> Path:
    """Where a run's resumable checkpoints go (beside its final model directory)."""
    return Path(output_dir) / f"{run_name}{CHECKPOINTS_SUFFIX}"


def write_dir_atomically(target: Path, write: Callable[[Path], None]) -> Path:
    """Fill a fresh temporary directory with ``write`` and rename it to ``target`` (replacing one there).

    Returns:
        ``target``.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.parent / f".{target.name}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    try:
        write(partial)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    if target.exists():
        old = target.parent / f".{target.name}.old-{os.getpid()}"
        shutil.rmtree(old, ignore_errors=True)
        target.rename(old)
        partial.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        partial.rename(target)
    return target


def write_state(directory: Path, state: dict[str, Any]) -> None:
    """``sft_state.json`` of a checkpoint directory."""
    (directory / STATE_FILE).write_text(json.dumps(state, indent=2, default=str), encoding="utf-8")


def is_resumable(directory: Path) -> bool:
    """Whether ``directory`` is a complete resumable SFT checkpoint."""
    return (directory / STATE_FILE).is_file() and (directory / TRAINABLE_FILE).is_file()


def checkpoints(root: Path) -> list[tuple[int, Path]]:
    """The resumable ``step_<n>`` checkpoints under ``root``, oldest first."""
    if not root.is_dir():
        return []
    found = []
    for child in root.iterdir():
        match = _STEP_DIR.match(child.name)
        if match and is_resumable(child):
            found.append((int(match.group(1)), child))
    return sorted(found)


def resolve_resume(path: str | Path) -> Path:
    """The checkpoint ``--resume PATH`` names: a ``step_<n>`` directory, the latest one under a checkpoints
    folder, or the latest one of the run whose final model directory (``<output_dir>/<run_name>``) is named.

    Raises:
        FileNotFoundError: No resumable checkpoint there.
    """
    path = Path(path)
    if is_resumable(path):
        return path
    for root in (path, path.parent / f"{path.name}{CHECKPOINTS_SUFFIX}"):
        found = checkpoints(root)
        if found:
            return found[-1][1]
    raise FileNotFoundError(
        f"--resume {path}: no SFT checkpoint there (a step_<n> folder holding {STATE_FILE} and "
        f"{TRAINABLE_FILE}, or a <run_name>{CHECKPOINTS_SUFFIX} folder of them)"
    )


def prune(root: Path, keep: int) -> None:
    """Delete all but the newest ``keep`` checkpoints under ``root``."""
    found = checkpoints(root)
    for _, directory in found[:-keep] if keep > 0 else found:
        shutil.rmtree(directory, ignore_errors=True)

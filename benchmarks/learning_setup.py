"""The learning benchmark's set-up (train tasks, their demonstrations, the drills' demonstrations) written
to a file and read back (``learning_curve.py --setup-cache FILE``).

The set-up is CPU work that depends on the settings below and on no seed of the model: 400 generated heater
tasks and 1,000 drills took 134 s of a 520 s GPU call (session 21), ~6 minutes of two cores here. Made
once where CPU time is cheap and carried (0.26 MB as xz), it leaves the GPU call its time for the model.
A file made with other settings is refused, naming them; one made by older generator code is not detected:
make it again after changing the generator.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from aspen_rl.tasks import AspenTask

SETUP_KEYS = (
    "families",
    "generate_train",
    "n_train",
    "data_seed",
    "drills",
    "split",
    "n_eval",
    "stated_units",
    "rename",
)
"""The flags the set-up depends on (``--drill-kind`` is applied after it is read)."""

FORMAT = 1
"""Bumped when the file's structure changes."""


class SetupFileError(ValueError):
    """The file is not a set-up this benchmark wrote, or was made with other settings."""


def setup_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The values of :data:`SETUP_KEYS` in ``args`` (less ``n_train`` when the train set is generated)."""
    moot = {"n_train"} if args.generate_train else set()
    return {key: getattr(args, key) for key in SETUP_KEYS if key not in moot}


def check_writable(path: Path) -> None:
    """Before the set-up is made: ``path`` can be written as a file (its folder made if missing).

    Raises:
        SetupFileError: It is a folder, or its folder cannot be made or written.
    """
    if path.exists() and not path.is_file():
        raise SetupFileError(f"{path} is not a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SetupFileError(f"{path}: its folder cannot be made ({type(exc).__name__})") from exc
    if not os.access(path.parent, os.W_OK):
        raise SetupFileError(f"{path}: its folder cannot be written")


def save_setup(
    path: Path,
    settings: dict[str, Any],
    train_tasks: list[AspenTask],
    demos: list[dict[str, Any]],
    drill_demos: list[dict[str, Any]],
) -> None:
    """Write the set-up as xz-compressed JSON; whole or not at all (a cut run leaves no half file)."""
    payload = {
        "format": FORMAT,
        "settings": settings,
        "train_tasks": [task.model_dump(mode="json") for task in train_tasks],
        "demos": demos,
        "drill_demos": drill_demos,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    data = lzma.compress(json.dumps(payload, ensure_ascii=False).encode())
    # a name of its own: several seeds' processes given one missing file each make and write it
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, suffix=".part", delete=False) as part:
        part.write(data)
    Path(part.name).replace(path)


def load_setup(
    path: Path, settings: dict[str, Any]
) -> tuple[list[AspenTask], list[dict[str, Any]], list[dict[str, Any]]]:
    """The train tasks, demonstrations and drill demonstrations :func:`save_setup` wrote with ``settings``.

    Raises:
        SetupFileError: Not such a file, another format, or made with other settings (named).
    """
    try:
        payload = json.loads(lzma.decompress(path.read_bytes()))
    except (OSError, lzma.LZMAError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SetupFileError(f"{path}: not a set-up this benchmark wrote ({type(exc).__name__})") from exc
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else None
        raise SetupFileError(f"{path}: set-up format {found!r}, this benchmark reads {FORMAT}")
    saved = payload.get("settings")
    if not isinstance(saved, dict):
        raise SetupFileError(f"{path}: no set-up settings recorded")
    differs = [
        f"--{key.replace('_', '-')} {value} (the file's: {saved.get(key)})"
        for key, value in settings.items()
        if saved.get(key) != value
    ]
    if differs:
        raise SetupFileError(f"{path} was made with other settings: {'; '.join(differs)}")
    try:
        tasks = [AspenTask.model_validate(task) for task in payload["train_tasks"]]
        demos, drill_demos = payload["demos"], payload["drill_demos"]
    except (KeyError, TypeError, ValidationError) as exc:
        problem = type(exc).__name__
        raise SetupFileError(f"{path}: a set-up with parts missing or malformed ({problem})") from exc
    if not (isinstance(demos, list) and isinstance(drill_demos, list)):
        raise SetupFileError(f"{path}: its demonstrations are not lists")
    return tasks, demos, drill_demos

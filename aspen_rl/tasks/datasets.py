"""Loading, saving and registering tasks: JSONL task files, the shipped splits, Python-built tasks."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from aspen_rl.tasks.model import AspenTask

SplitName = Literal["train", "val", "test"]
SPLITS: tuple[str, ...] = ("train", "val", "test")


class TaskFileError(ValueError):
    """A task file could not be read; the message names the file, the line and the field."""


def _format_validation_error(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        field = ".".join(str(p) for p in item["loc"]) or "<task>"
        parts.append(f"field '{field}': {item['msg']}")
    return "; ".join(parts)


def parse_task_line(text: str, *, source: str = "<string>", line_no: int = 1) -> AspenTask:
    """Parse one JSONL line into an :class:`AspenTask`.

    Args:
        text: One JSON object.
        source: File name used in error messages.
        line_no: 1-based line number used in error messages.

    Raises:
        TaskFileError: Malformed JSON or an invalid field (named in the message).
    """
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskFileError(
            f"{source} line {line_no}: malformed JSON: {exc.msg} (column {exc.colno})"
        ) from exc
    if not isinstance(raw, dict):
        raise TaskFileError(f"{source} line {line_no}: expected a JSON object, got {type(raw).__name__}")
    try:
        return AspenTask.model_validate(raw)
    except ValidationError as exc:
        task_id = raw.get("task_id", "?")
        raise TaskFileError(
            f"{source} line {line_no} (task_id={task_id!r}): {_format_validation_error(exc)}"
        ) from exc


def load_tasks(path: str | Path) -> list[AspenTask]:
    """Load tasks from a JSONL file (one task object per line; blank lines are skipped).

    Args:
        path: The JSONL file.

    Returns:
        The tasks in file order.

    Raises:
        TaskFileError: The file is missing, a line is invalid (message names file, line and field),
            or two lines share a ``task_id``.
    """
    path = Path(path)
    if not path.is_file():
        raise TaskFileError(f"task file not found: {path}")
    tasks: list[AspenTask] = []
    seen: dict[str, int] = {}
    try:
        lines = path.read_text(encoding="utf-8-sig").split("\n")  # -sig: files saved with a BOM
    except UnicodeDecodeError as exc:
        raise TaskFileError(f"{path}: not UTF-8 text (byte {exc.start}): save the file as UTF-8") from exc
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        task = parse_task_line(line, source=str(path), line_no=line_no)
        if task.task_id in seen:
            raise TaskFileError(
                f"{path} line {line_no}: field 'task_id': duplicate id {task.task_id!r} "
                f"(first on line {seen[task.task_id]})"
            )
        seen[task.task_id] = line_no
        tasks.append(task)
    return tasks


def save_tasks(tasks: Iterable[AspenTask], path: str | Path) -> None:
    """Write tasks as JSONL (UTF-8, non-ASCII kept readable), one task per line."""
    lines = [json.dumps(t.model_dump(mode="json"), ensure_ascii=False) for t in tasks]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def default_data_dir() -> Path:
    """``./data`` when it exists (a checkout or a user project), else the repository's ``data/``."""
    local = Path("data")
    if (local / "train.jsonl").is_file():
        return local
    return Path(__file__).resolve().parents[2] / "data"


def split_path(name: str, data_dir: str | Path | None = None) -> Path:
    """Path of a shipped split file (``<data_dir>/<name>.jsonl``)."""
    if name not in SPLITS:
        raise ValueError(f"unknown split {name!r}; expected one of {list(SPLITS)}")
    folder = Path(data_dir) if data_dir is not None else default_data_dir()
    return folder / f"{name}.jsonl"


def load_split(name: SplitName, data_dir: str | Path | None = None) -> list[AspenTask]:
    """Load a shipped split: ``"train"``, ``"val"`` or ``"test"``.

    Args:
        name: Split name.
        data_dir: Folder holding ``<name>.jsonl``; defaults to :func:`default_data_dir`.

    Returns:
        The split's tasks, each with ``split`` set to ``name`` when the file left it empty.
    """
    tasks = load_tasks(split_path(name, data_dir))
    return [t if t.split else t.model_copy(update={"split": name}) for t in tasks]

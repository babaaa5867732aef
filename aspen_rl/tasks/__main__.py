"""``python -m aspen_rl.tasks``: validate task files (building them is ``python -m aspen_rl.datagen``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from aspen_rl.tasks.checks import target_errors, unregenerated_message
from aspen_rl.tasks.datasets import TaskFileError, parse_task_line
from aspen_rl.tasks.file_args import add_task_file_arguments, task_file_paths
from aspen_rl.tasks.model import AspenTask

MOVED = ("generate", "stats", "demos", "baseline", "regenerate")
"""Sub-commands that build task files; they live in ``python -m aspen_rl.datagen`` (named, not imported)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m aspen_rl.tasks", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    text = "load task files and report errors (file, line, field)"
    cmd = sub.add_parser("validate", help=text, description=text)
    add_task_file_arguments(cmd)
    return parser


def _validate(paths: list[Path]) -> int:
    """Report every problem of every file and line (not just the first); exit 2 when there is any."""
    errors: list[str] = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8-sig").split("\n")
        except (OSError, UnicodeDecodeError) as exc:
            errors.append(f"{path}: cannot read: {exc}")
            continue
        tasks: list[AspenTask] = []
        seen: set[str] = set()
        for line_no, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                task = parse_task_line(line, source=str(path), line_no=line_no)
            except TaskFileError as exc:
                errors.append(str(exc))
                continue
            if task.task_id in seen:
                errors.append(f"{path} line {line_no}: field 'task_id': duplicate id {task.task_id!r}")
            seen.add(task.task_id)
            tasks.append(task)
        problems = [e for t in tasks for e in target_errors(t)]
        stale = unregenerated_message(tasks, [str(path)])
        with_ref = sum(1 for t in tasks if t.reference_config is not None)
        print(
            f"{path}: {len(tasks)} task(s), {with_ref} with a reference config, "
            f"{len(problems)} target error(s)"
        )
        errors += [f"{path}: {p}" for p in problems]
        if stale:
            errors.append(f"{path}: {stale}")
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    return 2 if errors else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in MOVED:
        print(
            f"error: `python -m aspen_rl.tasks {argv[0]}` moved: run `python -m aspen_rl.datagen {argv[0]}`",
            file=sys.stderr,
        )
        return 2
    args = _parser().parse_args(argv)
    paths = task_file_paths(args)
    try:
        return _validate(paths)
    except TaskFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

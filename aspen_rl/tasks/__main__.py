"""``python -m aspen_rl.tasks``: validate, regenerate, generate task files; record demonstrations."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.simulator.errors import SimulatorError
from aspen_rl.tasks.checks import target_errors, unregenerated_message
from aspen_rl.tasks.datasets import SPLITS, TaskFileError, default_data_dir, parse_task_line
from aspen_rl.tasks.model import AspenTask
from aspen_rl.tasks.regenerate import RegenerationError, in_process_client, regenerate_files


def _paths(args: argparse.Namespace) -> list[Path]:
    if args.files:
        return [Path(f) for f in args.files]
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    return [data_dir / f"{name}.jsonl" for name in SPLITS]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m aspen_rl.tasks", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("validate", "load task files and report errors (file, line, field)"),
        ("regenerate", "run every reference config and rewrite expected values (tolerances kept)"),
    ):
        cmd = sub.add_parser(name, help=text, description=text)
        cmd.add_argument("files", nargs="*", help="JSONL task files (default: train/val/test in --data-dir)")
        cmd.add_argument("--data-dir", help="folder of train.jsonl / val.jsonl / test.jsonl (default: data/)")
        if name == "regenerate":
            cmd.add_argument(
                "--url",
                help="simulator service URL (e.g. $ASPEN_SIMULATOR_URL); default: the mock, in-process",
            )
            cmd.add_argument(
                "--insecure", action="store_true", help="do not verify the service's TLS certificate"
            )
            cmd.add_argument(
                "--ca-bundle",
                type=Path,
                help="PEM certificate(s) to trust for the service (e.g. the real service's self-signed one)",
            )
            cmd.add_argument("--timeout", type=float, default=300.0, help="seconds per request (default 300)")
            cmd.add_argument(
                "--check",
                action="store_true",
                help="write nothing; exit 1 if any stored value is out of date",
            )
    from aspen_rl.tasks.generator.cli import add_parsers

    add_parsers(sub)
    return parser


async def _regenerate(args: argparse.Namespace, paths: list[Path]) -> int:
    if args.ca_bundle is not None and not args.ca_bundle.is_file():
        print(f"error: --ca-bundle {args.ca_bundle}: no such file (PEM certificates)", file=sys.stderr)
        return 2
    if args.url:
        client = SimulatorClient(
            args.url, timeout_s=args.timeout, verify_tls=not args.insecure, ca_bundle=args.ca_bundle
        )
    else:
        client = in_process_client()

    def progress(task: AspenTask, index: int, total: int) -> None:
        print(f"  [{index}/{total}] {task.task_id}", file=sys.stderr, flush=True)

    async with client:
        report = await regenerate_files(paths, client, write=not args.check, on_task=progress)
    stale = 0
    for path, changes in report.items():
        print(f"{path}: {len(changes)} value(s) {'out of date' if args.check else 'updated'}")
        for change in changes:
            print(f"  {change.task_id} / {change.target}: {change.old:g} -> {change.new:g}")
        stale += len(changes)
    return 1 if args.check and stale else 0


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
    args = _parser().parse_args(argv)
    if args.command in ("generate", "stats", "demos", "baseline"):
        from aspen_rl.tasks.generator.cli import run

        try:
            return run(args)
        except (TaskFileError, SimulatorError, ValueError, RuntimeError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    paths = _paths(args)
    try:
        if args.command == "validate":
            return _validate(paths)
        return asyncio.run(_regenerate(args, paths))
    except (TaskFileError, RegenerationError, SimulatorError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

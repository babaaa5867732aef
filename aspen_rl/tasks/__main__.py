"""``python -m aspen_rl.tasks``: validate, regenerate, generate task files; record demonstrations."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.simulator.errors import SimulatorError
from aspen_rl.tasks.datasets import SPLITS, TaskFileError, default_data_dir, load_tasks
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
            cmd.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")
            cmd.add_argument(
                "--check",
                action="store_true",
                help="write nothing; exit 1 if any stored value is out of date",
            )
    from aspen_rl.tasks.generator.cli import add_parsers

    add_parsers(sub)
    return parser


async def _regenerate(args: argparse.Namespace, paths: list[Path]) -> int:
    if args.url:
        client = SimulatorClient(args.url, timeout_s=args.timeout, verify_tls=not args.insecure)
    else:
        client = in_process_client()
    async with client:
        report = await regenerate_files(paths, client, write=not args.check)
    stale = 0
    for path, changes in report.items():
        print(f"{path}: {len(changes)} value(s) {'out of date' if args.check else 'updated'}")
        for change in changes:
            print(f"  {change.task_id} / {change.target}: {change.old:g} -> {change.new:g}")
        stale += len(changes)
    return 1 if args.check and stale else 0


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
            for path in paths:
                tasks = load_tasks(path)
                with_ref = sum(1 for t in tasks if t.reference_config is not None)
                print(f"{path}: {len(tasks)} task(s), {with_ref} with a reference config")
            return 0
        return asyncio.run(_regenerate(args, paths))
    except (TaskFileError, RegenerationError, SimulatorError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

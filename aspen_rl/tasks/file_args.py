"""The task-file arguments ``python -m aspen_rl.tasks`` and ``python -m aspen_rl.datagen`` share."""

from __future__ import annotations

import argparse
from pathlib import Path

from aspen_rl.tasks.datasets import SPLITS, default_data_dir


def add_task_file_arguments(parser: argparse.ArgumentParser) -> None:
    """``files`` (JSONL task files) and ``--data-dir`` (the folder of the shipped splits, their default)."""
    parser.add_argument("files", nargs="*", help="JSONL task files (default: train/val/test in --data-dir)")
    parser.add_argument("--data-dir", help="folder of train.jsonl / val.jsonl / test.jsonl (default: data/)")


def task_file_paths(args: argparse.Namespace) -> list[Path]:
    """The files named, else train / val / test of ``--data-dir`` (default ``data/``)."""
    if args.files:
        return [Path(f) for f in args.files]
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    return [data_dir / f"{name}.jsonl" for name in SPLITS]

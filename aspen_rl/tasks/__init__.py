"""Tasks: the AspenTask model, JSONL datasets (train / val / test)."""

from __future__ import annotations

from aspen_rl.tasks.datasets import (
    SPLITS,
    TaskFileError,
    default_data_dir,
    load_split,
    load_tasks,
    parse_task_line,
    save_tasks,
    split_path,
)
from aspen_rl.tasks.model import AspenTask, Difficulty, Target

__all__ = [
    "SPLITS",
    "AspenTask",
    "Difficulty",
    "Target",
    "TaskFileError",
    "default_data_dir",
    "load_split",
    "load_tasks",
    "parse_task_line",
    "save_tasks",
    "split_path",
]

"""Tasks: the AspenTask model, JSONL datasets (train / val / test) and a registry for Python-built tasks."""

from __future__ import annotations

from aspen_rl.tasks.datasets import (
    SPLITS,
    TaskFileError,
    TaskRegistry,
    default_data_dir,
    load_split,
    load_tasks,
    parse_task_line,
    register_task,
    registered_tasks,
    save_tasks,
    split_path,
)
from aspen_rl.tasks.model import AspenTask, Difficulty, Target, resolve_path

__all__ = [
    "SPLITS",
    "AspenTask",
    "Difficulty",
    "Target",
    "TaskFileError",
    "TaskRegistry",
    "default_data_dir",
    "load_split",
    "load_tasks",
    "parse_task_line",
    "register_task",
    "registered_tasks",
    "resolve_path",
    "save_tasks",
    "split_path",
]

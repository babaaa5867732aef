"""The smallest SFT run the CLI tests start: a tiny chat model, two generated tasks, LoRA, first turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

GENERATED_TRAIN = Path(__file__).resolve().parents[2] / "data" / "generated" / "train.jsonl"


def tiny_sft_settings(tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    """Write a tiny model and a two-task file under ``tmp_path`` (and an empty ``configs/``) and return the
    SFT settings that train it on them; ``overrides`` replace or add keys (``epochs``, ``save_every``...)."""
    from aspen_rl.llm.tiny_bytes import save_tiny_chat_model
    from aspen_rl.tasks import load_tasks, save_tasks

    tiny = save_tiny_chat_model(tmp_path / "tiny", seed=0)
    save_tasks(load_tasks(GENERATED_TRAIN)[:2], tmp_path / "tasks.jsonl")
    (tmp_path / "configs").mkdir()
    return {
        "model": str(tiny),
        "device": "cpu",
        "dtype": "float32",
        "lora": {"enabled": True, "r": 4, "alpha": 8},
        "demonstrations": str(tmp_path / "demos.jsonl"),
        "tasks": str(tmp_path / "tasks.jsonl"),
        "include_tools": False,
        "max_assistant_turns": 1,
        "epochs": 1,
        "batch_size": 2,
        **overrides,
    }

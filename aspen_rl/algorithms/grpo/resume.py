"""Resuming a GRPO run: find the checkpoint, check the config continues its run, replay its metrics.

Torch-free: the CLI's ``--resume`` preflight uses it too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aspen_rl.algorithms.grpo.checkpoint import STATE_FILE, latest_checkpoint, read_state
from aspen_rl.algorithms.grpo.config import GRPOConfig, resume_differences, resume_refusal

CHECKPOINT_METRICS = "metrics.jsonl"
"""Copy of the run's metrics up to a checkpoint's step, kept in the checkpoint for resumed runs."""


def resolve_checkpoint(path: str | Path) -> Path:
    """A checkpoint directory (``step_<n>`` with its state file), or the latest one of a run directory.

    Raises:
        FileNotFoundError: neither a complete checkpoint nor a run directory holding one.
    """
    path = Path(path)
    if (path / STATE_FILE).is_file():
        return path
    latest = latest_checkpoint(path)
    if latest is None:
        raise FileNotFoundError(
            f"--resume {path}: not a GRPO checkpoint (no {STATE_FILE}) nor a run directory with step_<n>/"
        )
    return latest


class ResumeRefused(ValueError):
    """The config does not continue the run that wrote the checkpoint."""


def check_resumable(checkpoint: Path, config: GRPOConfig, named: str = "checkpoint") -> dict[str, Any]:
    """The checkpoint's state, after checking the config continues the run that wrote it.

    Torch-free (the CLI's ``--resume`` preflight runs it before anything heavy loads).

    Args:
        checkpoint: A checkpoint directory (:func:`resolve_checkpoint`).
        config: The config of the resuming run.
        named: How the LoRA message names the checkpoint (``--resume`` on the command line).

    Raises:
        ResumeRefused: LoRA adapter vs full weights mismatch, or fields that define the optimisation
            (``RESUME_FIELDS``: model, LoRA shape, optimiser, schedule, loss, group size...) differ; the
            message lists each as ``field: saved -> current``.
    """
    state = read_state(checkpoint)
    if bool(state.get("lora")) != config.lora.enabled:
        raise ResumeRefused(
            f"{named} {checkpoint} holds {'a LoRA adapter' if state.get('lora') else 'full weights'} "
            f"but the GRPO config has lora.enabled={config.lora.enabled}"
        )
    changed = resume_differences(state.get("config") or {}, config)
    if changed:
        raise ResumeRefused(resume_refusal(checkpoint, changed))
    return state


def replay_metrics(sink: Any, checkpoint: Path, step: int) -> None:
    """Start this run's metrics with those of the run that wrote the checkpoint (up to its step)."""
    saved = checkpoint / CHECKPOINT_METRICS
    if not saved.is_file():
        return
    for line in saved.read_text(encoding="utf-8").split("\n"):  # JSONL: U+2028 is not a line end
        if line.strip():
            row = json.loads(line)
            if row.get("step", step + 1) <= step:
                sink.log(int(row.pop("step")), row)

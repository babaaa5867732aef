"""One SFT run from its config: checks, a run folder, demonstrations, rows, training, a checkpoint.

The run folder (``<output_dir>/<run_name>-run/``, :attr:`SFTConfig.run_dir`) exists from the start:
``train.log``, ``metrics.jsonl`` (one line per optimiser update, from the first), ``demos.jsonl`` when
the run records its own demonstrations, and ``epoch_<k>/`` models with ``epoch_checkpoints``. The final
model goes to ``<output_dir>/<run_name>/`` as before.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aspen_rl.algorithms.sft.config import TINY_MODEL, SFTConfig

logger = logging.getLogger(__name__)

METRICS_FILE = "metrics.jsonl"
LOG_FILE = "train.log"
DEMOS_FILE = "demos.jsonl"

Say = Callable[[str], None]


def demonstrations_path(config: SFTConfig) -> Path:
    """Where the run reads its demonstrations: the named file, else the run folder's ``demos.jsonl``."""
    return Path(config.demonstrations) if config.demonstrations else config.run_dir / DEMOS_FILE


def ensure_demonstrations(config: SFTConfig, *, console: Any = None) -> list[dict[str, Any]]:
    """The transcripts of :func:`demonstrations_path`; recorded from ``config.tasks`` on the in-process mock
    (with progress, and written there; runs stamped by :mod:`aspen_rl.datagen.run_stamps` from
    ``config.seed``) when the file does not exist."""
    from aspen_rl.datagen.demos import load_demos, record_demos, save_demos
    from aspen_rl.datagen.regenerate import in_process_client
    from aspen_rl.datagen.run_stamps import spread_run_ids
    from aspen_rl.progress import progress
    from aspen_rl.tasks.datasets import load_tasks

    path = demonstrations_path(config)
    if path.is_file():
        return load_demos(path)
    if config.tasks is None:
        raise FileNotFoundError(f"no demonstrations at {path} and no `tasks` to record them from")
    tasks = load_tasks(config.tasks)

    async def record() -> list[dict[str, Any]]:
        # stamps spread over years: result paths to copy, not a morning's stamps to learn
        recording = progress("recording demonstrations", len(tasks), console=console)
        with recording as advance, spread_run_ids(config.seed):
            async with in_process_client() as client:
                kept, dropped = await record_demos(tasks, client, on_task=advance)
        if dropped:
            logger.warning(
                "%d reference solution(s) did not score 1.0 and were left out: %s", len(dropped), dropped
            )
        return kept

    demos = asyncio.run(record())
    save_demos(demos, path)
    logger.info("recorded %d demonstrations of %s into %s", len(demos), config.tasks, path)
    return demos


class MetricsWriter:
    """Appends a JSON line per optimiser update to the run folder's ``metrics.jsonl``; saves epoch models."""

    def __init__(self, config: SFTConfig, updates_per_epoch: int, trainer: Any) -> None:
        self.path = config.run_dir / METRICS_FILE
        self.config = config
        self.per_epoch = updates_per_epoch
        self.trainer = trainer
        self.started = time.monotonic()

    def __call__(self, entry: dict[str, float]) -> None:
        update = int(entry["update"])
        elapsed = round(time.monotonic() - self.started, 2)
        line = {**entry, "epoch": update / self.per_epoch, "elapsed_s": elapsed}
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
        if update % self.per_epoch == 0:
            epoch = update // self.per_epoch
            logger.info("sft epoch %d done at update %d: loss %.4f", epoch, update, entry["loss"])
            if self.config.epoch_checkpoints:
                self.trainer.save(self.config.run_dir / f"epoch_{epoch}", final=False)


def build_model(config: SFTConfig, demos: list[dict[str, Any]]) -> tuple[Any, Any]:
    """``(model, tokenizer)`` for ``model: tiny`` (built here); ``(None, None)`` lets the trainer load."""
    if config.model != TINY_MODEL:
        return None, None
    from aspen_rl.llm.tiny_bpe import build_tiny_bpe_model

    tiny = config.tiny
    return build_tiny_bpe_model(
        demos,
        vocab_size=tiny.vocab_size,
        hidden_size=tiny.hidden_size,
        num_layers=tiny.num_layers,
        num_heads=tiny.num_heads,
        seed=config.seed,
    )


def run_sft(
    config: SFTConfig,
    *,
    model: Any = None,
    tokenizer: Any = None,
    resume: str | Path | None = None,
    console: Any = None,
    log_file: bool = False,
) -> Path:
    """Check, record or read demonstrations, train (continuing the checkpoint ``resume`` names) and save;
    returns the checkpoint directory. Progress (count, rate, time left) goes to ``console``; with
    ``log_file`` every log line goes to the run folder's ``train.log`` from the start.

    Raises:
        SFTPreflightError: a check failed before anything was written.
        FileNotFoundError: ``resume`` names no checkpoint.
        ValueError: the checkpoint does not fit this run (``ResumeMismatch``).
    """
    from aspen_rl.algorithms.sft.checkpoint import resolve_resume
    from aspen_rl.algorithms.sft.data import transcript_rows
    from aspen_rl.algorithms.sft.preflight import preflight
    from aspen_rl.algorithms.sft.trainer import SFTTrainer
    from aspen_rl.progress import progress

    if model is None:
        preflight(config)
    checkpoint = resolve_resume(resume) if resume is not None else None  # before anything heavy
    config.run_dir.mkdir(parents=True, exist_ok=True)
    if log_file:
        from aspen_rl.run_logging import log_to_file

        log_to_file(config.run_dir / LOG_FILE)
    logger.info("sft config: %s", config.model_dump_json())
    if console is not None:
        console.print(f"sft: run folder {config.run_dir} (train.log, {METRICS_FILE}); model {config.model}")
    demos = ensure_demonstrations(config, console=console)
    if model is None:
        model, tokenizer = build_model(config, demos)
    trainer = SFTTrainer(config, model=model, tokenizer=tokenizer)
    prompt = Path(config.system_prompt).read_text(encoding="utf-8") if config.system_prompt else None
    rows = transcript_rows(
        demos,
        trainer.tokenizer,
        include_tools=config.include_tools,
        system_prompt=prompt,
        max_assistant_turns=config.max_assistant_turns,
        max_length=config.max_length,
        value_weight=config.value_weight,
    )
    logger.info("sft: %d demonstrations -> %d rows", len(demos), len(rows))
    total = trainer.total_updates(len(rows))
    writer = MetricsWriter(config, trainer.updates_per_epoch(len(rows)), trainer)
    with progress("sft updates", total, console=console) as advance:

        def on_update(entry: dict[str, float]) -> None:
            writer(entry)
            advance(f"loss {entry['loss']:.3f}")

        trainer.on_update = on_update
        trainer.train(rows, resume=checkpoint)
    return trainer.save()

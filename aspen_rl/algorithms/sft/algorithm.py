"""One SFT run from its config: demonstrations (recorded when missing), rows, training, a saved checkpoint."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from aspen_rl.algorithms.sft.config import SFTConfig

logger = logging.getLogger(__name__)


def ensure_demonstrations(config: SFTConfig) -> list[dict[str, Any]]:
    """The transcripts of ``config.demonstrations``; recorded from ``config.tasks`` on the in-process mock
    (and written) when the file does not exist."""
    from aspen_rl.tasks.datasets import load_tasks
    from aspen_rl.tasks.generator.demos import load_demos, record_demos, save_demos
    from aspen_rl.tasks.regenerate import in_process_client

    path = Path(config.demonstrations)
    if path.is_file():
        return load_demos(path)
    if config.tasks is None:
        raise FileNotFoundError(f"no demonstrations at {path} and no `tasks` to record them from")
    tasks = load_tasks(config.tasks)

    async def record() -> list[dict[str, Any]]:
        async with in_process_client() as client:
            kept, dropped = await record_demos(tasks, client)
        if dropped:
            logger.warning(
                "%d reference solution(s) did not score 1.0 and were left out: %s", len(dropped), dropped
            )
        return kept

    demos = asyncio.run(record())
    save_demos(demos, path)
    logger.info("recorded %d demonstrations of %s into %s", len(demos), config.tasks, path)
    return demos


def run_sft(
    config: SFTConfig, *, model: Any = None, tokenizer: Any = None, resume: str | Path | None = None
) -> Path:
    """Train on the demonstrations (continuing the checkpoint ``resume`` names) and save; returns the
    checkpoint directory.

    Raises:
        FileNotFoundError: ``resume`` names no checkpoint.
        ValueError: the checkpoint does not fit this run (``ResumeMismatch``).
    """
    from aspen_rl.algorithms.sft.checkpoint import resolve_resume
    from aspen_rl.algorithms.sft.data import transcript_rows
    from aspen_rl.algorithms.sft.trainer import SFTTrainer

    checkpoint = resolve_resume(resume) if resume is not None else None  # before anything heavy
    demos = ensure_demonstrations(config)
    trainer = SFTTrainer(config, model=model, tokenizer=tokenizer)
    prompt = Path(config.system_prompt).read_text(encoding="utf-8") if config.system_prompt else None
    rows = transcript_rows(
        demos,
        trainer.tokenizer,
        include_tools=config.include_tools,
        system_prompt=prompt,
        max_assistant_turns=config.max_assistant_turns,
        max_length=config.max_length,
    )
    logger.info("sft: %d demonstrations -> %d rows", len(demos), len(rows))
    trainer.train(rows, resume=checkpoint)
    return trainer.save()

"""Supervised fine-tuning on demonstration rows: masked next-token cross-entropy, AdamW, a saved model.

Checkpoints every ``save_every`` updates (:mod:`aspen_rl.algorithms.sft.checkpoint`, written atomically),
resumes from one, and saves where it stands when a signal (SIGINT / SIGTERM, raised as ``KeyboardInterrupt``
by :mod:`aspen_rl.lifecycle`) stops it between updates.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from torch.optim.lr_scheduler import LRScheduler

from aspen_rl.algorithms.lr_schedule import warmup_schedule
from aspen_rl.algorithms.sft.checkpoint import (
    OPTIMIZER_FILE,
    POSITION_FILE,
    STATE_FILE,
    TRAINABLE_FILE,
    checkpoints_root,
    prune,
    write_dir_atomically,
    write_state,
)
from aspen_rl.algorithms.sft.config import SFTConfig
from aspen_rl.llm.loading import disable_dropout, is_peft_model, model_to_train
from aspen_rl.llm.logprobs import token_logprobs
from aspen_rl.llm.row_batch import collate
from aspen_rl.llm.trajectory import assistant_spans
from aspen_rl.llm.types import TrajectoryRow

logger = logging.getLogger(__name__)

__all__ = ["STATE_FILE", "ResumeMismatch", "SFTTrainer"]


class ResumeMismatch(ValueError):
    """A checkpoint that does not fit this run (other rows or another number of updates)."""


class SFTTrainer:
    """Masked cross-entropy on assistant tokens.

    Args:
        config: All knobs.
        model: The model (default: loaded from ``config.model``); wrapped with LoRA when
            ``config.lora.enabled``.
        tokenizer: Its tokenizer (default: loaded with the model).
    """

    def __init__(
        self, config: SFTConfig, model: torch.nn.Module | None = None, tokenizer: Any = None
    ) -> None:
        self.config = config
        random.seed(config.seed)
        torch.manual_seed(config.seed)
        model, tokenizer, self.device = model_to_train(config, model, tokenizer)
        self.model = model
        self.tokenizer = tokenizer
        pad = getattr(tokenizer, "pad_token_id", None)
        self.pad_token_id = pad if pad is not None else (getattr(tokenizer, "eos_token_id", None) or 0)
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(
            self.params,
            lr=config.learning_rate,
            betas=(config.adam_beta1, config.adam_beta2),
            weight_decay=config.weight_decay,
        )
        self.updates = 0
        self.history: list[dict[str, float]] = []
        self._shuffle: tuple[int, Any, list[int]] | None = None  # rows, rng state, order after the last call
        self.on_update: Callable[[dict[str, float]], None] | None = None
        """Called after every optimiser update with its metrics (update, loss, grad_norm, lr, tokens)."""

    def updates_per_epoch(self, n_rows: int) -> int:
        """Optimiser updates in one pass over ``n_rows`` rows."""
        return max(1, math.ceil(n_rows / self.config.batch_size))

    def total_updates(self, n_rows: int) -> int:
        """Optimiser updates of the whole run over ``n_rows`` rows."""
        return max(1, math.ceil(self.updates_per_epoch(n_rows) * self.config.epochs))

    def _scheduler(self, total: int) -> LRScheduler:
        """Warm-up, then constant or linear decay (``lr_schedule``), positioned after ``updates`` updates."""
        cfg = self.config
        for group in self.optimizer.param_groups:  # the peak, also after a checkpoint's optimizer state
            group.update(lr=cfg.learning_rate, initial_lr=cfg.learning_rate)
        linear = cfg.lr_schedule == "linear" and total > cfg.warmup_steps
        decay = total - cfg.warmup_steps if linear else None
        return warmup_schedule(
            self.optimizer, warmup=cfg.warmup_steps, decay_updates=decay, done=self.updates
        )

    def loss(self, rows: Sequence[TrajectoryRow]) -> tuple[torch.Tensor, float]:
        """Summed negative log-likelihood of the assistant tokens of ``rows`` and what it is averaged over.

        ``loss_average: token``: each token weighs its ``loss_weights`` entry (1 without), divided by the
        weights' sum (the token count without). ``turn``: each turn's tokens weigh ``w / the turn's summed
        w`` (1/its length without weights), so every turn weighs 1 and the count is the turns'.
        """
        batch = collate(rows, self.pad_token_id).to(self.device)
        # logits only where a token is trained: a prompt's are never scored (most of a row's tokens)
        with torch.autocast(
            self.device.type, dtype=torch.bfloat16, enabled=self.config.mixed_precision == "bf16"
        ):
            logprobs = token_logprobs(
                self.model, batch.input_ids, batch.attention_mask, needed=batch.loss_mask > 0
            )
        turn = self.config.loss_average == "turn"
        if turn or any(r.loss_weights is not None for r in rows):
            weights = torch.zeros_like(batch.loss_mask)
            for i, row in enumerate(rows):  # aligned as collate aligns the mask: t scores token t + 1
                per_token = turn_weights(row.loss_mask, row.loss_weights) if turn else _token_weights(row)
                weights[i, : len(row.loss_mask) - 1] = torch.tensor(per_token[1:])
            return -(logprobs * weights).sum(), self._denominator(rows)
        return -(logprobs * batch.loss_mask).sum(), int(batch.loss_mask.sum().item())

    def _denominator(self, rows: Sequence[TrajectoryRow]) -> float:
        """What an update's summed loss is divided by: its assistant tokens' weights (their count without
        ``loss_weights``), or its turns."""
        if self.config.loss_average == "turn":
            # each turn's weights sum to 1
            return sum(round(sum(turn_weights(r.loss_mask, r.loss_weights))) for r in rows)
        if all(r.loss_weights is None for r in rows):
            return sum(r.num_loss_tokens for r in rows)
        return sum(sum(_token_weights(r)) for r in rows)

    @property
    def checkpoints_dir(self) -> Path:
        """Where this run's resumable checkpoints go."""
        return checkpoints_root(self.config.output_dir, self.config.run_name)

    def train(self, rows: Sequence[TrajectoryRow], *, resume: Path | None = None) -> list[dict[str, float]]:
        """Run ``config.epochs`` passes over ``rows`` (continuing ``resume``); returns the logged metrics.

        Raises:
            ResumeMismatch: ``resume`` was made on other rows or for another number of updates.
            KeyboardInterrupt: A signal stopped the run; what it had done was saved first (when the signal
                came between two updates) into :attr:`checkpoints_dir`.
        """
        if not rows:
            raise ValueError("no training rows: no demonstration has an assistant turn")
        cfg = self.config
        total = self.total_updates(len(rows))
        rng = random.Random(cfg.seed)
        order: list[int] = []
        if resume is not None:
            rng, order = self._restore(resume, n_rows=len(rows), total=total)
        elif self._shuffle is not None and self._shuffle[0] == len(rows):
            # a later call (more epochs over the same rows) goes on with the shuffle, not replaying its start
            rng.setstate(self._shuffle[1])
            order = list(self._shuffle[2])
        scheduler = self._scheduler(total)
        self.model.train()
        disable_dropout(self.model)
        position = (rng.getstate(), list(order))  # where the shuffling stood after update `self.updates`
        stepping = False
        try:
            for update in range(self.updates, total):
                position = (rng.getstate(), list(order))
                if len(order) < cfg.batch_size:
                    fresh = list(range(len(rows)))
                    rng.shuffle(fresh)
                    order.extend(fresh)
                chosen = [rows[i] for i in order[: cfg.batch_size]]
                del order[: cfg.batch_size]
                n_tokens = self._denominator(chosen)
                lr = float(self.optimizer.param_groups[0]["lr"])
                self.optimizer.zero_grad(set_to_none=True)
                summed = 0.0
                for start in range(0, len(chosen), cfg.micro_batch_size):
                    nll, _ = self.loss(chosen[start : start + cfg.micro_batch_size])
                    (nll / (n_tokens or 1)).backward()
                    summed += float(nll.item())
                grad_norm = torch.nn.utils.clip_grad_norm_(self.params, cfg.max_grad_norm)
                stepping = True  # weights half-updated until the count says the update is done
                self.optimizer.step()
                scheduler.step()
                self.updates += 1
                stepping = False
                position = (rng.getstate(), list(order))
                entry = {
                    "update": float(self.updates),
                    "loss": summed / (n_tokens or 1),
                    "grad_norm": float(grad_norm),
                    "lr": lr,
                    "tokens": float(n_tokens),
                }
                if self.updates % cfg.log_every == 0 or update == total - 1:
                    self.history.append(entry)
                    logger.info("sft update %d/%d: loss %.4f", self.updates, total, entry["loss"])
                if self.on_update is not None:
                    self.on_update(entry)
                if cfg.save_every and self.updates % cfg.save_every == 0 and self.updates < total:
                    self.save_checkpoint(total, len(rows), position)
        except KeyboardInterrupt:
            if stepping:
                logger.warning("sft stopped inside an optimiser step: the last checkpoint stands")
            elif self.updates:
                path = self.save_checkpoint(total, len(rows), position)
                logger.warning(
                    "sft stopped at update %d/%d; saved %s (resume with --resume)", self.updates, total, path
                )
            raise
        self._shuffle = (len(rows), rng.getstate(), list(order))
        self.model.eval()
        return self.history

    def save_checkpoint(self, total: int, n_rows: int, position: tuple[Any, list[int]]) -> Path:
        """Write ``step_<updates>`` (atomically) under :attr:`checkpoints_dir`; keep the newest few."""
        from aspen_rl.algorithms.grpo.checkpoint import rng_state

        trainable = {n: p.detach().cpu() for n, p in self.model.named_parameters() if p.requires_grad}
        state = {
            "updates": self.updates,
            "total": total,
            "rows": n_rows,
            "history": self.history,
            "config": self.config.model_dump(),
        }

        def write(directory: Path) -> None:
            torch.save(trainable, directory / TRAINABLE_FILE)
            torch.save(self.optimizer.state_dict(), directory / OPTIMIZER_FILE)
            torch.save(
                {"rng": rng_state(), "shuffle": position[0], "order": position[1]}, directory / POSITION_FILE
            )
            write_state(directory, state)  # last: its presence marks a complete checkpoint

        target = write_dir_atomically(self.checkpoints_dir / f"step_{self.updates}", write)
        prune(self.checkpoints_dir, self.config.keep_checkpoints)
        return target

    def _restore(self, path: Path, *, n_rows: int, total: int) -> tuple[random.Random, list[int]]:
        """Load a checkpoint into the model and optimizer; returns the shuffling position."""
        from aspen_rl.algorithms.grpo.checkpoint import set_rng_state

        state = json.loads((path / STATE_FILE).read_text(encoding="utf-8"))
        if (state["rows"], state["total"]) != (n_rows, total):
            raise ResumeMismatch(
                f"--resume {path}: made on {state['rows']} rows for {state['total']} updates; this run has "
                f"{n_rows} rows for {total} updates (same demonstrations, epochs and batch size needed)"
            )
        weights = torch.load(path / TRAINABLE_FILE, map_location=self.device)
        trainable = {n for n, p in self.model.named_parameters() if p.requires_grad}
        if set(weights) != trainable:
            raise ResumeMismatch(
                f"--resume {path}: its trainable weights are not this model's (LoRA or not?)"
            )
        self.model.load_state_dict(weights, strict=False)
        self.optimizer.load_state_dict(torch.load(path / OPTIMIZER_FILE, map_location=self.device))
        position = torch.load(path / POSITION_FILE, weights_only=False)
        set_rng_state(position["rng"])
        rng = random.Random()
        rng.setstate(position["shuffle"])
        self.updates, self.history = int(state["updates"]), list(state["history"])
        logger.info("sft resumed from %s at update %d/%d", path, self.updates, total)
        return rng, list(position["order"])

    def save(self, path: str | Path | None = None, *, final: bool = True) -> Path:
        """Write a checkpoint that ``--algorithm grpo --model <path>`` and the model server load directly.

        LoRA adapters are merged into the weights, so the directory holds a plain ``save_pretrained`` model
        and its tokenizer (chat template included), plus ``sft_state.json`` (config and loss history). It is
        written beside its target and renamed into place (a run killed while saving leaves the previous
        directory, never half of one); with ``final`` the run's intermediate checkpoints are removed
        afterwards (an epoch model saved mid-run passes ``final=False``).
        """
        cfg = self.config
        out = Path(path) if path is not None else Path(cfg.output_dir) / cfg.run_name
        model = self.model
        if is_peft_model(model):
            import copy

            model = copy.deepcopy(model).merge_and_unload()  # type: ignore[operator]
        state = {"config": cfg.model_dump(), "updates": self.updates, "history": self.history}

        def write(directory: Path) -> None:
            model.save_pretrained(directory)  # type: ignore[operator]  # an HF/PEFT model method; torch types Module attributes as Tensor | Module
            if self.tokenizer is not None:
                self.tokenizer.save_pretrained(directory)
            write_state(directory, state)

        write_dir_atomically(out, write)
        if not final:
            return out
        prune(self.checkpoints_dir, 0)
        with contextlib.suppress(OSError):
            self.checkpoints_dir.rmdir()
        return out


def turn_weights(mask: Sequence[float], token_weights: Sequence[float] | None = None) -> list[float]:
    """Each assistant token's weight when every turn (a run of loss-mask 1) weighs 1: 1/the turn's length,
    or with ``token_weights`` the token's weight over the sum of its turn's."""
    weights = [0.0] * len(mask)
    for i, end in assistant_spans(mask):
        if token_weights is None:
            weights[i:end] = [1.0 / (end - i)] * (end - i)
        else:
            total = sum(token_weights[i:end])
            weights[i:end] = [w / total for w in token_weights[i:end]]
    return weights


def _token_weights(row: TrajectoryRow) -> list[float]:
    """A row's per-token loss weights under ``loss_average: token``: its ``loss_weights`` (1 without) on
    trained tokens, 0 elsewhere."""
    if row.loss_weights is None:
        return [float(m) for m in row.loss_mask]
    return [w if m else 0.0 for w, m in zip(row.loss_weights, row.loss_mask, strict=True)]

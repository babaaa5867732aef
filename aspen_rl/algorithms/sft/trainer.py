"""Supervised fine-tuning on demonstration rows: masked next-token cross-entropy, AdamW, a saved model."""

from __future__ import annotations

import json
import logging
import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from aspen_rl.algorithms.grpo.batch import collate
from aspen_rl.algorithms.grpo.loss import selective_logprobs
from aspen_rl.algorithms.grpo.model import (
    apply_lora,
    disable_dropout,
    is_peft_model,
    resolve_device,
    resolve_dtype,
)
from aspen_rl.algorithms.grpo.types import TrajectoryRow
from aspen_rl.algorithms.sft.config import SFTConfig

logger = logging.getLogger(__name__)

STATE_FILE = "sft_state.json"


def load_base(config: SFTConfig) -> tuple[torch.nn.Module, Any]:
    """The base model (on the configured device and dtype) and its tokenizer (with ``config.chat_template``,
    checked to render tools, as GRPO checks its policy's)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from aspen_rl.algorithms.grpo.chat_template import prepare_tokenizer

    device = resolve_device(config.device)
    dtype = resolve_dtype(config.dtype, device)
    source = config.tokenizer or config.model
    tokenizer = prepare_tokenizer(AutoTokenizer.from_pretrained(source), config.chat_template, where=source)
    model = AutoModelForCausalLM.from_pretrained(config.model, dtype=dtype).to(device)
    return model, tokenizer


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
        if model is None:
            model, loaded = load_base(config)
            tokenizer = tokenizer if tokenizer is not None else loaded
        self.device = resolve_device(config.device)
        model.to(self.device)
        if config.lora.enabled and not is_peft_model(model):
            model = apply_lora(model, config.lora)
        disable_dropout(model)
        if config.gradient_checkpointing:
            model.gradient_checkpointing_enable()
            if is_peft_model(model):
                model.enable_input_require_grads()
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

    def _lr_factor(self, update: int, total: int) -> float:
        warmup = self.config.warmup_steps
        if warmup and update < warmup:
            return (update + 1) / warmup
        if self.config.lr_schedule == "linear" and total > warmup:
            return max(0.0, 1.0 - (update - warmup) / (total - warmup))
        return 1.0

    def loss(self, rows: Sequence[TrajectoryRow]) -> tuple[torch.Tensor, int]:
        """Summed negative log-likelihood of the assistant tokens of ``rows`` and their count."""
        batch = collate(rows, self.pad_token_id).to(self.device)
        logits = self.model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits[:, :-1]
        logprobs = selective_logprobs(logits, batch.input_ids[:, 1:])
        return -(logprobs * batch.loss_mask).sum(), int(batch.loss_mask.sum().item())

    def train(self, rows: Sequence[TrajectoryRow]) -> list[dict[str, float]]:
        """Run ``config.epochs`` passes over ``rows``; returns the logged metrics."""
        if not rows:
            raise ValueError("no training rows: no demonstration has an assistant turn")
        cfg = self.config
        per_epoch = math.ceil(len(rows) / cfg.batch_size)
        total = max(1, math.ceil(per_epoch * cfg.epochs))
        rng = random.Random(cfg.seed)
        order: list[int] = []
        self.model.train()
        disable_dropout(self.model)
        for update in range(total):
            if len(order) < cfg.batch_size:
                fresh = list(range(len(rows)))
                rng.shuffle(fresh)
                order.extend(fresh)
            chosen = [rows[i] for i in order[: cfg.batch_size]]
            del order[: cfg.batch_size]
            n_tokens = sum(r.num_loss_tokens for r in chosen)
            for group in self.optimizer.param_groups:
                group["lr"] = cfg.learning_rate * self._lr_factor(update, total)
            self.optimizer.zero_grad(set_to_none=True)
            summed = 0.0
            for start in range(0, len(chosen), cfg.micro_batch_size):
                nll, _ = self.loss(chosen[start : start + cfg.micro_batch_size])
                (nll / max(n_tokens, 1)).backward()
                summed += float(nll.item())
            grad_norm = torch.nn.utils.clip_grad_norm_(self.params, cfg.max_grad_norm)
            self.optimizer.step()
            self.updates += 1
            if self.updates % cfg.log_every == 0 or update == total - 1:
                entry = {
                    "update": float(self.updates),
                    "loss": summed / max(n_tokens, 1),
                    "grad_norm": float(grad_norm),
                    "lr": self.optimizer.param_groups[0]["lr"],
                }
                self.history.append(entry)
                logger.info("sft update %d/%d: loss %.4f", self.updates, total, entry["loss"])
        self.model.eval()
        return self.history

    def save(self, path: str | Path | None = None) -> Path:
        """Write a checkpoint that ``--algorithm grpo --model <path>`` and the model server load directly.

        LoRA adapters are merged into the weights, so the directory holds a plain ``save_pretrained`` model
        and its tokenizer (chat template included), plus ``sft_state.json`` (config and loss history).
        """
        cfg = self.config
        out = Path(path) if path is not None else Path(cfg.output_dir) / cfg.run_name
        out.mkdir(parents=True, exist_ok=True)
        model = self.model
        if is_peft_model(model):
            import copy

            model = copy.deepcopy(model).merge_and_unload()  # type: ignore[operator]
        model.save_pretrained(out)
        if self.tokenizer is not None:
            self.tokenizer.save_pretrained(out)
        state = {"config": cfg.model_dump(), "updates": self.updates, "history": self.history}
        (out / STATE_FILE).write_text(json.dumps(state, indent=2), encoding="utf-8")
        return out

"""The GRPO update: policy (+ reference), AdamW, LoRA or full weights, checkpoints and engine sync.

An outer loop calls, per step: ``metrics = trainer.step(groups)`` with one group per task (the G
``RolloutSample``s of that task), then ``trainer.sync_to_engine(engine)``, and every k steps
``trainer.save_checkpoint(config.checkpoint_path(trainer.global_step))``.
"""

from __future__ import annotations

import copy
import random
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from torch.optim.lr_scheduler import LRScheduler

from aspen_rl.algorithms.grpo import checkpoint as ckpt
from aspen_rl.algorithms.grpo.advantages import group_advantages
from aspen_rl.algorithms.grpo.config import GRPOConfig, resume_differences, resume_refusal
from aspen_rl.algorithms.grpo.loss import grpo_token_loss, token_weights, weighted_sum
from aspen_rl.algorithms.lr_schedule import warmup_schedule
from aspen_rl.llm.engine.base import RolloutEngine
from aspen_rl.llm.loading import is_peft_model, model_to_train, set_cpu_threads
from aspen_rl.llm.logprobs import token_logprobs
from aspen_rl.llm.row_batch import RowBatch, collate
from aspen_rl.llm.types import RolloutSample, TrajectoryRow

Group = Sequence[RolloutSample | tuple[Sequence[TrajectoryRow], float]]
"""The G rollouts of one task: ``RolloutSample``s or ``(rows, reward)`` pairs."""


class _Item:
    """One row scheduled for the update, with its rollout's advantage."""

    __slots__ = ("advantage", "old_logprobs", "rollout", "row")

    def __init__(self, row: TrajectoryRow, advantage: float, rollout: int) -> None:
        self.row = row
        self.advantage = advantage
        self.rollout = rollout
        self.old_logprobs: torch.Tensor | None = None


def _as_sample(sample: RolloutSample | tuple[Sequence[TrajectoryRow], float]) -> RolloutSample:
    if isinstance(sample, RolloutSample):
        return sample
    rows, reward = sample
    return RolloutSample(rows=list(rows), reward=float(reward))


class _Stats:
    """Token-weighted running sums for the step's metrics."""

    def __init__(self) -> None:
        self.sums: dict[str, float] = {}
        self.tokens = 0.0

    def add(self, mask: torch.Tensor, **per_token: torch.Tensor) -> None:
        self.tokens += float(mask.sum())
        for name, value in per_token.items():
            self.sums[name] = self.sums.get(name, 0.0) + float((value.detach() * mask).sum())

    def mean(self, name: str) -> float:
        return self.sums.get(name, 0.0) / self.tokens if self.tokens else 0.0


class GRPOTrainer:
    """Multi-turn GRPO over token rows recorded from the rollout engine.

    Args:
        config: All knobs.
        model: The policy (default: loaded from ``config.model``). Wrapped with LoRA when
            ``config.lora.enabled`` and it is not a peft model yet.
        tokenizer: Its tokenizer (default: loaded with the model; optional when a model is given).
        ref_model: Reference for the KL term (default when ``beta > 0``: the base weights with the
            adapter disabled under LoRA, else a frozen copy of the initial policy).
    """

    def __init__(
        self,
        config: GRPOConfig,
        model: torch.nn.Module | None = None,
        tokenizer: Any = None,
        ref_model: torch.nn.Module | None = None,
    ) -> None:
        self.config = config
        set_cpu_threads(config.cpu_threads)
        random.seed(config.seed)
        torch.manual_seed(config.seed)
        model, tokenizer, self.device = model_to_train(config, model, tokenizer)
        self.model = model
        self.tokenizer = tokenizer
        self.ref_model = ref_model
        if config.beta > 0 and ref_model is None and not is_peft_model(model):
            self.ref_model = copy.deepcopy(model).eval().requires_grad_(False)
        self.pad_token_id = self._pad_id(tokenizer)
        self.params = [p for p in self.model.parameters() if p.requires_grad]
        if not self.params:
            raise ValueError("the policy has no trainable parameters")
        self.optimizer = torch.optim.AdamW(
            self.params,
            lr=config.learning_rate,
            betas=(config.adam_beta1, config.adam_beta2),
            eps=config.adam_epsilon,
            weight_decay=config.weight_decay,
        )
        self.global_step = 0
        self.optimizer_steps = 0
        self.scheduler = self._build_scheduler()

    def _build_scheduler(self) -> LRScheduler:
        """The schedule of the config (linear warm-up, then constant), positioned after ``optimizer_steps``.

        The optimiser's hyper-parameters are (re)set from the config first, so the learning rate is a
        function of (config, optimizer_steps) only: a resumed run uses what the uninterrupted run would.
        """
        cfg = self.config
        for group in self.optimizer.param_groups:
            group.update(
                initial_lr=cfg.learning_rate,
                lr=cfg.learning_rate,
                betas=(cfg.adam_beta1, cfg.adam_beta2),
                eps=cfg.adam_epsilon,
                weight_decay=cfg.weight_decay,
            )
        return warmup_schedule(self.optimizer, warmup=cfg.warmup_steps, done=self.optimizer_steps)

    @staticmethod
    def _pad_id(tokenizer: Any) -> int:
        for name in ("pad_token_id", "eos_token_id"):
            value = getattr(tokenizer, name, None) if tokenizer is not None else None
            if isinstance(value, int):
                return value
        return 0

    @property
    def logprob_temperature(self) -> float:
        """Temperature the logits are divided by (the sampling temperature; 1 for greedy)."""
        return self.config.temperature if self.config.temperature > 0 else 1.0

    # ---- logprobs --------------------------------------------------------------------------------------

    def _token_logprobs(self, model: torch.nn.Module, batch: RowBatch) -> torch.Tensor:
        """Logprobs of the sampled tokens (loss mask 1; 0 elsewhere), memory-lean (``logprobs.py``)."""
        return token_logprobs(
            model,
            batch.input_ids,
            batch.attention_mask,
            batch.loss_mask > 0,
            temperature=self.logprob_temperature,
            chunk_size=self.config.logprob_chunk_tokens,
        )

    def _reference_logprobs(self, batch: RowBatch) -> torch.Tensor:
        with torch.no_grad():
            if self.ref_model is not None:
                return self._token_logprobs(self.ref_model, batch)
            with self.model.disable_adapter():  # type: ignore[operator]  # an HF/PEFT model method; torch types Module attributes as Tensor | Module
                return self._token_logprobs(self.model, batch)

    @torch.no_grad()
    def compute_logprobs(self, rows: Sequence[TrajectoryRow]) -> list[torch.Tensor]:
        """Current policy logprob of each row's sampled tokens (float32, CPU, no grad).

        Returns:
            Per row a tensor of ``len(input_ids)`` values aligned with ``input_ids``; entry t is
            ``log p(input_ids[t] | input_ids[:t])`` at the sampling temperature where ``loss_mask[t]`` is
            1, and 0 elsewhere (those positions are never trained on, so they are not scored).
        """
        out: list[torch.Tensor] = []
        size = self.config.micro_batch_size
        for start in range(0, len(rows), size):
            chunk = rows[start : start + size]
            lp = self._token_logprobs(self.model, collate(chunk, self.pad_token_id).to(self.device)).cpu()
            for i, row in enumerate(chunk):
                n = len(row.input_ids)
                out.append(torch.cat([torch.zeros(1), lp[i, : n - 1]]))
        return out

    # ---- the step --------------------------------------------------------------------------------------

    def _schedule(self, groups: Sequence[Group]) -> tuple[list[_Item], dict[str, float]]:
        items: list[_Item] = []
        rewards: list[float] = []
        zero_variance = prefix_breaks = truncated = rows = total_tokens = 0
        rollout = 0
        for group in groups:
            samples = [_as_sample(s) for s in group]
            group_rewards = [s.reward for s in samples]
            rewards.extend(group_rewards)
            adv = group_advantages(
                group_rewards,
                scale=self.config.scale_rewards == "std",
                eps=self.config.advantage_epsilon,
                zero_variance_tolerance=self.config.zero_variance_tolerance,
            )
            zero_variance += adv.zero_variance
            for sample, advantage in zip(samples, adv.advantages, strict=True):
                prefix_breaks += sample.prefix_breaks
                truncated += sample.truncated_rows
                rows += len(sample.rows)
                total_tokens += sum(len(r.input_ids) for r in sample.rows)
                if not adv.zero_variance:
                    items.extend(_Item(row, advantage, rollout) for row in sample.rows if row.num_loss_tokens)
                rollout += 1
        r = torch.tensor(rewards, dtype=torch.float64) if rewards else torch.zeros(1, dtype=torch.float64)
        metrics = {
            "reward_mean": float(r.mean()),
            "reward_std": float(r.std()) if r.numel() > 1 else 0.0,
            "groups": float(len(groups)),
            "rollouts": float(rollout),
            "zero_variance_groups": float(zero_variance),
            "prefix_breaks": float(prefix_breaks),
            "truncated_rows": float(truncated),
            "rows": float(rows),
            "total_tokens": float(total_tokens),
        }
        return items, metrics

    def _minibatches(self, items: list[_Item]) -> list[list[_Item]]:
        """Split by whole rollouts into ``minibatches_per_step`` parts."""
        rollouts = sorted({it.rollout for it in items})
        n = min(self.config.minibatches_per_step, len(rollouts))
        parts: list[list[_Item]] = [[] for _ in range(n)]
        position = {r: i * n // len(rollouts) for i, r in enumerate(rollouts)}
        for it in items:
            parts[position[it.rollout]].append(it)
        return parts

    def _update(self, items: list[_Item], off_policy: bool, stats: _Stats) -> tuple[float, float]:
        """One optimiser update over ``items`` with gradient accumulation; returns (loss, grad norm)."""
        cfg = self.config
        full = collate([it.row for it in items], self.pad_token_id)
        rollout_index = torch.tensor([it.rollout for it in items])
        weights = token_weights(full.loss_mask, rollout_index, cfg.loss_aggregation)
        self.optimizer.zero_grad(set_to_none=True)
        self.model.train()
        total_loss = 0.0
        for start in range(0, len(items), cfg.micro_batch_size):
            chunk = items[start : start + cfg.micro_batch_size]
            batch = collate([it.row for it in chunk], self.pad_token_id).to(self.device)
            width = batch.loss_mask.shape[1]
            w = weights[start : start + len(chunk), :width].to(self.device)
            adv = torch.tensor([it.advantage for it in chunk], dtype=torch.float32, device=self.device)
            logp = self._token_logprobs(self.model, batch)
            if off_policy:
                old = torch.stack([_pad_to(it.old_logprobs, width) for it in chunk]).to(self.device)
            else:
                old = logp.detach()
            token_loss = grpo_token_loss(
                logp,
                old,
                adv,
                batch.loss_mask,
                epsilon_low=cfg.epsilon_low,
                epsilon_high=cfg.epsilon_high,
                engine_logprobs=batch.engine_logprobs,
                is_cap=cfg.importance_sampling_cap if cfg.importance_sampling_correction else None,
                ref_logprobs=self._reference_logprobs(batch) if cfg.beta > 0 else None,
                beta=cfg.beta,
            )
            loss = weighted_sum(token_loss.loss, w)
            loss.backward()
            total_loss += float(loss.detach())
            stats.add(batch.loss_mask, **token_loss.stats)
        grad_norm = torch.nn.utils.clip_grad_norm_(self.params, cfg.max_grad_norm)
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer_steps += 1
        return total_loss, float(grad_norm)

    def step(self, groups: Sequence[Group]) -> dict[str, float]:
        """One GRPO step over the groups of this step's tasks.

        Advantages are computed once per rollout within its group; zero-variance groups are flagged and
        skipped. The surviving rows are split into ``minibatches_per_step`` optimiser updates (by whole
        rollouts), repeated ``num_iterations`` times; each update accumulates gradients over micro-batches
        of ``micro_batch_size`` rows with exact global loss normalisation.

        Args:
            groups: One group per task: its G ``RolloutSample``s (or ``(rows, reward)`` pairs).

        Returns:
            Metrics: loss, clip_fraction, kl, grad_norm, reward_mean/std, zero_variance_groups, prefix_breaks,
            tokens (trained), total_tokens, rows, ratio_mean, is_weight_mean, logprob_diff, lr, step...
        """
        started = time.perf_counter()
        cfg = self.config
        items, metrics = self._schedule(groups)
        stats = _Stats()
        losses: list[float] = []
        norms: list[float] = []
        off_policy = cfg.num_iterations > 1 or cfg.minibatches_per_step > 1
        if items:
            if off_policy:
                self.model.train()
                for it, lp in zip(items, self.compute_logprobs([it.row for it in items]), strict=True):
                    it.old_logprobs = lp[1:]
            for _ in range(cfg.num_iterations):
                for part in self._minibatches(items):
                    loss, norm = self._update(part, off_policy, stats)
                    losses.append(loss)
                    norms.append(norm)
        self.global_step += 1
        elapsed = time.perf_counter() - started
        metrics.update(
            step=float(self.global_step),
            loss=sum(losses) / len(losses) if losses else 0.0,
            grad_norm=sum(norms) / len(norms) if norms else 0.0,
            updates=float(len(losses)),
            skipped=float(not items),
            tokens=float(sum(it.row.num_loss_tokens for it in items)),
            clip_fraction=stats.mean("clipped"),
            ratio_mean=stats.mean("ratio"),
            kl=stats.mean("kl"),
            logprob_diff=stats.mean("logprob_diff"),
            is_weight_mean=stats.mean("is_weight"),
            is_truncated_fraction=stats.mean("is_truncated"),
            lr=float(self.scheduler.get_last_lr()[0]),
            update_seconds=elapsed,
        )
        return metrics

    # ---- checkpoints -----------------------------------------------------------------------------------

    def save_checkpoint(self, path: str | Path) -> Path:
        """Write model or adapter, tokenizer, optimizer + scheduler, RNG states, step and config."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(path / ckpt.MODEL_DIR)  # type: ignore[operator]  # an HF/PEFT model method; torch types Module attributes as Tensor | Module
        if self.tokenizer is not None and hasattr(self.tokenizer, "save_pretrained"):
            self.tokenizer.save_pretrained(path / ckpt.TOKENIZER_DIR)
        torch.save(
            {"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict()},
            path / ckpt.OPTIMIZER_FILE,
        )
        torch.save(ckpt.rng_state(), path / ckpt.RNG_FILE)
        ckpt.write_state(
            path,
            {
                "format": 1,
                "global_step": self.global_step,
                "optimizer_steps": self.optimizer_steps,
                "lora": is_peft_model(self.model),
                "config": self.config.model_dump(mode="json"),
            },
        )
        return path

    def load_checkpoint(self, path: str | Path, *, allow_config_changes: bool = False) -> dict[str, Any]:
        """Restore what ``save_checkpoint`` wrote into this trainer (same model architecture and config).

        The optimiser's moments, the step counters and the RNG states come from the checkpoint; its
        hyper-parameters and the learning-rate schedule come from this trainer's config (positioned at the
        restored step), which must match the saved one on every ``RESUME_FIELDS`` field.

        Args:
            path: A ``step_<n>`` checkpoint directory.
            allow_config_changes: Resume although optimisation fields differ (the current config's values
                are used from here on, e.g. a new learning rate at the schedule's current position).

        Returns:
            The checkpoint's ``trainer_state.json``.

        Raises:
            ValueError: LoRA vs full weights mismatch, or optimisation fields that differ (listed).
        """
        path = Path(path)
        state = ckpt.read_state(path)
        model_dir = path / ckpt.MODEL_DIR
        if state["lora"] != is_peft_model(self.model):
            raise ValueError(f"checkpoint {path} has lora={state['lora']}, this trainer does not")
        changed = resume_differences(state.get("config") or {}, self.config)
        if changed and not allow_config_changes:
            raise ValueError(resume_refusal(path, changed))
        if is_peft_model(self.model):
            from peft import set_peft_model_state_dict
            from peft.utils import load_peft_weights

            set_peft_model_state_dict(self.model, load_peft_weights(str(model_dir)))
        else:
            weights = ckpt.load_full_state_dict(model_dir)
            missing, unexpected = self.model.load_state_dict(weights, strict=False)
            tied = set(getattr(self.model, "_tied_weights_keys", None) or [])
            if unexpected or any(key not in tied and "lm_head" not in key for key in missing):
                raise ValueError(
                    f"checkpoint {path} does not fit the model: missing {missing}, extra {unexpected}"
                )
            self.model.tie_weights()  # type: ignore[operator]  # an HF/PEFT model method; torch types Module attributes as Tensor | Module
        saved = torch.load(path / ckpt.OPTIMIZER_FILE, map_location=self.device, weights_only=False)
        self.optimizer.load_state_dict(saved["optimizer"])
        ckpt.set_rng_state(torch.load(path / ckpt.RNG_FILE, weights_only=False))
        self.global_step = int(state["global_step"])
        self.optimizer_steps = int(state["optimizer_steps"])
        self.scheduler = self._build_scheduler()  # not the saved one: its base lr is the old config's
        return state

    # ---- engine sync -----------------------------------------------------------------------------------

    def sync_to_engine(self, engine: RolloutEngine, workdir: str | Path | None = None) -> None:
        """Publish the current policy to the rollout engine.

        An engine holding this very model object needs nothing (the version is bumped). Otherwise LoRA
        adapters are saved under ``workdir`` (default ``<run_dir>/engine_sync``) and hot-loaded; full
        weights are pushed as a state dict.
        """
        if getattr(engine, "model", None) is self.model:
            engine.update_weights(self.model)
            return
        if is_peft_model(self.model):
            root = Path(workdir) if workdir is not None else self.config.run_dir() / "engine_sync"
            target = root / f"v{engine.version + 1}"
            self.model.save_pretrained(target)  # type: ignore[operator]  # an HF/PEFT model method; torch types Module attributes as Tensor | Module
            engine.update_weights(target)
            stale = root / f"v{engine.version - 1}"
            if stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
            return
        engine.update_weights(self.model.state_dict())


def _pad_to(values: torch.Tensor | None, width: int) -> torch.Tensor:
    assert values is not None
    out = torch.zeros(width)
    n = min(width, values.numel())
    out[:n] = values[:n]
    return out

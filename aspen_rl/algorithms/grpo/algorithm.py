"""GRPO as an Agent Lightning algorithm: the loop (rollouts through the store, update, sync, eval, saves).

Its parts live next to it: ``resume`` (checkpoint lookup and the resume check), ``task_draw`` (which tasks a
step trains on), ``metrics`` (per-batch statistics, the metrics sink) and ``metrics_table`` (the final table).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentlightning import ProxyLLM
from agentlightning.algorithm import Algorithm

from aspen_rl.algorithms.grpo.config import GRPOConfig, grpo_config_from_settings
from aspen_rl.algorithms.grpo.failures import split_for_update
from aspen_rl.algorithms.grpo.metrics import record_metrics
from aspen_rl.algorithms.grpo.metrics_table import metrics_table
from aspen_rl.algorithms.grpo.resume import (
    CHECKPOINT_METRICS,
    check_resumable,
    replay_metrics,
    resolve_checkpoint,
)
from aspen_rl.algorithms.grpo.task_draw import tasks_for_step
from aspen_rl.algorithms.rollouts import publish, run_tasks
from aspen_rl.llm.chat_template import load_chat_template
from aspen_rl.records import RolloutRecord
from aspen_rl.reporting import RunReport
from aspen_rl.rollout_seed import derive_seed
from aspen_rl.settings import Settings
from aspen_rl.tasks import AspenTask

if TYPE_CHECKING:
    from aspen_rl.llm.types import RolloutSample

__all__ = [
    "CHECKPOINT_METRICS",
    "LLM_RESOURCE",
    "STEP_KEY",
    "GRPOAlgorithm",
    "check_resumable",
    "metrics_table",
    "record_metrics",
    "resolve_checkpoint",
    "tasks_for_step",
]

logger = logging.getLogger(__name__)

LLM_RESOURCE = "main_llm"
"""Name of the ``LLM`` resource the agent resolves (replaced by the policy endpoint)."""
STEP_KEY = "grpo_step"
"""Key of ``RolloutRecord.extra`` naming the step a rollout belongs to."""


@dataclass
class _Policy:
    """What ``run`` builds once the runners are forked: trainer, engine, endpoint, metrics sink."""

    trainer: Any
    engine: Any
    server: Any
    sink: Any


class GRPOAlgorithm(Algorithm):
    """Multi-turn GRPO over Agent Lightning's store (an ``Algorithm``; it needs ``Trainer.fit``).

    ``run`` loads the policy, serves it on a local OpenAI-compatible endpoint that records token ids
    and logprobs per rollout, publishes that endpoint as the ``main_llm`` resource (a ``ProxyLLM``, so
    every call of a rollout is routed and recorded under its rollout id), then per step: draws
    ``tasks_per_step`` train tasks, runs each ``group_size`` times through the store, scores policy
    failures 0 and keeps them in their group, leaves infrastructure failures out of the update and
    counts them (``failures.failure_kind``), updates,
    syncs the weights to the engine, logs metrics (``metrics.jsonl``, TensorBoard, ``reward_curve.png``
    in the report's folder), checkpoints every ``save_every`` steps and at the end, and evaluates on
    the validation tasks every ``eval_every`` steps and at the end. Test tasks, when given, are run
    once with the final policy.

    Args:
        config: GRPO knobs; checkpoints go to ``config.checkpoint_path(step)``.
        resources: Resources every rollout gets; ``main_llm`` is replaced by the policy endpoint, the
            others (e.g. a ``system_prompt``) are kept.
        report: The run's report: rollouts, progress bars, console; metrics go to its folder.
        resume: Checkpoint to continue from (its step, weights, optimizer and RNG states).
        test_dataset: Optional test tasks.
        deadline_s: Give-up time of one batch of rollouts.
    """

    def __init__(
        self,
        config: GRPOConfig,
        resources: dict[str, Any],
        report: RunReport,
        *,
        resume: Path | None = None,
        test_dataset: Sequence[AspenTask] | None = None,
        deadline_s: float = 3600.0,
    ) -> None:
        super().__init__()
        self.config = config
        self.resources = {k: v for k, v in resources.items() if k != LLM_RESOURCE}
        self.report = report
        self.resume = resume
        self.test_dataset = list(test_dataset or [])
        self.deadline_s = deadline_s
        self.history: list[dict[str, Any]] = []
        self.last_checkpoint: Path | None = None

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        resources: dict[str, Any],
        report: RunReport,
        *,
        model: str | None = None,
        group_size: int | None = None,
        seed: int = 0,
        resume: str | Path | None = None,
        test_dataset: Sequence[AspenTask] | None = None,
    ) -> GRPOAlgorithm:
        """Build from the CLI's pieces: ``configs/grpo.yaml`` + the ``algorithms.grpo`` section + flags.

        The config is :func:`~aspen_rl.algorithms.grpo.config.grpo_config_from_settings`'s (the one the
        CLI's preflight checked), the run named after the report's folder.

        Args:
            settings: Run settings (``models_dir``, ``algorithms.grpo``).
            resources: Resources of every rollout (``main_llm`` is replaced by the policy endpoint).
            report: The run's report.
            model: ``--model``: the policy (wins over the config).
            group_size: ``--repeats``: G (wins over the config).
            seed: ``--seed`` (the section's ``seed`` wins when set).
            resume: ``--resume``: a checkpoint directory or a run directory (its latest step).
            test_dataset: Optional test tasks, run once with the final policy.

        Raises:
            GRPOConfigError: invalid config values or keys.
            FileNotFoundError: a config file or the checkpoint is missing.
            ValueError: the checkpoint does not fit the config (LoRA vs full weights, changed optimisation
                fields).
        """
        checkpoint = resolve_checkpoint(resume) if resume is not None else None
        config = grpo_config_from_settings(
            settings,
            model=model,
            group_size=group_size,
            seed=seed,
            checkpoint=checkpoint,
            run_name=report.output_dir.name,
        )
        local = Path(config.model).expanduser()
        if (local.is_absolute() or config.model.startswith((".", "~"))) and not local.exists():
            raise FileNotFoundError(f"policy model directory not found: {config.model}")
        if config.chat_template is not None:
            load_chat_template(config.chat_template)  # a missing file is found before anything loads
        if checkpoint is not None:
            check_resumable(checkpoint, config)
        return cls(config, resources, report, resume=checkpoint, test_dataset=test_dataset)

    # ---- set-up --------------------------------------------------------------------------------------

    def _load_trainer(self) -> tuple[Any, Any]:
        """The trainer (restored when resuming) and the metrics sink. Blocking."""
        from aspen_rl.algorithms.grpo.metrics import MetricsSink
        from aspen_rl.algorithms.grpo.trainer import GRPOTrainer

        trainer = GRPOTrainer(self.config)
        sink = MetricsSink(self.report.output_dir, tensorboard=self.config.tensorboard)
        if self.resume is not None:
            trainer.load_checkpoint(self.resume)
            replay_metrics(sink, self.resume, trainer.global_step)
            logger.info("grpo: resumed from %s at step %d", self.resume, trainer.global_step)
        return trainer, sink

    def _start_policy(self, trainer: Any, sink: Any) -> _Policy:
        """Engine and endpoint; in the calling (main) thread, as vLLM versions before 0.10.2 require."""
        from aspen_rl.llm.chat_server import ChatCompletionServer
        from aspen_rl.llm.engine import build_engine

        engine = build_engine(self.config, model=trainer.model, tokenizer=trainer.tokenizer)
        if self.resume is not None:
            trainer.sync_to_engine(engine)  # a separate engine (vLLM) starts from the base weights
        server = ChatCompletionServer.from_config(self.config, engine, trainer.tokenizer)
        server.start()
        return _Policy(trainer, engine, server, sink)

    def llm_resource(self, endpoint: str) -> ProxyLLM:
        """The policy endpoint as a rollout-routed ``ProxyLLM`` resource."""
        cfg = self.config
        return ProxyLLM(
            endpoint=endpoint,
            model=cfg.served_model_name,
            sampling_parameters={"temperature": cfg.temperature, "top_p": cfg.top_p},
        )

    # ---- the loop ------------------------------------------------------------------------------------

    async def run(
        self,
        train_dataset: Sequence[AspenTask] | None = None,
        val_dataset: Sequence[AspenTask] | None = None,
    ) -> None:
        """Train for ``config.steps`` steps (counting those of a resumed checkpoint)."""
        cfg = self.config
        train, val = list(train_dataset or []), list(val_dataset or [])
        if not train:
            raise ValueError("GRPO needs train tasks")
        console = self.report.console
        console.print(f"GRPO: loading the policy {cfg.model} ({cfg.engine} engine)")
        trainer, sink = await asyncio.to_thread(self._load_trainer)
        policy = self._start_policy(trainer, sink)
        store = self.get_store()
        try:
            resources_id = await publish(
                store, {LLM_RESOURCE: self.llm_resource(policy.server.endpoint), **self.resources}
            )
            first = policy.trainer.global_step + 1
            console.print(
                f"GRPO: steps {first}..{cfg.steps}, {min(cfg.tasks_per_step, len(train))} tasks x "
                f"G={cfg.group_size} per step; policy served at {policy.server.endpoint}"
            )
            if first > cfg.steps:
                console.print(f"GRPO: the checkpoint is at step {first - 1} >= steps={cfg.steps}")
            for step in range(first, cfg.steps + 1):
                metrics = await self._train_step(policy, store, resources_id, train, step)
                policy.sink.log(step, metrics)
                self.history.append(metrics)
                if val and cfg.eval_every and (step == cfg.steps or step % cfg.eval_every == 0):
                    evaluation = await self._evaluate(policy, store, resources_id, val, step, "val")
                    policy.sink.log(step, evaluation, prefix="eval/")
                    self.history.append({f"eval/{k}": v for k, v in evaluation.items()} | {"step": step})
                    console.print(
                        f"  eval after step {step}: reward {evaluation['reward_mean']:.3f} "
                        f"on {evaluation['rollouts']:.0f} validation rollouts"
                    )
                if step == cfg.steps or (cfg.save_every and step % cfg.save_every == 0):
                    await asyncio.to_thread(self._save, policy, step)
            if self.test_dataset:
                final = policy.trainer.global_step
                await self._evaluate(policy, store, resources_id, self.test_dataset, final, "test")
        finally:
            policy.server.stop()
            policy.engine.close()
            rows = policy.sink.read()
            if rows:
                policy.sink.plot_rewards()
            policy.sink.close()
        console.print(metrics_table(rows))
        if self.last_checkpoint is not None:
            console.print(f"GRPO checkpoint: {self.last_checkpoint}")

    def _tagged(
        self, on_record: Callable[[RolloutRecord], None], step: int
    ) -> Callable[[RolloutRecord], None]:
        def tag(record: RolloutRecord) -> None:
            record.extra[STEP_KEY] = step
            on_record(record)

        return tag

    async def _train_step(
        self, policy: _Policy, store: Any, resources_id: str, train: list[AspenTask], step: int
    ) -> dict[str, Any]:
        from aspen_rl.algorithms.grpo.groups import FinishedRollout, group_samples

        cfg = self.config
        started = time.perf_counter()
        tasks = tasks_for_step(train, step, cfg.tasks_per_step, cfg.seed)
        with self.report.progress(f"grpo step {step}/{cfg.steps}", len(tasks) * cfg.group_size) as on_record:
            records = await run_tasks(
                store,
                tasks,
                resources_id=resources_id,
                mode="train",
                repeats=cfg.group_size,
                deadline_s=self.deadline_s,
                on_record=self._tagged(on_record, step),
                seed=derive_seed(cfg.seed, "train", step),
            )
        rollout_s = time.perf_counter() - started
        kept_rollouts, left_out = split_for_update(records)
        for record in left_out:
            logger.warning(
                "grpo step %d: rollout %s of %s left out (infrastructure failure, status %s): %s",
                step,
                record.rollout_id,
                record.task_id,
                record.status,
                record.error,
            )
        finished = []
        for record, reward in kept_rollouts:
            attempt = await store.get_latest_attempt(record.rollout_id)
            finished.append(
                FinishedRollout(
                    record.task_id,
                    record.rollout_id,
                    reward,
                    attempt.attempt_id if attempt is not None else None,
                )
            )
        groups = group_samples(policy.server.recorder, finished, max_tokens=cfg.max_trajectory_tokens)
        policy.server.recorder.clear()  # calls of failed rollouts
        kept = [group for group in groups if len(group) >= 2]
        metrics = await asyncio.to_thread(self._update, policy, kept)
        batch = record_metrics(records)
        metrics.update(
            {k: batch[k] for k in ("completion_mean", "tool_efficiency_mean", "response_quality_mean")},
            success_rate=batch["success_rate"],
            reward_mean_all=batch["reward_mean"],
            failed_rollouts=batch["failed_rollouts"],
            policy_failures=batch["policy_failures"],
            dropped_groups=float(len(tasks) - len(kept)),
            llm_calls=float(sum(_llm_calls(sample) for group in groups for sample in group)),
            policy_version=float(policy.engine.version),
            rollout_seconds=rollout_s,
            step_seconds=time.perf_counter() - started,
        )
        metrics["step"] = float(step)
        self.report.console.print(
            f"  step {step}: reward {metrics['reward_mean']:.3f} ± {metrics['reward_std']:.3f}, "
            f"loss {metrics['loss']:+.4f}, {metrics['tokens']:.0f} tokens trained, "
            f"{metrics['zero_variance_groups']:.0f} zero-variance groups, "
            f"{metrics['policy_failures']:.0f} policy failures (scored 0), "
            f"{metrics['failed_rollouts']:.0f} infrastructure failures (left out), "
            f"{metrics['step_seconds']:.1f} s"
        )
        return metrics

    def _update(self, policy: _Policy, groups: list[Any]) -> dict[str, Any]:
        """One optimiser step and the weight sync (blocking; no rollout runs meanwhile)."""
        metrics = policy.trainer.step(groups)
        started = time.perf_counter()
        policy.trainer.sync_to_engine(policy.engine, self.config.run_dir() / "engine_sync")
        metrics["sync_seconds"] = time.perf_counter() - started
        return metrics

    def _save(self, policy: _Policy, step: int) -> None:
        path = policy.trainer.save_checkpoint(self.config.checkpoint_path(step))
        if policy.sink.path.is_file():
            (path / CHECKPOINT_METRICS).write_text(policy.sink.path.read_text(encoding="utf-8"), "utf-8")
        self.last_checkpoint = path
        logger.info("grpo: checkpoint %s", path)

    async def _evaluate(
        self, policy: _Policy, store: Any, resources_id: str, tasks: list[AspenTask], step: int, mode: str
    ) -> dict[str, float]:
        """Run ``tasks`` (``eval_repeats`` times each) with the current policy; nothing is trained."""
        repeats = self.config.eval_repeats
        with self.report.progress(f"grpo {mode} after step {step}", len(tasks) * repeats) as on_record:
            records = await run_tasks(
                store,
                tasks,
                resources_id=resources_id,
                mode=mode,
                repeats=repeats,
                deadline_s=self.deadline_s,
                on_record=self._tagged(on_record, step),
                seed=derive_seed(self.config.seed, mode, step),
            )
        for record in records:
            policy.server.recorder.pop(record.rollout_id)
        return record_metrics(records)


def _llm_calls(sample: RolloutSample) -> int:
    """The number of LLM calls behind ``sample`` (set by the group builder in ``meta["calls"]``)."""
    calls = sample.meta.get("calls", 0)
    return calls if isinstance(calls, int) else 0

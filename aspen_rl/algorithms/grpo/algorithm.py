"""GRPO as an Agent Lightning algorithm: rollouts through the store, update, sync, eval, checkpoints."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any

from agentlightning import ProxyLLM
from agentlightning.algorithm import Algorithm
from rich import box
from rich.table import Table

from aspen_rl.algorithms.grpo.chat_template import load_chat_template
from aspen_rl.algorithms.grpo.checkpoint import STATE_FILE, latest_checkpoint, read_state
from aspen_rl.algorithms.grpo.config import (
    DEFAULT_CONFIG_PATH,
    GRPOConfig,
    load_grpo_config,
    resume_differences,
    resume_refusal,
)
from aspen_rl.algorithms.grpo.failures import failure_kind, split_for_update
from aspen_rl.algorithms.rollouts import publish, run_tasks
from aspen_rl.records import RolloutRecord
from aspen_rl.reporting import RunReport
from aspen_rl.settings import Settings
from aspen_rl.tasks import AspenTask

logger = logging.getLogger(__name__)

LLM_RESOURCE = "main_llm"
"""Name of the ``LLM`` resource the agent resolves (replaced by the policy endpoint)."""
CHECKPOINT_METRICS = "metrics.jsonl"
"""Copy of the run's metrics up to a checkpoint's step, kept in the checkpoint for resumed runs."""
STEP_KEY = "grpo_step"
"""Key of ``RolloutRecord.extra`` naming the step a rollout belongs to."""

TABLE_COLUMNS = (
    ("step", "step", "{:.0f}"),
    ("reward", "reward_mean", "{:.3f}"),
    ("std", "reward_std", "{:.3f}"),
    ("loss", "loss", "{:+.4f}"),
    ("grad", "grad_norm", "{:.3f}"),
    ("tokens", "tokens", "{:.0f}"),
    ("0-var", "zero_variance_groups", "{:.0f}"),
    ("failed", "failed_rollouts", "{:.0f}"),
    ("p-fail", "policy_failures", "{:.0f}"),
    ("eval", "eval/reward_mean", "{:.3f}"),
    ("s", "step_seconds", "{:.1f}"),
)
"""Columns of the final metrics table: (header, metrics key, format)."""
TABLE_CAPTION = (
    "reward: mean ± std of the trained groups; grad: gradient norm; 0-var: groups without signal; "
    "failed: infrastructure failures left out; p-fail: policy failures scored 0 and kept; "
    "eval: validation reward; s: step time"
)


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


def check_resumable(checkpoint: Path, config: GRPOConfig) -> dict[str, Any]:
    """The checkpoint's state, after checking the config continues the run that wrote it.

    Raises:
        ValueError: LoRA adapter vs full weights mismatch, or fields that define the optimisation
            (``RESUME_FIELDS``: model, LoRA shape, optimiser, schedule, loss, group size...) differ; the
            message lists each as ``field: saved -> current``.
    """
    state = read_state(checkpoint)
    if bool(state.get("lora")) != config.lora.enabled:
        raise ValueError(
            f"checkpoint {checkpoint} holds {'a LoRA adapter' if state.get('lora') else 'full weights'} "
            f"but the GRPO config has lora.enabled={config.lora.enabled}"
        )
    changed = resume_differences(state.get("config") or {}, config)
    if changed:
        raise ValueError(resume_refusal(checkpoint, changed))
    return state


def tasks_for_step(tasks: Sequence[AspenTask], step: int, k: int, seed: int) -> list[AspenTask]:
    """The ``k`` distinct tasks of a 1-based step, walking seeded per-epoch shuffles of the task list.

    Every task is seen about equally often, and the draw depends only on (tasks, step, k, seed): a
    resumed run draws what the uninterrupted run would have.
    """
    n = len(tasks)
    k = min(k, n)
    chosen: list[int] = []
    position = (step - 1) * k
    while len(chosen) < k:
        epoch, offset = divmod(position, n)
        order = list(range(n))
        random.Random(f"{seed}:{epoch}").shuffle(order)
        if order[offset] not in chosen:  # an epoch boundary inside the step
            chosen.append(order[offset])
        position += 1
    return [tasks[i] for i in chosen]


def record_metrics(records: Sequence[RolloutRecord]) -> dict[str, float]:
    """Reward statistics of a batch of rollouts (all of them, failures scoring 0) and its failure counts.

    ``failed_rollouts`` counts the infrastructure failures (left out of the update), ``policy_failures``
    the rollouts the policy ended in failure (scored 0 and kept), see ``failures.failure_kind``.
    """
    totals = [r.reward.total if r.status == "ok" else 0.0 for r in records]
    kinds = [failure_kind(r) for r in records]
    return {
        "reward_mean": fmean(totals) if totals else 0.0,
        "reward_std": pstdev(totals) if len(totals) > 1 else 0.0,
        "completion_mean": fmean(r.reward.completion for r in records) if records else 0.0,
        "tool_efficiency_mean": fmean(r.reward.tool_efficiency for r in records) if records else 0.0,
        "response_quality_mean": fmean(r.reward.response_quality for r in records) if records else 0.0,
        "success_rate": fmean(float(r.succeeded) for r in records) if records else 0.0,
        "rollouts": float(len(records)),
        "failed_rollouts": float(kinds.count("infrastructure")),
        "policy_failures": float(kinds.count("policy")),
    }


def metrics_table(rows: Sequence[dict[str, Any]], title: str = "GRPO metrics per step") -> Table:
    """One row per step (training and evaluation lines of a step merged)."""
    by_step: dict[int, dict[str, Any]] = {}
    for row in rows:
        by_step.setdefault(int(row["step"]), {}).update(row)
    table = Table(
        title=title, box=box.SIMPLE_HEAD, caption=TABLE_CAPTION, collapse_padding=True, pad_edge=False
    )
    for header, _, _ in TABLE_COLUMNS:
        table.add_column(header, justify="right", no_wrap=True)
    for step in sorted(by_step):
        row = by_step[step]
        cells = []
        for _, key, fmt in TABLE_COLUMNS:
            value = row.get(key)
            cells.append(fmt.format(value) if isinstance(value, int | float) else "-")
        table.add_row(*cells)
    return table


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

        The section holds GRPOConfig fields (they win over the YAML) and optionally ``config_file``
        (another YAML). Checkpoints go to ``<models_dir>/grpo/<run>/step_<n>/`` (``checkpoint_dir`` in
        the section wins), the run named after the report's folder; a resumed run keeps writing into the
        run directory of its checkpoint unless the section names ``checkpoint_dir``/``run_name``.

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
        section = dict(getattr(settings.algorithms, "grpo", None) or {})
        config_file = section.pop("config_file", DEFAULT_CONFIG_PATH)
        if section.get("seed") is None:
            section.pop("seed", None)
        overrides: dict[str, Any] = {"seed": seed, **section}
        if model:
            overrides["model"] = model
        if group_size:
            overrides["group_size"] = group_size
        checkpoint = resolve_checkpoint(resume) if resume is not None else None
        if checkpoint is not None:
            overrides.setdefault("checkpoint_dir", str(checkpoint.parent.parent))
            overrides.setdefault("run_name", checkpoint.parent.name)
        overrides.setdefault("checkpoint_dir", str(settings.models_dir / "grpo"))
        overrides.setdefault("run_name", report.output_dir.name)
        config = load_grpo_config(config_file, **overrides)
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
            self._replay_metrics(sink, self.resume, trainer.global_step)
            logger.info("grpo: resumed from %s at step %d", self.resume, trainer.global_step)
        return trainer, sink

    def _start_policy(self, trainer: Any, sink: Any) -> _Policy:
        """Engine and endpoint; in the calling (main) thread, as vLLM versions before 0.10.2 require."""
        from aspen_rl.algorithms.grpo.engine import build_engine
        from aspen_rl.algorithms.grpo.server import ChatCompletionServer

        engine = build_engine(self.config, model=trainer.model, tokenizer=trainer.tokenizer)
        if self.resume is not None:
            trainer.sync_to_engine(engine)  # a separate engine (vLLM) starts from the base weights
        server = ChatCompletionServer.from_config(self.config, engine, trainer.tokenizer)
        server.start()
        return _Policy(trainer, engine, server, sink)

    @staticmethod
    def _replay_metrics(sink: Any, checkpoint: Path, step: int) -> None:
        """Start this run's metrics with those of the run that wrote the checkpoint (up to its step)."""
        saved = checkpoint / CHECKPOINT_METRICS
        if not saved.is_file():
            return
        for line in saved.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("step", step + 1) <= step:
                    sink.log(int(row.pop("step")), row)

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
            llm_calls=float(sum(sample.meta["calls"] for group in groups for sample in group)),
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
            )
        for record in records:
            policy.server.recorder.pop(record.rollout_id)
        return record_metrics(records)

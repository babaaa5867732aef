"""GRPOAlgorithm through Agent Lightning's real store and runner, with a tiny local model on CPU."""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import openai
import pytest
from agentlightning import LLM, LitAgent, LitAgentRunner, PromptTemplate, ProxyLLM, Trainer, emit_object
from agentlightning.execution.shared_memory import SharedMemoryExecutionStrategy
from agentlightning.tracer.otel import OtelTracer
from rich.console import Console

from aspen_rl.algorithms.grpo.algorithm import STEP_KEY, GRPOAlgorithm
from aspen_rl.algorithms.grpo.config import GRPOConfig, GRPOConfigError, load_grpo_config
from aspen_rl.algorithms.grpo.metrics_table import metrics_table
from aspen_rl.algorithms.grpo.resume import CHECKPOINT_METRICS, resolve_checkpoint
from aspen_rl.algorithms.grpo.task_draw import tasks_for_step
from aspen_rl.failures import FailureKind
from aspen_rl.llm.tiny_bytes import save_tiny_chat_model
from aspen_rl.records import RolloutRecord
from aspen_rl.reporting import RunReport, load_records
from aspen_rl.reward.base import RewardBreakdown
from aspen_rl.rollout_seed import SEED_METADATA_KEY, derive_seed
from aspen_rl.settings import Settings
from aspen_rl.tasks import AspenTask

BROKEN = "train-broken"
LONG = "train-b"


class ToyAgent(LitAgent[AspenTask]):
    """Two chat turns against the published policy; the reward is a hash of the replies in [0, 1).

    Rollouts of ``train-broken`` call the model too, then report an infrastructure error. Every other
    rollout of ``train-b`` (one per step with G=2) sends a second prompt over ``max_prompt_tokens`` and
    reports the endpoint's 400 as the agent does: a policy failure.
    """

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str | None]] = []
        self.seeds: list[int | None] = []
        self.long_rollouts = 0

    async def rollout_async(self, task: Any, resources: Any, rollout: Any) -> float:
        task = AspenTask.model_validate(task)
        llm = resources["main_llm"]
        assert isinstance(llm, ProxyLLM)
        prompt = resources.get("system_prompt")
        self.seen.append((llm.model, prompt.template if prompt else None))
        seed = (rollout.metadata or {}).get(SEED_METADATA_KEY)
        self.seeds.append(seed)
        base_url = llm.get_base_url(rollout.rollout_id, rollout.attempt.attempt_id)
        client = openai.AsyncOpenAI(base_url=base_url, api_key="-")
        messages: list[dict[str, Any]] = [{"role": "user", "content": task.user_requirement}]
        replies = []
        over_long = None
        if task.task_id == LONG:
            self.long_rollouts += 1
            if self.long_rollouts % 2:
                over_long = "x" * 7000  # more tokens than max_prompt_tokens (6144) on the byte tokenizer
        try:
            for turn in (over_long or "first", "second"):
                reply = await client.chat.completions.create(model=llm.model, messages=messages, seed=seed)
                text = reply.choices[0].message.content or ""
                replies.append(text)
                messages += [{"role": "assistant", "content": text}, {"role": "user", "content": turn}]
        except openai.BadRequestError as exc:
            record = RolloutRecord(
                rollout_id=rollout.rollout_id,
                task_id=task.task_id,
                status="error",
                error=f"{type(exc).__name__}: {exc}",
            )
            emit_object(record.model_dump(mode="json"))
            return 0.0
        finally:
            await client.close()
        digest = hashlib.sha256("".join(replies).encode("utf-8", "replace")).digest()
        reward = int.from_bytes(digest[:4], "big") / 2**32
        broken = task.task_id == BROKEN
        record = RolloutRecord(
            rollout_id=rollout.rollout_id,
            task_id=task.task_id,
            split=task.split or "train",
            difficulty=str(task.difficulty),
            status="error" if broken else "ok",
            error="SimulatorUnavailable: no answer" if broken else None,
            failure=FailureKind.UNREACHABLE if broken else None,
            reward=RewardBreakdown(total=0.0) if broken else RewardBreakdown(total=reward, completion=reward),
        )
        emit_object(record.model_dump(mode="json"))
        return record.reward.total


def make_tasks(split: str, ids: list[str]) -> list[AspenTask]:
    return [AspenTask(task_id=i, user_requirement=f"Heat {i}.", difficulty="easy", split=split) for i in ids]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_chat_model(tmp_path_factory.mktemp("tiny") / "tiny-chat")


def config(tiny_model: Path, tmp_path: Path, **overrides: Any) -> GRPOConfig:
    values: dict[str, Any] = {
        "model": str(tiny_model),
        "device": "cpu",
        "steps": 2,
        "tasks_per_step": 3,
        "group_size": 2,
        "max_response_tokens": 6,
        "learning_rate": 1e-3,
        "lora": {"r": 4, "alpha": 8},
        "eval_every": 1,
        "save_every": 1,
        "checkpoint_dir": str(tmp_path / "models" / "grpo"),
        "run_name": "toy",
        "tensorboard": False,
    }
    values.update(overrides)
    return load_grpo_config(None, **values)


def fit(algorithm: GRPOAlgorithm, agent: ToyAgent, train: list[AspenTask], val: list[AspenTask]) -> None:
    tracer = OtelTracer()
    trainer = Trainer(
        algorithm=algorithm,
        n_runners=1,  # shared-memory runners are threads sharing one tracer
        tracer=tracer,
        runner=LitAgentRunner(tracer=tracer, poll_interval=0.01, interval_jitter=0.0),
        strategy=SharedMemoryExecutionStrategy(n_runners=1, main_thread="algorithm", poll_interval=0.01),
    )
    trainer.fit(agent, train, val_dataset=val)


def read_metrics(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow  # end-to-end, seconds: run by .ci/run, left out of -m "not slow"
def test_two_steps_through_the_store_then_resume(tiny_model: Path, tmp_path: Path) -> None:
    train = make_tasks("train", ["train-a", "train-b", BROKEN])
    val = make_tasks("val", ["val-a"])
    resources = {
        "main_llm": LLM(endpoint="http://127.0.0.1:9/v1", model="scripted"),  # replaced by the policy
        "system_prompt": PromptTemplate(template="You are a process engineer.", engine="f-string"),
    }
    cfg = config(tiny_model, tmp_path)
    report = RunReport(tmp_path / "run-1", Console(file=io.StringIO(), width=160))
    algorithm = GRPOAlgorithm(cfg, resources, report, test_dataset=make_tasks("test", ["test-a"]))
    agent = ToyAgent()
    fit(algorithm, agent, train, val)

    # Every rollout talked to the policy endpoint, with the system prompt kept.
    assert set(agent.seen) == {("aspen-policy", "You are a process engineer.")}
    # ... and sampled with its own seed: the i-th rollout of a step's batch gets derive_seed(batch, i).
    train_seeds = {derive_seed(derive_seed(cfg.seed, "train", step), i) for step in (1, 2) for i in range(6)}
    assert None not in agent.seeds and len(set(agent.seeds)) == len(agent.seeds) == 12 + 2 + 1
    assert train_seeds < set(agent.seeds)
    lines = read_metrics(tmp_path / "run-1" / "metrics.jsonl")
    train_lines = [m for m in lines if "loss" in m]
    eval_lines = [m for m in lines if "eval/reward_mean" in m]
    assert [m["step"] for m in train_lines] == [1, 2] and [m["step"] for m in eval_lines] == [1, 2]
    for m in train_lines:
        # 3 tasks x G=2: the broken task's 2 rollouts are left out and its group dropped; the over-long
        # rollout of train-b scores 0 and stays in its group.
        assert m["failed_rollouts"] == 2 and m["dropped_groups"] == 1 and m["policy_failures"] == 1
        assert m["rollouts"] == 4 and m["groups"] == 2
        assert m["llm_calls"] == 7  # recorded calls of the 4 kept rollouts (the refused one is not)
        assert m["tokens"] > 0 and m["skipped"] == 0 and m["updates"] == 1
        assert m["policy_version"] == m["step"]  # one engine sync per step
        assert 0.0 <= m["reward_mean"] < 1.0 and m["reward_std"] > 0
    assert all(m["eval/rollouts"] == 1 and m["eval/failed_rollouts"] == 0 for m in eval_lines)
    assert (tmp_path / "run-1" / "reward_curve.png").read_bytes()[:4] == b"\x89PNG"

    # Checkpoints every step, each with the metrics so far.
    run_dir = tmp_path / "models" / "grpo" / "toy"
    assert sorted(p.name for p in run_dir.glob("step_*")) == ["step_1", "step_2"]
    assert (run_dir / "step_2" / "model" / "adapter_config.json").is_file()
    assert len(read_metrics(run_dir / "step_1" / CHECKPOINT_METRICS)) == 2  # step 1: train + eval
    assert algorithm.last_checkpoint == run_dir / "step_2"

    # Every rollout reached the report, tagged with its step: 2 x 6 train, 2 x 1 val, 1 test.
    records = load_records(tmp_path / "run-1" / "rollouts.jsonl")
    assert [r.split for r in records].count("train") == 12
    assert [r.split for r in records].count("val") == 2 and [r.split for r in records].count("test") == 1
    assert {r.extra[STEP_KEY] for r in records} == {1, 2}
    shown = report.console.file.getvalue()
    assert "GRPO metrics per step" in shown and "step 2:" in shown

    # Resume from the run directory (its latest step) with steps=3: only step 3 runs.
    cfg3 = config(tiny_model, tmp_path, steps=3, eval_every=0)
    report2 = RunReport(tmp_path / "run-2", Console(file=io.StringIO(), width=160))
    resumed = GRPOAlgorithm(cfg3, resources, report2, resume=resolve_checkpoint(run_dir))
    fit(resumed, ToyAgent(), train, val)
    lines = read_metrics(tmp_path / "run-2" / "metrics.jsonl")
    assert [m["step"] for m in lines if "loss" in m] == [1, 2, 3]  # steps 1-2 replayed from the checkpoint
    assert lines[-1]["step"] == 3 and lines[-1]["policy_version"] == 2  # sync after load + after step 3
    state = json.loads((run_dir / "step_3" / "trainer_state.json").read_text())
    assert state["global_step"] == 3 and state["optimizer_steps"] == 3
    assert {r.extra[STEP_KEY] for r in load_records(tmp_path / "run-2" / "rollouts.jsonl")} == {3}


def test_tasks_for_step_is_seeded_distinct_and_even() -> None:
    tasks = make_tasks("train", [f"t{i}" for i in range(5)])
    draws = [[t.task_id for t in tasks_for_step(tasks, step, 2, seed=7)] for step in range(1, 11)]
    assert draws == [[t.task_id for t in tasks_for_step(tasks, step, 2, seed=7)] for step in range(1, 11)]
    assert all(len(set(d)) == 2 for d in draws)
    counts = {t.task_id: sum(d.count(t.task_id) for d in draws) for t in tasks}
    assert set(counts.values()) == {4}  # 10 steps x 2 = 4 epochs of 5 tasks
    assert draws != [[t.task_id for t in tasks_for_step(tasks, step, 2, seed=8)] for step in range(1, 11)]
    assert len(tasks_for_step(tasks, 1, 9, seed=0)) == 5


def test_resolve_checkpoint(tmp_path: Path) -> None:
    for step in (1, 3):
        (tmp_path / "run" / f"step_{step}").mkdir(parents=True)
        (tmp_path / "run" / f"step_{step}" / "trainer_state.json").write_text("{}")
    (tmp_path / "run" / "step_9").mkdir()  # incomplete: no state file
    assert resolve_checkpoint(tmp_path / "run") == tmp_path / "run" / "step_3"
    assert resolve_checkpoint(tmp_path / "run" / "step_1") == tmp_path / "run" / "step_1"
    with pytest.raises(FileNotFoundError, match="not a GRPO checkpoint"):
        resolve_checkpoint(tmp_path / "run" / "step_9")


def test_metrics_table_merges_train_and_eval_lines() -> None:
    table = metrics_table(
        [{"step": 1, "reward_mean": 0.25, "loss": 0.5}, {"step": 1, "eval/reward_mean": 0.75}]
    )
    console = Console(file=io.StringIO(), width=200)
    console.print(table)
    row = [line for line in console.file.getvalue().splitlines() if "0.250" in line]
    assert len(row) == 1 and "0.750" in row[0] and "+0.5000" in row[0]


def grpo_settings(models_dir: Path, **section: Any) -> Settings:
    return Settings(_env_file=None, models_dir=models_dir, algorithms={"grpo": section})


def test_from_settings_layers_yaml_section_and_flags(tiny_model: Path, tmp_path: Path) -> None:
    settings = grpo_settings(tmp_path / "models", model=str(tiny_model), group_size=4, lora={"r": 4}, steps=3)
    report = RunReport(tmp_path / "20250101-120000", Console(file=io.StringIO()))
    cfg = GRPOAlgorithm.from_settings(settings, {}, report, seed=5).config
    assert (cfg.model, cfg.group_size, cfg.steps, cfg.seed) == (str(tiny_model), 4, 3, 5)
    assert (cfg.lora.r, cfg.lora.alpha, cfg.epsilon_high) == (4, 32, 0.28)  # the rest from configs/grpo.yaml
    assert cfg.checkpoint_path(2) == tmp_path / "models" / "grpo" / "20250101-120000" / "step_2"
    flags = GRPOAlgorithm.from_settings(settings, {}, report, model=str(tmp_path), group_size=2).config
    assert (flags.model, flags.group_size) == (str(tmp_path), 2)
    seeded = grpo_settings(tmp_path / "models", model=str(tiny_model), seed=9)
    assert GRPOAlgorithm.from_settings(seeded, {}, report, seed=5).config.seed == 9
    with pytest.raises(GRPOConfigError, match="unknown key 'group_sizes'"):
        GRPOAlgorithm.from_settings(grpo_settings(tmp_path, group_sizes=4), {}, report)
    with pytest.raises(FileNotFoundError, match="policy model directory not found"):
        GRPOAlgorithm.from_settings(settings, {}, report, model=str(tmp_path / "absent"))


def test_from_settings_resumes_into_the_checkpoints_run(tiny_model: Path, tmp_path: Path) -> None:
    step = tmp_path / "models" / "grpo" / "first-run" / "step_4"
    step.mkdir(parents=True)
    state = {"global_step": 4, "lora": True, "config": {"model": str(tiny_model)}}
    (step / "trainer_state.json").write_text(json.dumps(state))
    settings = grpo_settings(tmp_path / "elsewhere")
    report = RunReport(tmp_path / "second-run", Console(file=io.StringIO()))
    algorithm = GRPOAlgorithm.from_settings(settings, {}, report, model=str(tiny_model), resume=step.parent)
    assert algorithm.resume == step
    assert algorithm.config.checkpoint_path(5) == step.parent / "step_5"
    with pytest.raises(ValueError, match=r"holds a LoRA adapter but the GRPO config has lora\.enabled=False"):
        full = grpo_settings(tmp_path, lora={"enabled": False})
        GRPOAlgorithm.from_settings(full, {}, report, model=str(tiny_model), resume=step)
    with pytest.raises(FileNotFoundError, match="not a GRPO checkpoint"):
        GRPOAlgorithm.from_settings(settings, {}, report, model=str(tiny_model), resume=tmp_path)
    # fields that define the optimisation must match the checkpoint's (the rest default as saved)
    changed = grpo_settings(tmp_path / "elsewhere", learning_rate=5e-2, lora={"r": 4})
    with pytest.raises(ValueError, match="cannot resume") as refused:
        GRPOAlgorithm.from_settings(changed, {}, report, model=str(tiny_model), resume=step, seed=3)
    listed = str(refused.value)
    assert (
        "learning_rate: 2e-05 -> 0.05" in listed and "lora.r: 16 -> 4" in listed and "seed: 0 -> 3" in listed
    )
    with pytest.raises(ValueError, match="model: "):
        GRPOAlgorithm.from_settings(settings, {}, report, model=str(tmp_path), resume=step)

"""PromptOptAlgorithm through Agent Lightning's real store and runner, with a prompt-sensitive toy agent."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest
from agentlightning import LLM, LitAgent, LitAgentRunner, PromptTemplate, Trainer, emit_object
from agentlightning.execution.shared_memory import SharedMemoryExecutionStrategy
from agentlightning.tracer.otel import OtelTracer
from rich.console import Console

from aspen_rl.algorithms.prompt_opt import EditProposer, PromptOptAlgorithm, PromptOptConfig
from aspen_rl.algorithms.prompt_opt.edits import RULES_BY_KEY
from aspen_rl.reporting import RunReport, load_records
from aspen_rl.settings import Settings
from aspen_rl.tasks import AspenTask

UNITS_RULE = RULES_BY_KEY["units"].text


class ToyAgent(LitAgent[AspenTask]):
    """Stand-in for the chemistry expert: its reward depends on the system prompt it is handed.

    Without the units rule every rollout records a simulator unit error (a symptom the offline
    operators read); with it the reward rises from 0.3 to 0.8 on train and validation alike.
    """

    def __init__(self) -> None:
        super().__init__()
        self.seen_llm: list[str] = []

    def rollout(self, task: Any, resources: Any, rollout: Any) -> float:
        from aspen_rl.records import RolloutRecord, ToolCallSummary
        from aspen_rl.reward.base import RewardBreakdown

        task = AspenTask.model_validate(task)
        prompt = resources["system_prompt"].template
        self.seen_llm.append(resources["main_llm"].model)
        units = UNITS_RULE in prompt
        total = 0.8 if units else 0.3
        calls = [ToolCallSummary(name="get_schema", ok=True), ToolCallSummary(name="get_result", ok=True)]
        calls.insert(
            1, ToolCallSummary(name="run_simulation", ok=units, error=None if units else "bad unit 'K'")
        )
        record = RolloutRecord(
            rollout_id=rollout.rollout_id,
            task_id=task.task_id,
            split=task.split or "train",
            difficulty=str(task.difficulty),
            reward=RewardBreakdown(total=total, completion=total),
            tool_calls=calls,
            resources_id=rollout.resources_id,
        )
        emit_object(record.model_dump(mode="json"))
        return total


def make_tasks(split: str, n: int) -> list[AspenTask]:
    tiers = ("easy", "medium", "hard")
    return [
        AspenTask(
            task_id=f"{split}-{i}", user_requirement=f"{split} task {i}", difficulty=tiers[i % 3], split=split
        )
        for i in range(n)
    ]


def run_search(
    tmp_path: Path,
    config: PromptOptConfig,
    resources: dict[str, Any],
    *,
    propose: EditProposer | None = None,
    test_dataset: list[AspenTask] | None = None,
) -> tuple[PromptOptAlgorithm, ToyAgent]:
    """A search through Agent Lightning's store (one runner, the toy agent), prompts under tmp_path."""
    report = RunReport(tmp_path / "run-1", Console(file=io.StringIO(), width=120))
    algorithm = PromptOptAlgorithm(
        resources,
        report,
        config,
        propose=propose or EditProposer(seed=0),
        prompts_dir=tmp_path / "prompts" / "run-1",
        seed=0,
        test_dataset=test_dataset,
    )
    agent = ToyAgent()
    tracer = OtelTracer()
    trainer = Trainer(
        algorithm=algorithm,
        n_runners=1,
        tracer=tracer,
        runner=LitAgentRunner(tracer=tracer, poll_interval=0.01, interval_jitter=0.0),
        strategy=SharedMemoryExecutionStrategy(n_runners=1, main_thread="algorithm", poll_interval=0.01),
    )
    trainer.dev(agent, make_tasks("train", 4), val_dataset=make_tasks("val", 3))
    return algorithm, agent


def test_search_through_the_store_writes_history_and_best_prompt(tmp_path: Path) -> None:
    config = PromptOptConfig(beam_width=2, branch_factor=2, rounds=1, train_batch_size=2)
    llm = LLM(endpoint="http://127.0.0.1:9/v1", model="toy-model")
    seed_prompt = "You are a process engineer.\n"
    resources = {"main_llm": llm, "system_prompt": PromptTemplate(template=seed_prompt, engine="f-string")}
    algorithm, agent = run_search(tmp_path, config, resources, test_dataset=make_tasks("test", 2))

    out = tmp_path / "prompts" / "run-1"
    best = (out / "best_prompt.md").read_text(encoding="utf-8")
    # The offline operators read the unit errors, add the units rule first, and validation confirms it.
    assert best.startswith(seed_prompt.strip()) and UNITS_RULE in best
    history = json.loads((out / "history.json").read_text(encoding="utf-8"))
    assert history["status"] == "finished" and history["proposer"] == "offline edit operators"
    assert [r["round"] for r in history["rounds"]] == [0, 1]
    # Round 0: the seed on 2 train + 3 val tasks; round 1: 2 children on the same.
    assert [r["rollouts"] for r in history["rounds"]] == [5, 10]
    cands = {c["id"]: c for c in history["candidates"]}
    assert cands["c0"]["origin"] == "seed" and cands["c0"]["prompt"] == seed_prompt
    assert cands["c1"]["parent"] == "c0" and cands["c1"]["edit"] == "add_units"
    assert "unit" in cands["c1"]["critique"]
    assert history["best"] == "c1" and history["beam"][0] == "c1"
    c1 = cands["c1"]["scores"]
    assert c1["val"]["score"] == pytest.approx(0.8) and c1["train"]["score"] == pytest.approx(0.8)
    assert c1["val"]["tiers"] == {
        "easy": {"n": 1, "score": 0.8, "tool_calls": 3.0},
        "hard": {"n": 1, "score": 0.8, "tool_calls": 3.0},
        "medium": {"n": 1, "score": 0.8, "tool_calls": 3.0},
    }
    assert c1["test"]["n"] == 2  # the best prompt was also run on the test split
    assert cands["c0"]["scores"]["val"]["score"] == pytest.approx(0.3)
    png = (out / "best_score_per_round.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    # Every rollout went into the run's rollouts.jsonl, tagged with its candidate; the LLM resource
    # travelled with every candidate's prompt.
    records = load_records(tmp_path / "run-1" / "rollouts.jsonl")
    assert len(records) == 5 + 10 + 2
    assert {r.extra["candidate"] for r in records} == {"c0", "c1", "c2"}
    assert agent.seen_llm == ["toy-model"] * len(records)
    assert algorithm.result is not None and algorithm.result.best.id == "c1"
    shown = algorithm.report.console.file.getvalue()
    assert "round 1: 2 candidates" in shown and "Beam after round 1" in shown
    assert "Final beam (chosen on validation)" in shown and "add_units" in shown
    # one validation figure named one way: the best's own mean (0.8 over its 3 rollouts), and the run's
    # final table titled as the pool of every candidate's rollouts (c0's 0.3 included)
    assert (
        "Best prompt (c1: validation mean 0.800 over 3 rollouts; the figure the beam is chosen on)"
        in " ".join(shown.split())
    )
    assert "val mean" in shown
    assert algorithm.report.table_title == "Reward by split and tier, every candidate's rollouts pooled"


def test_from_settings_reads_the_yaml_section_and_picks_the_proposer(tmp_path: Path) -> None:
    report = RunReport(tmp_path / "run-7", Console(file=io.StringIO()))
    settings = Settings(
        _env_file=None,
        models_dir=tmp_path / "models",
        algorithms={"prompt_opt": {"beam_width": 3, "rounds": 1, "seed": 11}},
    )
    algo = PromptOptAlgorithm.from_settings(settings, {}, report, tasks=[], repeats=None, seed=0)
    assert algo.config.beam_width == 3 and algo.seed == 11 and algo.repeats == 1
    assert algo.prompts_dir == tmp_path / "models" / "prompts" / "run-7"
    assert algo.proposer_name == "offline edit operators"
    assert "You are a senior chemical process engineer" in algo.seed_prompt()  # the shipped default

    online = settings.model_copy(update={"model_api_url": "http://127.0.0.1:9/v1", "model": "deepseek-chat"})
    algo = PromptOptAlgorithm.from_settings(
        online, {}, report, tasks=make_tasks("train", 1), repeats=2, seed=5
    )
    assert algo.proposer_name.startswith("LLM critic (deepseek-chat)") and algo.repeats == 2
    assert algo.propose.requirements == {"train-0": "train task 0"}

    with pytest.raises(ValueError, match="MODEL_API_URL"):
        forced = Settings(_env_file=None, algorithms={"prompt_opt": {"critic": "llm"}})
        PromptOptAlgorithm.from_settings(forced, {}, report, tasks=[])
    with pytest.raises(ValueError, match="beam_width"):
        bad = Settings(_env_file=None, algorithms={"prompt_opt": {"beam_width": 0}})
        PromptOptAlgorithm.from_settings(bad, {}, report, tasks=[])


class _SignalInRoundOne(EditProposer):
    """The offline proposer, but a signal (KeyboardInterrupt, as aspen_rl.lifecycle raises it) arrives while
    round 1's candidates are made."""

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt


def test_an_interrupted_search_says_so_in_its_history(tmp_path: Path) -> None:
    config = PromptOptConfig(beam_width=2, branch_factor=2, rounds=2, train_batch_size=2)
    resources = {"main_llm": LLM(endpoint="http://127.0.0.1:9/v1", model="toy-model")}
    with contextlib.suppress(KeyboardInterrupt):  # Agent Lightning may end the run cooperatively instead
        run_search(tmp_path, config, resources, propose=_SignalInRoundOne(seed=0))
    history = json.loads((tmp_path / "prompts" / "run-1" / "history.json").read_text(encoding="utf-8"))
    assert history["status"] == "interrupted"
    assert [r["round"] for r in history["rounds"]] == [0]  # what it measured before the signal is kept

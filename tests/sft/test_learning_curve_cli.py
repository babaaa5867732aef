"""The learning benchmark refuses a negative count, or a saved model that is not there, with an error line
before it draws a task."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _support.benchmarks import load_benchmark

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "learning_curve.py"
GPU_CONFIG = str(Path(__file__).resolve().parents[2] / "configs" / "learning_curve_gpu.yaml")
GPU_SPREAD_CONFIG = str(Path(__file__).resolve().parents[2] / "configs" / "learning_curve_gpu_spread.yaml")


def _benchmark() -> ModuleType:
    return load_benchmark("learning_curve", register=False)


def _fake_grpo(benchmark: ModuleType, monkeypatch: pytest.MonkeyPatch, tasks: list[str]) -> list[list[str]]:
    """Train tasks ``tasks``, no demonstrations, no evaluation, and GRPO steps that only record the tasks
    each step drew (returned, filled as the run goes)."""
    from types import SimpleNamespace

    drawn: list[list[str]] = []

    async def no_demos(tasks: list[object]) -> list[object]:
        return []

    async def evaluate(model: object, *a: object) -> dict[str, object]:
        return {}

    async def run_episodes(model: object, tokenizer: object, tasks: list[str], **k: object) -> list[str]:
        drawn.append(sorted(set(tasks)))
        return tasks

    def grpo_step(model: object, optimizer: object, groups: list[object], **k: object) -> SimpleNamespace:
        return SimpleNamespace(
            reward=0.1, success=0.0, zero_variance_groups=0, rows=1, loss=0.0, pushes={}, kl=0.0
        )

    monkeypatch.setattr(benchmark, "pick", lambda *a, **k: list(tasks))
    monkeypatch.setattr(benchmark, "demonstrations", no_demos)
    monkeypatch.setattr(benchmark, "evaluate", evaluate)
    monkeypatch.setattr(benchmark, "run_episodes", run_episodes)
    monkeypatch.setattr(benchmark, "grpo_step", grpo_step)
    monkeypatch.setattr(benchmark, "copying", lambda *a, **k: {})
    monkeypatch.setattr(benchmark, "_brief", lambda result: "")
    return drawn


def _save_tiny_model(folder: Path) -> None:
    """A 1-layer Qwen2 and its BPE tokenizer saved in ``folder``, as ``--save-model`` leaves them."""
    from aspen_rl.llm.tiny_bpe import build_tiny_bpe_model

    transcript = {"messages": [{"role": "user", "content": "heat it to 90 C"}]}
    model, tokenizer = build_tiny_bpe_model(
        [transcript], vocab_size=300, hidden_size=32, num_layers=1, num_heads=2
    )
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--copy-steps", "-1"], "--copy-steps"),
        (["--copy-gap-steps", "-5"], "--copy-gap-steps"),
        (["--copy-max-gap", "-1"], "--copy-max-gap"),
        (["--copy-rehearse-every", "-2"], "--copy-rehearse-every"),
        (["--lookup-steps", "-1"], "--lookup-steps"),
        (["--grpo-steps", "-2"], "--grpo-steps"),
        (["--copy-lr", "0"], "--copy-lr"),
        (["--init-model", "no-such-folder", "--seeds", "0,1"], "--init-model"),
        (["--init-stage", "sft"], "--init-model"),
        (["--rename", "1.5"], "--rename"),
        (["--eval-repeats", "0"], "--eval-repeats"),
        (["--init-stage", "grpo"], "--init-model"),
        (["--grpo-steps-done", "2"], "--grpo-steps-done"),  # only a saved GRPO model has steps done
        (["--init-stage", "grpo", "--init-model", "m", "--grpo-steps-done", "-1"], "--grpo-steps-done"),
        (["--value-weight", "0"], "--value-weight"),
        (["--value-weight", "-2"], "--value-weight"),
        (["--grpo-kl", "-0.1"], "--grpo-kl"),
        # the GPU recipe's config is read (an unknown key there would be refused first, naming the file)
        (["--config", GPU_CONFIG, "--grpo-steps", "-1"], "--grpo-steps"),
        (["--config", GPU_SPREAD_CONFIG, "--copy-steps", "-1"], "--copy-steps"),
    ],
)
def test_a_bad_count_is_refused_before_any_task_is_drawn(
    flags: list[str], named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    benchmark = _benchmark()
    drawn: list[object] = []

    def pick(*args: object, **kwargs: object) -> list[object]:
        drawn.append(args)
        return []

    monkeypatch.setattr(benchmark, "pick", pick)
    out = tmp_path / "lc"
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *flags, "--out", str(out)])
    with pytest.raises(SystemExit) as refused:
        benchmark.main()
    message = str(refused.value.code)
    assert message.startswith("error: ") and named in message
    assert drawn == []
    assert not out.with_suffix(".json").exists()


def test_wait_for_holds_the_model_back_until_the_file_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--wait-for: the CPU-only set-up runs, then nothing touches a model until the named file appears."""
    import threading

    benchmark = _benchmark()
    gate = tmp_path / "gate"
    seen: list[bool] = []

    async def no_demos(tasks: list[object]) -> list[object]:
        return []

    monkeypatch.setattr(benchmark, "pick", lambda *a, **k: [])
    monkeypatch.setattr(benchmark, "demonstrations", no_demos)
    monkeypatch.setattr(benchmark, "run_seed", lambda *a, **k: seen.append(gate.exists()))
    monkeypatch.setattr(
        sys, "argv", [str(SCRIPT), "--wait-for", str(gate), "--seeds", "0,1", "--out", str(tmp_path / "lc")]
    )
    timer = threading.Timer(0.5, gate.touch)
    timer.start()
    try:
        benchmark.main()
    finally:
        timer.cancel()
    assert seen == [True, True]
    assert f"waiting for {gate}" in capsys.readouterr().out


def test_smoke_keeps_the_seeds_it_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--smoke shrinks the work, not the run's identity: gpu_call.sh 0,1,2 starts one process per seed, and
    each must run its own seed (a smoke that reset them to 0 ran seed 0 three times)."""
    benchmark = _benchmark()
    seeds: list[int] = []

    async def no_demos(tasks: list[object]) -> list[object]:
        return []

    monkeypatch.setattr(benchmark, "pick", lambda *a, **k: [])
    monkeypatch.setattr(benchmark, "demonstrations", no_demos)
    monkeypatch.setattr(benchmark, "run_seed", lambda seed, *a, **k: seeds.append(seed))
    monkeypatch.setattr(
        sys, "argv", [str(SCRIPT), "--smoke", "--seeds", "2,1", "--out", str(tmp_path / "lc")]
    )
    benchmark.main()
    assert seeds == [2, 1]


@pytest.mark.parametrize("stage", ["sft", "grpo"])
def test_init_stage_starts_from_the_saved_model(
    stage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--init-model DIR --init-stage STAGE loads DIR/seedN/STAGE; its first point is labelled STAGE, not
    init (grpo: a saved GRPO model evaluated again, e.g. with more --eval-repeats)."""
    benchmark = _benchmark()
    _save_tiny_model(tmp_path / "models" / "seed3" / stage)
    phases: list[str] = []

    async def no_demos(tasks: list[object]) -> list[object]:
        return []

    async def evaluate(model: object, *a: object) -> dict[str, object]:
        return {}

    monkeypatch.setattr(benchmark, "pick", lambda *a, **k: [])
    monkeypatch.setattr(benchmark, "demonstrations", no_demos)
    monkeypatch.setattr(benchmark, "evaluate", evaluate)
    monkeypatch.setattr(benchmark, "copying", lambda *a, **k: {})
    monkeypatch.setattr(benchmark, "_brief", lambda result: "")
    monkeypatch.setattr(benchmark, "plot", lambda points, *a: phases.extend(p["phase"] for p in points))
    argv = ["--init-model", str(tmp_path / "models"), "--init-stage", stage, "--seeds", "3", "--epochs", "0"]
    argv += ["--grpo-steps", "0"]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv, "--out", str(tmp_path / "lc")])
    benchmark.main()
    assert phases == [stage]


def test_grpo_from_a_saved_grpo_model_continues_the_uninterrupted_runs_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3 GRPO steps saved, then 2 more from that model: steps 4 and 5 draw the train tasks an uninterrupted
    5-step run draws at its steps 4 and 5 (not its steps 1 and 2 again), the points and steps are numbered
    on, and the saved GRPO model records 5 steps."""

    benchmark = _benchmark()
    for stage in ("sft", "grpo"):
        _save_tiny_model(tmp_path / "models" / "seed1" / stage)
    (tmp_path / "models" / "seed1" / "grpo" / benchmark.GRPO_STEPS_FILE).write_text('{"steps": 3}')
    drawn = _fake_grpo(benchmark, monkeypatch, [f"task{i}" for i in range(9)])
    xs: list[tuple[object, object]] = []

    def plot(points: list[dict[str, object]], *a: object) -> None:  # the points so far, at every write
        xs[:] = [(p["phase"], p["x"]) for p in points]

    monkeypatch.setattr(benchmark, "plot", plot)

    def run(stage: str, steps: int, save: Path) -> list[list[str]]:
        drawn.clear()
        xs.clear()
        argv = ["--init-model", str(tmp_path / "models"), "--init-stage", stage, "--seeds", "1"]
        argv += ["--epochs", "0", "--grpo-steps", str(steps), "--grpo-tasks", "2", "--group", "2"]
        argv += ["--save-model", str(save), "--out", str(tmp_path / "lc")]
        monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv])
        benchmark.main()
        return list(drawn)

    uninterrupted = run("sft", 5, tmp_path / "a")
    resumed = run("grpo", 2, tmp_path / "b")
    assert len(uninterrupted) == 5 and resumed == uninterrupted[3:]
    assert resumed != uninterrupted[:2]
    assert xs == [("grpo", 3), ("grpo", 5)]
    saved = json.loads((tmp_path / "b" / "seed1" / "grpo" / benchmark.GRPO_STEPS_FILE).read_text())
    assert saved["steps"] == 5 and saved["grpo_tasks"] == 2  # and what else the draws follow
    assert (tmp_path / "a" / "seed1" / "sft" / "config.json").is_file()  # the SFT model it started from
    assert not (tmp_path / "b" / "seed1" / "sft").exists()  # a GRPO model is never saved as sft

    # continuing those steps with other draws is refused, naming the flag, before any task is picked;
    # a flag that does not shape this train set (--n-eval: the shipped train file here) is not compared
    picked: list[object] = []
    monkeypatch.setattr(benchmark, "pick", lambda *a, **k: picked.append(a) or [f"task{i}" for i in range(9)])
    argv = ["--init-model", str(tmp_path / "b"), "--init-stage", "grpo", "--seeds", "1", "--epochs", "0"]
    argv += ["--grpo-steps", "1", "--grpo-tasks", "2", "--group", "2", "--out", str(tmp_path / "lc")]
    for other in (["--grpo-tasks", "3"], ["--grpo-tasks", "3", "--grpo-steps-done", "3"], ["--n-train", "7"]):
        monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv, *other])
        with pytest.raises(SystemExit) as refused:
            benchmark.main()
        assert str(refused.value.code).startswith("error: ")
        assert f"{other[0]} {other[1]} (" in str(refused.value.code)
        assert picked == []
    drawn.clear()
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv, "--n-eval", "3"])
    benchmark.main()
    rng = random.Random(1)  # the seed's task stream: step 6 follows the saved model's 5
    for _ in range(5):
        rng.sample([f"task{i}" for i in range(9)], 2)
    assert drawn == [sorted(rng.sample([f"task{i}" for i in range(9)], 2))]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv, "--grpo-tasks", "3", "--grpo-steps-done", "0"])
    drawn.clear()
    benchmark.main()  # the draws anew: allowed
    assert len(drawn) == 1 and len(drawn[0]) == 3


def test_the_draw_split_shares_held_out_components_and_never_a_near_duplicate() -> None:
    """--split combination keeps every held-out (block types, components) out of the train draws, so a
    held-out heater of n-hexane has no train task naming n-hexane; --split draw lets those combinations in,
    in other numbers, and still leaves out every near-duplicate of a held-out task."""
    import asyncio

    from aspen_rl.datagen.build import holdout_key, task_key

    benchmark = _benchmark()
    held_out = benchmark.pick(benchmark.GENERATED / "eval.jsonl", ["heater"], 8, 0)
    combinations = {holdout_key(t.reference_config) for t in held_out}
    near = {task_key(t) for t in held_out}
    assert len(combinations) >= 4 and None not in near

    by_split = {
        split: asyncio.run(benchmark.generated(["heater"], 40, 1, held_out, split=split))
        for split in benchmark.SPLITS
    }
    for tasks in by_split.values():
        assert len(tasks) == 40
        assert not near & {task_key(t) for t in tasks}
    assert not combinations & {holdout_key(t.reference_config) for t in by_split["combination"]}
    shared = [t for t in by_split["draw"] if holdout_key(t.reference_config) in combinations]
    assert len(shared) >= 5
    with pytest.raises(ValueError, match="split"):
        asyncio.run(benchmark.generated(["heater"], 1, 1, held_out, split="random"))


async def test_eval_repeats_runs_the_greedy_episodes_again_and_averages_them() -> None:
    """--eval-repeats N: the held-out greedy episodes run N times through the real tools and mock; the
    point's episode scores are the mean over all of them, and each repeat's and each task's mean reward are
    kept."""
    import argparse

    from aspen_rl.llm.tiny_bpe import build_tiny_bpe_model
    from aspen_rl.tasks import load_tasks

    benchmark = _benchmark()
    tasks = load_tasks(Path(SCRIPT).parents[1] / "data" / "generated" / "eval.jsonl")[:2]
    transcript = {"messages": [{"role": "user", "content": task.user_requirement} for task in tasks]}
    model, tokenizer = build_tiny_bpe_model(
        [transcript], vocab_size=300, hidden_size=32, num_layers=1, num_heads=2
    )
    args = argparse.Namespace(
        n_ladder=0, n_episodes=2, eval_repeats=3, eval_samples=1, eval_temperature=0.7, max_turns=2,
        max_new_tokens=8,
    )  # fmt: skip
    real = benchmark.run_episodes
    temperatures: list[float] = []

    async def run_episodes(*a: object, temperature: float, **k: object) -> list[object]:
        episodes = await real(*a, temperature=temperature, **k)
        temperatures.append(temperature)
        if len(temperatures) == 2:  # the second repeat answers in words: the shipped reward pays a little
            for episode in episodes:
                episode.trace.final_answer = "The run did not converge."
        return list(episodes)

    benchmark.run_episodes = run_episodes
    try:
        result = await benchmark.evaluate(model, tokenizer, [], tasks, args)
    finally:
        benchmark.run_episodes = real
    repeats = result["episode_repeats"]
    assert temperatures == [0.0, 0.0, 0.0, 0.7]  # three greedy repeats, then the sampled episodes
    assert repeats[0] == repeats[2] == 0.0 < repeats[1]
    assert result["episode"]["reward"] == pytest.approx(repeats[1] / 3, abs=1e-3)
    assert result["episode"]["answered"] == pytest.approx(1 / 3, abs=1e-3)
    per_task = result["episode_tasks"]  # each task's mean over the repeats, for paired comparisons
    assert sorted(per_task) == sorted(task.task_id for task in tasks) and min(per_task.values()) > 0
    assert sum(per_task.values()) / 2 == pytest.approx(result["episode"]["reward"], abs=1e-3)
    kept = result["episode_task_repeats"]  # each task's repeats, so a comparison can draw them again
    assert sorted(kept) == sorted(per_task) and all(len(r) == 3 for r in kept.values())
    assert all(sum(kept[t]) / 3 == pytest.approx(per_task[t], abs=1e-3) for t in kept)
    assert all(kept[t][0] == kept[t][2] == 0.0 < kept[t][1] for t in kept)


def test_grpo_after_several_sft_stages_numbers_its_steps_from_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SFT in two stages (--epochs 2 --eval-every 1), then 2 GRPO steps: the steps are 1 and 2, they draw
    the first two draws of the seed's task stream, and the saved GRPO model records 2 steps, however many
    SFT updates ran (a run once took the SFT update count for the GRPO steps done: steps 21 and 22)."""
    benchmark = _benchmark()
    _save_tiny_model(tmp_path / "models" / "seed1" / "sft")
    steps: list[object] = []

    class Trainer:  # 20 updates a stage, as an SFT stage on a few hundred rows takes
        def __init__(self, config: object, *, model: object, tokenizer: object) -> None:
            self.config, self.model, self.updates, self.on_update = config, model, 0, None

        def train(self, rows: list[object]) -> list[dict[str, float]]:
            self.updates += 20
            return [{"loss": 0.5}]

    def plot(points: list[dict[str, object]], grpo: list[dict[str, object]], *a: object) -> None:
        steps[:] = [s["step"] for s in grpo]

    tasks = [f"task{i}" for i in range(9)]
    drawn = _fake_grpo(benchmark, monkeypatch, tasks)
    monkeypatch.setattr(benchmark, "SFTTrainer", Trainer)
    monkeypatch.setattr(benchmark, "plot", plot)
    argv = ["--init-model", str(tmp_path / "models"), "--init-stage", "sft", "--seeds", "1"]
    argv += ["--epochs", "2", "--eval-every", "1", "--grpo-steps", "2", "--grpo-tasks", "2", "--group", "2"]
    argv += ["--save-model", str(tmp_path / "saved"), "--out", str(tmp_path / "lc")]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv])
    benchmark.main()
    rng = random.Random(1)  # the seed's task stream, as run_seed draws it
    assert steps == [1, 2]
    assert drawn == [sorted(rng.sample(tasks, 2)), sorted(rng.sample(tasks, 2))]
    saved = json.loads((tmp_path / "saved" / "seed1" / "grpo" / benchmark.GRPO_STEPS_FILE).read_text())
    assert saved["steps"] == 2


@pytest.mark.parametrize("beta", [0.0, 0.5])
def test_the_kl_anchor_is_a_frozen_copy_of_the_model_grpo_started_from(
    beta: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--grpo-kl: every step gets the same reference, with the saved SFT model's weights, however far the
    policy moves; without the flag there is none."""
    from types import SimpleNamespace

    import torch
    from transformers import AutoModelForCausalLM

    benchmark = _benchmark()
    _save_tiny_model(tmp_path / "models" / "seed1" / "sft")
    start = AutoModelForCausalLM.from_pretrained(tmp_path / "models" / "seed1" / "sft").state_dict()
    _fake_grpo(benchmark, monkeypatch, [f"task{i}" for i in range(4)])
    seen: list[tuple[object, float]] = []

    def grpo_step(model: Any, optimizer: object, groups: list[object], **k: Any) -> object:
        seen.append((k["ref_model"], k["beta"]))
        if k["ref_model"] is not None:
            ref = k["ref_model"].state_dict()
            assert all(torch.equal(ref[name], start[name]) for name in start)
            assert not any(p.requires_grad for p in k["ref_model"].parameters())
        with torch.no_grad():
            next(model.parameters()).add_(1.0)  # the policy moves; the anchor must not
        return SimpleNamespace(
            reward=0.1, success=0.0, zero_variance_groups=0, rows=1, loss=0.0, pushes={}, kl=0.0
        )

    monkeypatch.setattr(benchmark, "grpo_step", grpo_step)
    monkeypatch.setattr(benchmark, "plot", lambda *a: None)
    argv = ["--init-model", str(tmp_path / "models"), "--init-stage", "sft", "--seeds", "1", "--epochs", "0"]
    argv += ["--grpo-steps", "3", "--grpo-tasks", "2", "--group", "2", "--grpo-kl", str(beta)]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv, "--out", str(tmp_path / "lc")])
    benchmark.main()
    assert [b for _, b in seen] == [beta] * 3
    refs = {id(r) for r, _ in seen}
    assert len(refs) == 1
    assert (seen[0][0] is None) == (beta == 0)


def test_grpo_continued_with_an_anchor_stays_anchored_to_the_sft_model_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Continuing a saved GRPO model with --grpo-kl: the reference is the SFT model saved beside it, not the
    GRPO model the run starts from, so a run made in pieces is held near SFT throughout."""
    from types import SimpleNamespace

    import torch
    from transformers import AutoModelForCausalLM

    from aspen_rl.llm.tokenizer_files import load_tokenizer

    benchmark = _benchmark()
    models = tmp_path / "models" / "seed1"
    _save_tiny_model(models / "sft")
    sft = AutoModelForCausalLM.from_pretrained(models / "sft")
    moved = AutoModelForCausalLM.from_pretrained(models / "sft")
    with torch.no_grad():
        next(moved.parameters()).add_(1.0)  # the GRPO model: moved away from SFT
    moved.save_pretrained(models / "grpo")
    load_tokenizer(models / "sft").save_pretrained(models / "grpo")
    (models / "grpo" / benchmark.GRPO_STEPS_FILE).write_text('{"steps": 2}')
    _fake_grpo(benchmark, monkeypatch, [f"task{i}" for i in range(4)])
    refs: list[Any] = []

    def grpo_step(model: Any, optimizer: object, groups: list[object], **k: Any) -> object:
        refs.append(k["ref_model"])
        return SimpleNamespace(
            reward=0.1, success=0.0, zero_variance_groups=0, rows=1, loss=0.0, pushes={}, kl=None
        )

    monkeypatch.setattr(benchmark, "grpo_step", grpo_step)
    monkeypatch.setattr(benchmark, "plot", lambda *a: None)
    argv = ["--init-model", str(tmp_path / "models"), "--init-stage", "grpo", "--seeds", "1"]
    argv += ["--epochs", "0", "--grpo-steps", "1", "--grpo-tasks", "2", "--group", "2", "--grpo-kl", "0.1"]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv, "--out", str(tmp_path / "lc")])
    benchmark.main()
    assert len(refs) == 1
    ref, start, grpo = refs[0].state_dict(), sft.state_dict(), moved.state_dict()
    assert all(torch.equal(ref[name], start[name]) for name in start)
    assert not all(torch.equal(ref[name], grpo[name]) for name in grpo)


HELD_OUT = {f"heater-{i}": r for i, r in enumerate([0.11, 0.09, 0.12, 0.10, 0.13, 0.08, 0.11, 0.10])}


def test_each_point_is_paired_with_the_point_its_stage_started_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From a saved SFT model, 2 more SFT epochs (a point each), then 2 GRPO steps (a point each): the SFT
    points carry their gain over the run's first point, the GRPO points theirs over the last SFT point, task
    by task (the evaluation here scores +0.01 a task at each evaluation; SFT trains nothing)."""
    benchmark = _benchmark()
    _save_tiny_model(tmp_path / "models" / "seed1" / "sft")
    _fake_grpo(benchmark, monkeypatch, [f"task{i}" for i in range(4)])
    calls: list[int] = []

    async def evaluate(*a: object) -> dict[str, object]:
        calls.append(len(calls))
        tasks = {t: round(r + 0.01 * len(calls), 4) for t, r in HELD_OUT.items()}
        if len(calls) < 3:  # the first two points as measured before each task's repeats were kept
            return {"episode_tasks": tasks}
        return {
            "episode_tasks": tasks,
            "episode_task_repeats": {t: [r - 0.005, r + 0.005] for t, r in tasks.items()},
        }

    monkeypatch.setattr(benchmark, "evaluate", evaluate)
    monkeypatch.setattr(benchmark, "plot", lambda *a: None)
    monkeypatch.setattr(benchmark, "transcript_rows", lambda *a, **k: [])
    monkeypatch.setattr(benchmark.SFTTrainer, "train", lambda self, rows: [{"loss": 0.5}])
    argv = ["--init-model", str(tmp_path / "models"), "--init-stage", "sft", "--seeds", "1"]
    argv += ["--epochs", "2", "--eval-every", "1", "--copy-rehearse-every", "0"]
    argv += ["--grpo-steps", "2", "--grpo-eval-every", "1", "--grpo-tasks", "2", "--group", "2"]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv, "--out", str(tmp_path / "lc")])
    benchmark.main()
    points = json.loads((tmp_path / "lc.json").read_text())["points"]
    assert [(p["phase"], p["x"]) for p in points] == [
        ("sft", 0),
        ("sft", 1),
        ("sft", 2),
        ("grpo", 1),
        ("grpo", 2),
    ]
    assert "paired_gain" not in points[0]
    expected = [("sft:0", 0.01), ("sft:0", 0.02), ("sft:2", 0.01), ("sft:2", 0.02)]
    for point, (versus, mean) in zip(points[1:], expected, strict=True):
        gain = point["paired_gain"]
        assert gain["vs"] == versus and gain["mean"] == pytest.approx(mean) and gain["up"] == 8
    # the repeats are drawn again only where both points kept them: GRPO's against SFT epoch 2
    assert [p["paired_gain"]["resampled"] for p in points[1:]] == ["tasks"] * 2 + ["tasks and repeats"] * 2
    assert points[3]["paired_gain"]["low"] < 0.01 < points[3]["paired_gain"]["high"]


def test_a_saved_model_is_evaluated_without_drawing_train_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--epochs 0 --grpo-steps 0 from a saved GRPO model (3 steps taken): only the held-out tasks are drawn
    (no train or drill generation, which took most of a re-evaluation's time), and the one point is the
    saved model's, numbered by its steps."""
    benchmark = _benchmark()
    _save_tiny_model(tmp_path / "models" / "seed1" / "grpo")
    (tmp_path / "models" / "seed1" / "grpo" / benchmark.GRPO_STEPS_FILE).write_text('{"steps": 3}')
    _fake_grpo(benchmark, monkeypatch, [f"task{i}" for i in range(4)])
    picked: list[str] = []
    monkeypatch.setattr(benchmark, "pick", lambda path, *a, **k: picked.append(Path(path).name) or ["task0"])

    async def no_generation(*a: object, **k: object) -> list[object]:
        raise AssertionError("no train or drill task is generated for an evaluation")

    monkeypatch.setattr(benchmark, "generated", no_generation)
    monkeypatch.setattr(benchmark, "plot", lambda *a: None)
    argv = ["--init-model", str(tmp_path / "models"), "--init-stage", "grpo", "--seeds", "1", "--epochs", "0"]
    argv += ["--grpo-steps", "0", "--generate-train", "400", "--drills", "1000", "--grpo-tasks", "4"]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv, "--out", str(tmp_path / "lc")])
    benchmark.main()
    assert picked == ["eval.jsonl"]
    points = json.loads((tmp_path / "lc.json").read_text())["points"]
    assert [(p["phase"], p["x"]) for p in points] == [("grpo", 3)]


def test_a_set_up_written_once_is_read_back_the_same_and_refused_under_other_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--setup-cache: the first run generates and records the set-up (real generator, real mock) and writes
    it; the second generates nothing and trains on the same tasks, demonstrations and drills; a run with
    another drill count is refused with an error line naming the flag before it draws or trains."""
    benchmark = _benchmark()
    cache = tmp_path / "setup.json.xz"
    seen: list[tuple[list[str], str, str]] = []

    def capture(seed: int, demos: list[Any], drills: list[Any], train: list[Any], *a: object) -> None:
        seen.append(([t.task_id for t in train], json.dumps(demos), json.dumps(drills)))

    monkeypatch.setattr(benchmark, "run_seed", capture)
    flags = ["--families", "heater", "--generate-train", "2", "--drills", "2", "--drill-kind", "episode"]
    flags += ["--n-eval", "2", "--split", "draw", "--setup-cache", str(cache), "--out", str(tmp_path / "lc")]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *flags, "--setup-only"])
    benchmark.main()
    assert cache.is_file() and seen == []  # made and stopped
    cache.unlink()
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *flags])
    benchmark.main()
    assert cache.is_file()

    async def no_generation(*a: object, **k: object) -> list[object]:
        raise AssertionError("a cached set-up generates nothing")

    monkeypatch.setattr(benchmark, "generated", no_generation)
    benchmark.main()
    first, second = seen
    assert len(first[0]) == 2 and first[1] != "[]" and first[2] != "[]"
    assert second == first

    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *flags, "--drills", "3"])
    with pytest.raises(SystemExit) as refused:
        benchmark.main()
    message = str(refused.value.code)
    assert message.startswith("error: --setup-cache") and "--drills 3" in message
    assert len(seen) == 2


def test_a_set_up_file_is_refused_for_an_evaluation_and_when_it_is_not_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An evaluation uses no train task, so a named set-up file is refused rather than written empty (a
    later training run would read that); a file that is not a set-up is refused by name."""
    benchmark = _benchmark()
    _save_tiny_model(tmp_path / "models" / "seed0" / "sft")
    monkeypatch.setattr(benchmark, "run_seed", lambda *a, **k: pytest.fail("nothing is trained"))
    cache = tmp_path / "setup.json.xz"
    evaluation = ["--init-model", str(tmp_path / "models"), "--init-stage", "sft", "--epochs", "0"]
    evaluation += ["--grpo-steps", "0", "--setup-cache", str(cache), "--out", str(tmp_path / "lc")]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *evaluation])
    with pytest.raises(SystemExit) as refused:
        benchmark.main()
    assert str(refused.value.code).startswith("error: --setup-cache") and not cache.exists()

    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "--setup-only", "--out", str(tmp_path / "lc")])
    with pytest.raises(SystemExit) as refused:
        benchmark.main()
    assert str(refused.value.code).startswith("error: --setup-only")

    cache.write_text("not a set-up")
    monkeypatch.setattr(benchmark, "pick", lambda *a, **k: [])
    argv = [str(SCRIPT), "--setup-cache", str(cache), "--out", str(tmp_path / "lc")]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as refused:
        benchmark.main()
    message = str(refused.value.code)
    assert message.startswith("error: --setup-cache") and str(cache) in message
    assert cache.read_text() == "not a set-up"

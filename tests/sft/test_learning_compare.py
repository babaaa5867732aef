"""Two held-out evaluation points compared task by task: the paired gain, its bootstrap interval and the CLI
that finds the points in learning-curve JSON files."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from _support.benchmarks import load_benchmark

# Mean greedy rewards of 8 held-out heater tasks, as the SFT model of session 19 (seed 2) scored them.
SFT = {f"heater-{i}": r for i, r in enumerate([0.11, 0.09, 0.12, 0.10, 0.13, 0.08, 0.11, 0.10])}


def _compare() -> ModuleType:
    return load_benchmark("learning_compare", register=False)


def test_a_gain_every_task_shares_has_an_interval_above_zero() -> None:
    gain = _compare().paired_gain(SFT, {t: r + 0.02 for t, r in SFT.items()})
    assert gain["mean"] == pytest.approx(0.02) and gain["low"] == pytest.approx(0.02)
    assert gain["high"] == pytest.approx(0.02)
    assert (gain["n"], gain["up"], gain["down"], gain["level"]) == (8, 8, 0, 0)


def test_a_mean_gain_from_two_tasks_is_not_shown() -> None:
    """+0.06 on two tasks, level on the rest: the mean rises 0.015, but resampled tasks often miss both."""
    after = dict(SFT, **{"heater-0": 0.17, "heater-1": 0.15})
    gain = _compare().paired_gain(SFT, after)
    assert gain["mean"] == pytest.approx(0.015)
    assert gain["low"] == pytest.approx(0.0)  # (6/8)^8 = 10% of resamples miss both: 0 is in the interval
    assert 0 < gain["mean"] < gain["high"]
    assert (gain["up"], gain["down"], gain["level"]) == (2, 0, 6)


def test_gains_that_cancel_have_an_interval_around_zero() -> None:
    after = {t: r + (0.05 if i % 2 else -0.05) for i, (t, r) in enumerate(SFT.items())}
    gain = _compare().paired_gain(SFT, after)
    assert gain["mean"] == pytest.approx(0.0, abs=1e-9)
    assert gain["low"] < 0 < gain["high"] and gain["up"] == gain["down"] == 4


def test_only_the_tasks_both_points_scored_are_paired() -> None:
    compare = _compare()
    gain = compare.paired_gain(SFT, {"heater-0": 0.21, "heater-1": 0.19, "other": 0.9})
    assert (gain["n"], gain["mean"], gain["confidence"]) == (2, pytest.approx(0.1), 0.9)
    with pytest.raises(ValueError, match="1 held-out task"):  # one pair has no interval
        compare.paired_gain(SFT, {"heater-0": 0.21, "other": 0.9})
    with pytest.raises(ValueError, match="confidence"):
        compare.paired_gain(SFT, SFT, confidence=1.0)


# A null pair shaped like session 22's: one SFT model evaluated twice (0.197, then 0.224). The per-task
# means are the measured ones; each task's 4 repeats are made up to those means (that run kept no repeats).
NULL_BEFORE = {
    "0002": [0.061, 0.061, 0.115, 0.115], "0016": [0.196] * 4, "0024": [0.061] * 4, "0025": [0.03] * 4,
    "0026": [0.076, 0.122, 0.076, 0.122], "0031": [0.169] * 4, "0032": [1.0, 1.0, 1.0, 0.268],
    "0048": [0.118] * 4,
}  # fmt: skip
NULL_AFTER = {
    "0002": [0.061, 0.115, 0.137, 0.115], "0016": [0.196] * 4, "0024": [0.061] * 4, "0025": [0.03] * 4,
    "0026": [0.122] * 4, "0031": [0.165] * 4, "0032": [1.0] * 4, "0048": [0.116] * 4,
}  # fmt: skip


def _means(repeats: dict[str, list[float]]) -> dict[str, float]:
    return {t: sum(r) / len(r) for t, r in repeats.items()}


def test_drawing_the_repeats_again_keeps_a_null_pair_from_passing_as_a_gain() -> None:
    """Drawing only the tasks, the second evaluation of the same model looks better (the interval excludes
    0, as it did for the measured pair: +0.001 to +0.070); drawing each task's repeats again as well, one
    episode's success (0.268 -> 1.0 on one repeat of one task) no longer carries it."""
    compare = _compare()
    before, after = _means(NULL_BEFORE), _means(NULL_AFTER)
    tasks_only = compare.paired_gain(before, after)
    both = compare.paired_gain(before, after, before_repeats=NULL_BEFORE, after_repeats=NULL_AFTER)
    assert tasks_only["mean"] == both["mean"] == pytest.approx(0.0274, abs=1e-4)
    assert tasks_only["resampled"] == "tasks" and both["resampled"] == "tasks and repeats"
    assert tasks_only["low"] > 0
    assert both["low"] < 0 < both["high"]
    assert both["high"] >= tasks_only["high"]


def test_a_gain_larger_than_the_repeats_spread_still_shows_with_the_repeats_drawn_again() -> None:
    compare = _compare()
    lifted = {t: [v + 0.3 for v in r] for t, r in NULL_BEFORE.items()}
    gain = compare.paired_gain(
        _means(NULL_BEFORE), _means(lifted), before_repeats=NULL_BEFORE, after_repeats=lifted
    )
    assert gain["mean"] == pytest.approx(0.3) and gain["low"] > 0.2


def test_one_repeat_a_task_is_drawn_as_the_tasks_alone() -> None:
    """With one repeat a task there is nothing to draw again: the interval and its label are the tasks'."""
    compare = _compare()
    before, after = _means(NULL_BEFORE), _means(NULL_AFTER)
    single_before = {t: [r] for t, r in before.items()}
    single_after = {t: [r] for t, r in after.items()}
    gain = compare.paired_gain(before, after, before_repeats=single_before, after_repeats=single_after)
    assert gain == compare.paired_gain(before, after)
    assert gain["resampled"] == "tasks"


DOCS = Path(__file__).resolve().parents[2] / "docs" / "benchmarks"


@pytest.mark.parametrize(
    "name",
    ["learning_curve_s22_seed0_sft_12repeats.json", "learning_curve_s22_seed0_grpo_t07_12repeats.json"],
)
def test_on_measured_repeats_null_pairs_of_one_model_hold_zero_when_the_repeats_are_drawn_again(
    name: str,
) -> None:
    """One model evaluated with 12 greedy repeats (session 22), cut into three evaluations of 4 repeats:
    each pair of them is a null pair. Drawing the repeats again, every 90% interval holds 0; drawing only
    the tasks, the interval of the GRPO model's pairs excluded 0 twice in three (measured)."""
    compare = _compare()
    point = json.loads((DOCS / name).read_text())["points"][0]
    kept = point["episode_task_repeats"]
    thirds = [{t: r[4 * q : 4 * q + 4] for t, r in kept.items()} for q in range(3)]
    pairs = [(thirds[q], thirds[(q + 1) % 3]) for q in range(3)]
    excluded_tasks_only = 0
    for before, after in pairs:
        both = compare.paired_gain(_means(before), _means(after), before_repeats=before, after_repeats=after)
        assert both["resampled"] == "tasks and repeats" and both["low"] <= 0 <= both["high"]
        tasks_only = compare.paired_gain(_means(before), _means(after))
        excluded_tasks_only += not tasks_only["low"] <= 0 <= tasks_only["high"]
        assert both["high"] - both["low"] > tasks_only["high"] - tasks_only["low"]
    assert excluded_tasks_only == (2 if "grpo" in name else 0)


def test_two_processes_evaluating_one_model_are_a_null_pair_only_the_repeats_interval_holds() -> None:
    """Seed 0's SFT model evaluated with 12 greedy repeats in session 22 and again, in another process, as
    the first point of session 23's KL-anchored run: a null pair the two-level interval was not built on.
    Drawing the tasks alone, its interval excluded 0 (-0.024 to -0.001, measured); drawing the repeats
    again, it holds 0."""
    compare = _compare()
    first, second = (
        json.loads((DOCS / name).read_text())["points"][0]
        for name in (
            "learning_curve_s22_seed0_sft_12repeats.json",
            "learning_curve_s23_seed0_grpo_t07_kl01.json",
        )
    )
    assert first["phase"] == second["phase"] == "sft"
    both = compare.paired_gain(
        first["episode_tasks"], second["episode_tasks"],
        before_repeats=first["episode_task_repeats"], after_repeats=second["episode_task_repeats"],
    )  # fmt: skip
    tasks_only = compare.paired_gain(first["episode_tasks"], second["episode_tasks"])
    assert both["mean"] == tasks_only["mean"] == pytest.approx(-0.0104, abs=1e-4)
    assert both["low"] <= 0 <= both["high"]
    assert tasks_only["high"] < 0


def test_a_task_without_its_repeats_is_refused_by_name() -> None:
    compare = _compare()
    partial = {t: r for t, r in NULL_AFTER.items() if t != "0016"}
    with pytest.raises(ValueError, match="0016"):
        compare.paired_gain(
            _means(NULL_BEFORE), _means(NULL_AFTER), before_repeats=NULL_BEFORE, after_repeats=partial
        )


def _curve(path: Path, *points: tuple[str, float, dict[str, float]], seed: int = 2) -> Path:
    rows = [
        {"seed": seed, "phase": phase, "x": x, "episode": {"reward": sum(tasks.values()) / len(tasks)},
         "episode_tasks": tasks}
        for phase, x, tasks in points
    ]  # fmt: skip
    path.write_text(json.dumps({"meta": {}, "points": rows, "grpo_steps": []}))
    return path


def test_the_cli_pairs_points_of_two_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sft = _curve(tmp_path / "sft.json", ("init", 0, dict.fromkeys(SFT, 0.06)), ("sft", 3, SFT))
    grpo = _curve(tmp_path / "grpo.json", ("grpo", 2, {t: r + 0.01 for t, r in SFT.items()}))
    assert _compare().main([f"{sft}:sft:3", f"{grpo}:grpo:2"]) == 0
    out = capsys.readouterr().out
    assert "0.105 -> 0.115" in out and "over 8 tasks (of 8 and 8)" in out
    assert "+0.010 (90% +0.010 to +0.010; 8 up, 0 down, 0 level of 8)" in out


def test_a_point_is_found_by_its_seed_and_by_an_x_written_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two seeds in one file: a point names its seed (FILE:PHASE:X:SEED, or --seed for both); an x stored
    as 0.6000000000000001 (--eval-every 0.2, three times) is found as 0.6."""
    compare = _compare()
    both = tmp_path / "both.json"
    rows = [
        {"seed": seed, "phase": "sft", "x": 0.2 + 0.2 + 0.2, "episode": {"reward": 0.1},
         "episode_tasks": {t: r + 0.01 * seed for t, r in SFT.items()}}
        for seed in (0, 1)
    ]  # fmt: skip
    both.write_text(json.dumps({"points": rows}))
    assert compare.main([f"{both}:sft:0.6:0", f"{both}:sft:0.6:1"]) == 0
    assert "+0.010" in capsys.readouterr().out
    assert compare.main([f"{both}:sft:0.6", f"{both}:sft:0.6"]) == 2  # which seed?
    assert "2 points (name the seed)" in capsys.readouterr().err
    assert compare.main([f"{both}:sft:0.6", f"{both}:sft:0.6:0", "--seed", "1"]) == 0


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json", "error: "),
        ('{"points": [1]}', "not a learning-curve JSON"),
        ('{"points": [{"phase": "sft"}]}', "not a learning-curve JSON"),
        ('{"points": [{"seed": 0, "phase": "sft", "x": 3, "episode_tasks": [0.1, 0.2]}]}', "not a map"),
        ('{"points": [{"seed": 0, "phase": "sft", "x": 3, "episode_tasks": {"a": null}}]}', "not a map"),
        ('{"points": [{"seed": 0, "phase": "sft", "x": 3}]}', "no per-task rewards"),
        (
            '{"points": [{"seed": 0, "phase": "sft", "x": 2, "episode_tasks": {}}]}',
            "its points: sft:2 (seed 0)",
        ),
    ],
)
def test_the_cli_refuses_what_it_cannot_pair_with_an_error_line(
    text: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    good = _curve(tmp_path / "sft.json", ("sft", 3, SFT))
    assert _compare().main([f"{bad}:sft:3", f"{good}:sft:3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and says in err


def test_the_cli_refuses_a_missing_file_or_a_spec_without_a_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compare = _compare()
    sft = _curve(tmp_path / "sft.json", ("sft", 3, SFT))
    assert compare.main([f"{tmp_path / 'missing.json'}:sft:3", f"{sft}:sft:3"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    for spec in (str(sft), f"{sft}:sft:three"):
        with pytest.raises(SystemExit) as bad:
            compare.main([spec, f"{sft}:sft:3"])
        assert bad.value.code == 2

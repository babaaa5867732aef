"""Run reports: statistics per split and tier, files written, records read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aspen_rl.records import RewardScores, RolloutRecord
from aspen_rl.reporting import RunReport, load_records, summarize


def record(
    task_id: str, split: str, tier: str, total: float, completion: float, status: str = "ok"
) -> RolloutRecord:
    return RolloutRecord(
        task_id=task_id,
        split=split,
        difficulty=tier,
        status=status,  # type: ignore[arg-type]
        reward=RewardScores(total=total, completion=completion, tool_efficiency=0.5, response_quality=0.25),
    )


RECORDS = [
    record("a", "train", "easy", 1.0, 1.0),
    record("b", "train", "easy", 0.5, 0.0),
    record("c", "train", "hard", 0.2, 0.0),
    record("d", "val", "medium", 0.0, 0.0, status="error"),
]


def test_summary_per_split_and_tier() -> None:
    summary = summarize(RECORDS)
    assert list(summary) == ["train", "val"]
    assert list(summary["train"]) == ["easy", "hard", "all"]
    easy = summary["train"]["easy"]
    assert easy["count"] == 2
    assert easy["total"] == {"mean": 0.75, "min": 0.5, "max": 1.0}
    assert easy["success_rate"] == 0.5  # only "a" met every expected output
    assert summary["train"]["all"]["total"]["mean"] == pytest.approx((1.0 + 0.5 + 0.2) / 3)
    assert summary["train"]["all"]["tool_efficiency"] == {"mean": 0.5, "min": 0.5, "max": 0.5}
    assert summary["val"]["all"]["errors"] == 1


def test_report_files(tmp_path: Path) -> None:
    report = RunReport(tmp_path)
    for r in RECORDS:
        report.add(r)
    summary = report.finish(algorithm="baseline")
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk == json.loads(json.dumps(summary))
    assert on_disk["rollouts"] == 4 and on_disk["algorithm"] == "baseline"
    assert load_records(tmp_path / "rollouts.jsonl") == RECORDS
    png = (tmp_path / "reward_distribution.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000


def test_sub_scores_are_kept_per_rollout_and_averaged_in_the_summary(tmp_path: Path) -> None:
    def with_details(task_id: str, hallucinated: float, invalid: float) -> RolloutRecord:
        details = {"numbers.hallucinated": hallucinated, "calls.invalid": invalid, "targets.met": 2.0}
        return RolloutRecord(
            task_id=task_id, difficulty="easy", reward=RewardScores(total=0.5, details=details)
        )

    report = RunReport(tmp_path)
    report.add(with_details("a", 0.0, 1.0))
    report.add(with_details("b", 3.0, 0.0))
    summary = report.finish(algorithm="baseline")
    lines = (tmp_path / "rollouts.jsonl").read_text().splitlines()
    assert json.loads(lines[1])["reward"]["details"]["numbers.hallucinated"] == 3.0
    assert summary["splits"]["train"]["all"]["details"] == {
        "calls.invalid": 0.5,
        "numbers.hallucinated": 1.5,
        "targets.met": 2.0,
    }

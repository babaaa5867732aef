"""Run reports: statistics per split and tier, files written, records read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aspen_rl.records import RolloutRecord
from aspen_rl.reporting import RunReport, load_records, summarize
from aspen_rl.reward.base import RewardBreakdown


def record(
    task_id: str, split: str, tier: str, total: float, completion: float, status: str = "ok"
) -> RolloutRecord:
    return RolloutRecord(
        task_id=task_id,
        split=split,
        difficulty=tier,
        status=status,  # type: ignore[arg-type]
        reward=RewardBreakdown(
            total=total, completion=completion, tool_efficiency=0.5, response_quality=0.25
        ),
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
            task_id=task_id, difficulty="easy", reward=RewardBreakdown(total=0.5, details=details)
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


def test_an_interrupted_run_never_calls_an_open_ended_split_complete(tmp_path: Path) -> None:
    """grpo and prompt_opt decide their rollout count (``None``): stopped by a signal, the split they were
    running is incomplete, not complete because it has records."""
    from rich.console import Console

    report = RunReport(tmp_path, Console(file=None, width=120, quiet=True))
    report.add(RolloutRecord(task_id="t1", split="train"))
    summary = report.finish(requested={"train": None, "val": None}, interrupted_by="SIGTERM")
    assert summary["completed_splits"] == []
    assert summary["incomplete_splits"] == {"train": {"expected": None, "recorded": 1}}
    assert summary["missing_splits"] == ["val"]
    finished = RunReport(tmp_path / "done", Console(file=None, width=120, quiet=True))
    finished.add(RolloutRecord(task_id="t1", split="train"))
    assert finished.finish(requested={"train": None})["completed_splits"] == ["train"]


def test_infrastructure_failures_are_counted_and_left_out_of_the_means(tmp_path: Path) -> None:
    from rich.console import Console

    from aspen_rl.failures import FailureKind

    report = RunReport(tmp_path, Console(file=None, width=120, quiet=True))
    report.add(RolloutRecord(task_id="t1", reward=RewardBreakdown(total=0.8, completion=1.0)))
    report.add(RolloutRecord(task_id="t2", status="error", failure=FailureKind.BUSY))
    report.add(RolloutRecord(task_id="t3", status="error", failure=FailureKind.BAD_CALL))
    summary = report.finish(requested={"train": 3}, failure="too many infrastructure failures")
    assert (summary["status"], summary["failure"]) == ("failed", "too many infrastructure failures")
    assert summary["infrastructure_failures"] == 1
    train = summary["splits"]["train"]["all"]
    assert train["total"]["mean"] == pytest.approx(0.4)  # (0.8 + 0) / 2: the busy rollout is left out
    assert (train["count"], train["errors"], train["infrastructure_failures"]) == (3, 2, 1)


def test_an_answer_with_unicode_line_separators_reads_back_as_one_record(tmp_path: Path) -> None:
    # An untrained model writes any character; JSON leaves U+0085, U+2028 and U+2029 unescaped, and
    # str.splitlines() breaks on them (a CI run failed reading such a record back).
    answer = "a\x85b\u2028c\u2029d\x1ce\nf"
    report = RunReport(tmp_path)
    written = [RolloutRecord(task_id="t1", final_answer=answer), RolloutRecord(task_id="t2")]
    for r in written:
        report.add(r)
    read = load_records(tmp_path / "rollouts.jsonl")
    assert read == written
    assert read[0].final_answer == answer

"""Reward statistics per split and difficulty tier, computed from rollout records."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from statistics import fmean
from typing import Any

from aspen_rl.records import RolloutRecord

DIMENSIONS: tuple[str, ...] = ("total", "completion", "tool_efficiency", "response_quality")
ALL_TIERS = "all"


def stats(records: list[RolloutRecord]) -> dict[str, Any]:
    """Count, success rate, error count, mean/min/max of every reward dimension, mean of every sub-score.

    Rollouts the infrastructure failed (:attr:`~aspen_rl.records.RolloutRecord.infrastructure_failed`) say
    nothing about the policy: they are counted (``infrastructure_failures``, and in ``errors``) and left out
    of every rate and mean. ``details`` averages each sub-score of the reward (``targets.met``,
    ``numbers.hallucinated``, ``calls.invalid``...) over the records that carry it.
    """
    every = records
    records = [r for r in every if not r.infrastructure_failed]
    out: dict[str, Any] = {
        "count": len(every),
        "success_rate": fmean(1.0 if r.succeeded else 0.0 for r in records) if records else 0.0,
        "errors": sum(1 for r in every if r.status != "ok"),
        "infrastructure_failures": len(every) - len(records),
    }
    for dimension in DIMENSIONS:
        values = [getattr(r.reward, dimension) for r in records]
        out[dimension] = (
            {"mean": fmean(values), "min": min(values), "max": max(values)}
            if values
            else {"mean": 0.0, "min": 0.0, "max": 0.0}
        )
    keys = sorted({key for r in records for key in r.reward.details})
    out["details"] = {
        key: fmean(r.reward.details[key] for r in records if key in r.reward.details) for key in keys
    }
    return out


def summarize(records: Iterable[RolloutRecord]) -> dict[str, dict[str, Any]]:
    """``{split: {tier: stats, ..., "all": stats}}`` with tiers in easy/medium/hard order."""
    by_split: dict[str, dict[str, list[RolloutRecord]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        by_split[record.split][record.difficulty or "unknown"].append(record)
        by_split[record.split][ALL_TIERS].append(record)
    order = {"easy": 0, "medium": 1, "hard": 2, ALL_TIERS: 9}
    return {
        split: {tier: stats(tiers[tier]) for tier in sorted(tiers, key=lambda t: (order.get(t, 5), t))}
        for split, tiers in by_split.items()
    }


def completion(
    records: Iterable[RolloutRecord], requested: dict[str, int | None], *, interrupted: bool = False
) -> dict[str, Any]:
    """Which requested splits a run finished, which it left incomplete and which it never reached.

    Args:
        records: The rollouts the run recorded.
        requested: ``{split: expected rollout count}`` (``None`` when the algorithm decides the count,
            e.g. prompt optimization; then a split is complete once it has any record, unless the run was
            interrupted: nobody can tell it had all it would have run, so it is incomplete).
        interrupted: A signal stopped the run.

    Returns:
        ``{"requested_splits", "completed_splits", "incomplete_splits": {split: {expected, recorded}},
        "missing_splits"}`` in the order the splits were requested.
    """
    counts: dict[str, int] = defaultdict(int)
    for record in records:
        counts[record.split] += 1
    completed, incomplete, missing = [], {}, []
    for split, expected in requested.items():
        recorded = counts.get(split, 0)
        if recorded == 0:
            missing.append(split)
        elif (expected is not None and recorded < expected) or (expected is None and interrupted):
            incomplete[split] = {"expected": expected, "recorded": recorded}
        else:
            completed.append(split)
    return {
        "requested_splits": list(requested),
        "completed_splits": completed,
        "incomplete_splits": incomplete,
        "missing_splits": missing,
    }

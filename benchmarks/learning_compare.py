"""Did one stage beat another on the held-out tasks? Two evaluation points compared task by task.

Every point of a learning-curve JSON (``benchmarks/learning_curve.py``) keeps each held-out task's mean
greedy reward over the repeats (``episode_tasks``). Two points over the same tasks are compared in pairs:
the mean gain, a bootstrap interval (the tasks drawn again with replacement) and how many tasks went up,
down or stayed level. Pairing takes out what the tasks share (some are harder for every model); the ranges
of the repeats' means do not, and they understated the spread between two evaluations of one model
(session 19: 0.121 and 0.116, 0.120-0.124 and 0.090-0.128). With 8 tasks the interval is wide: a gain
whose interval holds 0 is not demonstrated.

Drawing only the tasks again treats each task's mean as exact, and it is not: each repeat runs with new
result paths, and one episode that fails instead of succeeding moves a task's mean by ~0.18. One SFT model
evaluated three times gave 0.197, 0.199 and 0.224 (session 22), and the tasks-only interval of the 0.197
-> 0.224 null pair, +0.001 to +0.070, excluded 0. Where both points keep each task's repeats
(``episode_task_repeats``) the repeats are drawn again too, within each drawn task, which widens the
interval by what a second evaluation of the same model would move.

    python benchmarks/learning_compare.py SFT.json:sft:3 GRPO.json:grpo:2[:SEED] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

LEVEL = 5e-5
"""Smaller task gains count as level (the JSON keeps rewards to 4 decimals)."""


def paired_gain(
    before: dict[str, float],
    after: dict[str, float],
    *,
    confidence: float = 0.9,
    draws: int = 10_000,
    before_repeats: dict[str, list[float]] | None = None,
    after_repeats: dict[str, list[float]] | None = None,
) -> dict[str, Any]:
    """Mean reward gain from ``before`` to ``after`` over the tasks both scored, with a bootstrap interval.

    Args:
        before: Task id -> mean reward at the earlier point.
        after: Task id -> mean reward at the later point.
        confidence: Share of the bootstrap means between ``low`` and ``high``.
        draws: Bootstrap resamples (seeded: the same inputs give the same interval).
        before_repeats: Task id -> each repeat's reward at the earlier point; with ``after_repeats`` (and
            more than one repeat of some task at each) each resample also draws every drawn task's repeats
            again, for each point on its own.
        after_repeats: The same at the later point.

    Returns:
        ``mean``, ``low``, ``high`` (4 decimals), ``confidence``, ``resampled`` ("tasks" or "tasks and
        repeats") and the counts ``n``, ``up``, ``down``, ``level``.

    Raises:
        ValueError: The points share fewer than 2 tasks (no interval), ``confidence`` is not in (0, 1), or a
            shared task has no repeats at a point that keeps them.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    shared = sorted(before.keys() & after.keys())
    if len(shared) < 2:
        raise ValueError(f"the two points share {len(shared)} held-out task(s): too few to compare")
    gains = np.array([after[t] - before[t] for t in shared])
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(gains), size=(draws, len(gains)))
    if (
        before_repeats is not None
        and after_repeats is not None
        and _repeated(before_repeats, shared)
        and _repeated(after_repeats, shared)
    ):
        means = _redrawn(after_repeats, shared, picks, rng) - _redrawn(before_repeats, shared, picks, rng)
        resampled = "tasks and repeats"
    else:
        means = gains[picks].mean(axis=1)
        resampled = "tasks"
    tail = (1 - confidence) / 2
    return {
        "mean": round(float(gains.mean()), 4),
        "low": round(float(np.quantile(means, tail)), 4),
        "high": round(float(np.quantile(means, 1 - tail)), 4),
        "confidence": confidence,
        "resampled": resampled,
        "n": len(shared),
        "up": int((gains > LEVEL).sum()),
        "down": int((gains < -LEVEL).sum()),
        "level": int((abs(gains) <= LEVEL).sum()),
    }


def _repeated(repeats: dict[str, list[float]], tasks: list[str]) -> bool:
    """Whether ``repeats`` keeps more than one repeat of some task (one repeat each: nothing to draw)."""
    return any(len(repeats.get(t) or ()) > 1 for t in tasks)


def _redrawn(
    repeats: dict[str, list[float]], tasks: list[str], picks: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Per resample, the mean over its drawn tasks of each task's repeats drawn again with replacement."""
    rows = [repeats.get(t) for t in tasks]
    if any(not r for r in rows):
        missing = [t for t, r in zip(tasks, rows, strict=True) if not r]
        raise ValueError(f"no repeats kept for task(s) {', '.join(missing)}")
    width = max(len(r) for r in rows if r)
    values = np.full((len(tasks), width), np.nan)
    for i, row in enumerate(rows):
        values[i, : len(row or ())] = row or ()
    counts = np.array([len(r or ()) for r in rows])
    task_counts = counts[picks]  # [draws, tasks]
    which = (rng.random((*picks.shape, width)) * task_counts[..., None]).astype(int)
    drawn = values[picks[..., None], which]  # each drawn task's repeats, drawn again
    used = np.arange(width) < task_counts[..., None]
    return np.asarray(np.where(used, drawn, 0.0).sum(axis=2) / task_counts).mean(axis=1)


def describe(gain: dict[str, Any]) -> str:
    """One line: the gain, its interval and the tasks' directions."""
    return (
        f"{gain['mean']:+.3f} ({gain['confidence']:.0%} {gain['low']:+.3f} to {gain['high']:+.3f}; "
        f"{gain['up']} up, {gain['down']} down, {gain['level']} level of {gain['n']})"
    )


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def find_point(path: Path, phase: str, x: float, seed: int | None) -> dict[str, Any]:
    """The point ``phase``/``x`` (of ``seed``) of a learning-curve JSON, with its per-task rewards.

    Raises:
        ValueError: The file is not a learning-curve JSON, holds no such point or several (seeds), or the
            point has no per-task rewards; the message lists the points there are.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    points = data.get("points") if isinstance(data, dict) else None
    if not isinstance(points, list) or not all(
        isinstance(p, dict) and isinstance(p.get("phase"), str) and _is_number(p.get("x")) for p in points
    ):
        raise ValueError(f"{path} is not a learning-curve JSON (a list of points with a phase and an x)")
    found = [
        p
        for p in points
        if p["phase"] == phase
        and math.isclose(p["x"], x, rel_tol=1e-9, abs_tol=1e-9)
        and (seed is None or p.get("seed") == seed)
    ]
    there = ", ".join(f"{p['phase']}:{p['x']:g} (seed {p.get('seed')})" for p in points) or "none"
    if len(found) != 1:
        why = "no point" if not found else f"{len(found)} points (name the seed)"
        of_seed = f" of seed {seed}" if seed is not None else ""
        raise ValueError(f"{path} has {why} {phase}:{x:g}{of_seed}; its points: {there}")
    tasks = found[0].get("episode_tasks")
    if tasks is None:
        raise ValueError(f"{path} {phase}:{x:g} has no per-task rewards (measured before they were kept)")
    if not isinstance(tasks, dict) or not all(_is_number(r) for r in tasks.values()):
        raise ValueError(f"{path} {phase}:{x:g}: episode_tasks is not a map of task ids to rewards")
    return found[0]


Spec = tuple[Path, str, float, int | None]


def _spec(text: str) -> Spec:
    """``FILE:PHASE:X`` or ``FILE:PHASE:X:SEED``."""
    parts = text.rsplit(":", 3)
    seed: int | None = None
    if len(parts) == 4 and parts[3].isdigit() and not parts[2].isalpha():
        seed = int(parts.pop())
    path, _, rest = ":".join(parts).rpartition(":")
    path, _, phase = path.rpartition(":")
    if not (path and phase and rest):
        raise argparse.ArgumentTypeError(
            f"expected FILE.json:PHASE:X[:SEED] (as sft:3 or grpo:2), not {text!r}"
        )
    try:
        return Path(path), phase, float(rest), seed
    except ValueError:
        raise argparse.ArgumentTypeError(f"X must be a number in {text!r}") from None


def _reward(point: dict[str, Any]) -> str:
    episode = point.get("episode")
    reward = episode.get("reward") if isinstance(episode, dict) else None
    return f"{reward:.3f}" if _is_number(reward) else "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("before", type=_spec, help="FILE.json:PHASE:X[:SEED] of the earlier point (as sft:3)")
    parser.add_argument("after", type=_spec, help="FILE.json:PHASE:X[:SEED] of the later point (as grpo:2)")
    parser.add_argument(
        "--seed", type=int, help="the seed of a point that names none, where a file holds several"
    )
    args = parser.parse_args(argv)
    try:
        before, after = (
            find_point(path, phase, x, args.seed if seed is None else seed)
            for path, phase, x, seed in (args.before, args.after)
        )
        gain = paired_gain(
            before["episode_tasks"],
            after["episode_tasks"],
            before_repeats=before.get("episode_task_repeats"),
            after_repeats=after.get("episode_task_repeats"),
        )
    except (OSError, ValueError) as exc:  # JSONDecodeError is a ValueError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = f"{len(before['episode_tasks'])} and {len(after['episode_tasks'])}"
    print(f"greedy held-out reward {_reward(before)} -> {_reward(after)}")
    print(f"paired gain over {gain['n']} tasks (of {counts}): {describe(gain)}")
    print(f"interval from drawing again: {gain['resampled']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Did one stage beat another on the held-out tasks? Two evaluation points compared task by task.

Every point of a learning-curve JSON (``benchmarks/learning_curve.py``) keeps each held-out task's mean
greedy reward over the repeats (``episode_tasks``). Two points over the same tasks are compared in pairs:
the mean gain, a bootstrap interval (the tasks drawn again with replacement) and how many tasks went up,
down or stayed level. Pairing takes out what the tasks share (some are harder for every model); the ranges
of the repeats' means do not, and they understated the spread between two evaluations of one model
(session 19: 0.121 and 0.116, 0.120-0.124 and 0.090-0.128). With 8 tasks the interval is wide: a gain
whose interval holds 0 is not shown.

    python benchmarks/learning_compare.py SFT.json:sft:3 GRPO.json:grpo:2 [--seed N]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

LEVEL = 5e-5
"""Smaller task gains count as level (the JSON keeps rewards to 4 decimals)."""


def paired_gain(
    before: dict[str, float], after: dict[str, float], *, confidence: float = 0.9, draws: int = 10_000
) -> dict[str, float]:
    """Mean reward gain from ``before`` to ``after`` over the tasks both scored, with a bootstrap interval.

    Args:
        before: Task id -> mean reward at the earlier point.
        after: Task id -> mean reward at the later point.
        confidence: Share of the bootstrap means between ``low`` and ``high``.
        draws: Bootstrap resamples of the tasks (seeded: the same inputs give the same interval).

    Returns:
        ``mean``, ``low``, ``high`` (4 decimals) and the counts ``n``, ``up``, ``down``, ``level``.

    Raises:
        ValueError: The points share no task, or ``confidence`` is not in (0, 1).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    shared = sorted(before.keys() & after.keys())
    if not shared:
        raise ValueError("the two points share no held-out task: they cannot be compared")
    gains = np.array([after[t] - before[t] for t in shared])
    picks = np.random.default_rng(0).integers(0, len(gains), size=(draws, len(gains)))
    means = gains[picks].mean(axis=1)
    tail = (1 - confidence) / 2
    return {
        "mean": round(float(gains.mean()), 4),
        "low": round(float(np.quantile(means, tail)), 4),
        "high": round(float(np.quantile(means, 1 - tail)), 4),
        "n": len(shared),
        "up": int((gains > LEVEL).sum()),
        "down": int((gains < -LEVEL).sum()),
        "level": int((abs(gains) <= LEVEL).sum()),
    }


def describe(gain: dict[str, float]) -> str:
    """One line: the gain, its 90% interval and the tasks' directions."""
    return (
        f"{gain['mean']:+.3f} (90% {gain['low']:+.3f} to {gain['high']:+.3f}; "
        f"{gain['up']} up, {gain['down']} down, {gain['level']} level of {gain['n']})"
    )


def find_point(path: Path, phase: str, x: float, seed: int | None) -> dict[str, Any]:
    """The point ``phase``/``x`` (of ``seed``) of a learning-curve JSON; ValueError naming what is there."""
    data = json.loads(path.read_text(encoding="utf-8"))
    points = data.get("points") if isinstance(data, dict) else None
    if not isinstance(points, list):
        raise ValueError(f"{path} is not a learning-curve JSON (no list of points)")
    found = [p for p in points if p["phase"] == phase and p["x"] == x and (seed is None or p["seed"] == seed)]
    there = ", ".join(f"{p['phase']}:{p['x']:g} (seed {p['seed']})" for p in points) or "none"
    if len(found) != 1:
        why = "no point" if not found else f"{len(found)} points (give --seed)"
        of_seed = f" of seed {seed}" if seed is not None else ""
        raise ValueError(f"{path} has {why} {phase}:{x:g}{of_seed}; its points: {there}")
    if "episode_tasks" not in found[0]:
        raise ValueError(f"{path} {phase}:{x:g} has no per-task rewards (measured before they were kept)")
    return found[0]


def _spec(text: str) -> tuple[Path, str, float]:
    path, sep, rest = text.rpartition(":")
    path, sep2, phase = path.rpartition(":")
    if not (sep and sep2 and path and phase):
        raise argparse.ArgumentTypeError(f"expected FILE.json:PHASE:X (as sft:3 or grpo:2), not {text!r}")
    try:
        return Path(path), phase, float(rest)
    except ValueError:
        raise argparse.ArgumentTypeError(f"X must be a number in {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=_spec, help="FILE.json:PHASE:X of the earlier point (as sft:3)")
    parser.add_argument("after", type=_spec, help="FILE.json:PHASE:X of the later point (as grpo:2)")
    parser.add_argument("--seed", type=int, help="the seed's points, where a file holds several seeds")
    args = parser.parse_args(argv)
    try:
        before, after = (find_point(*spec, args.seed) for spec in (args.before, args.after))
        gain = paired_gain(before["episode_tasks"], after["episode_tasks"])
    except (OSError, ValueError) as exc:  # JSONDecodeError is a ValueError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"greedy held-out reward {before['episode']['reward']:.3f} -> {after['episode']['reward']:.3f}")
    print(f"paired gain {describe(gain)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

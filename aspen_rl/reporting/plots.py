"""PNG plots of a run's rewards (matplotlib, headless)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from aspen_rl.records import RolloutRecord

TIERS = ("easy", "medium", "hard")


def reward_distribution_figure(records: list[RolloutRecord]) -> Any:
    """Box plot plus points of the total reward per split and difficulty tier, with a legend for its marks
    (median line, mean marker, box = quartiles, whiskers = 1.5 IQR, one dot per rollout)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups: dict[str, list[float]] = defaultdict(list)
    for record in records:
        groups[f"{record.split}\n{record.difficulty}"].append(record.reward.total)
    order = sorted(
        groups,
        key=lambda k: (k.split("\n")[0], TIERS.index(k.split("\n")[1]) if k.split("\n")[1] in TIERS else 9),
    )
    fig, ax = plt.subplots(figsize=(max(4.0, 1.3 * len(order) + 1), 3.6))
    if order:
        boxes = ax.boxplot([groups[k] for k in order], tick_labels=order, showmeans=True)
        for i, key in enumerate(order, start=1):
            dots = ax.scatter([i] * len(groups[key]), groups[key], s=12, alpha=0.6, color="tab:blue")
        ax.legend(
            [boxes["medians"][0], boxes["means"][0], boxes["boxes"][0], dots],
            ["median", "mean", "quartiles (whiskers 1.5 IQR)", "one rollout"],
            loc="best",
            fontsize="small",
            framealpha=0.8,
        )
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel("total reward")
    ax.set_title("Reward distribution per split and tier")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def plot_reward_distribution(records: list[RolloutRecord], path: Path) -> Path:
    """Write :func:`reward_distribution_figure` of ``records`` to ``path`` (PNG)."""
    import matplotlib.pyplot as plt

    fig = reward_distribution_figure(records)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

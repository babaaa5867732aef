"""Metrics of a GRPO run: per-batch rollout statistics, and the sink (JSONL lines, TensorBoard events when
installed, a PNG reward curve)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any

from aspen_rl.failures import Fault
from aspen_rl.records import RolloutRecord

METRICS_FILE = "metrics.jsonl"
CURVE_FILE = "reward_curve.png"


def record_metrics(records: Sequence[RolloutRecord]) -> dict[str, float]:
    """Reward statistics of a batch of rollouts and its failure counts.

    The means are over the rollouts that say something about the policy (policy failures scoring 0);
    infrastructure failures are left out of them and counted in ``failed_rollouts``; ``policy_failures``
    counts the rollouts the policy ended in failure (scored 0 and kept). See :mod:`aspen_rl.failures`.
    """
    faults = [r.fault for r in records]
    scored = [r for r, fault in zip(records, faults, strict=True) if fault is not Fault.INFRASTRUCTURE]
    totals = [r.reward.total if r.status == "ok" else 0.0 for r in scored]
    return {
        "reward_mean": fmean(totals) if totals else 0.0,
        "reward_std": pstdev(totals) if len(totals) > 1 else 0.0,
        "completion_mean": fmean(r.reward.completion for r in scored) if scored else 0.0,
        "tool_efficiency_mean": fmean(r.reward.tool_efficiency for r in scored) if scored else 0.0,
        "response_quality_mean": fmean(r.reward.response_quality for r in scored) if scored else 0.0,
        "success_rate": fmean(float(r.succeeded) for r in scored) if scored else 0.0,
        "rollouts": float(len(records)),
        "failed_rollouts": float(faults.count(Fault.INFRASTRUCTURE)),
        "policy_failures": float(faults.count(Fault.POLICY)),
    }


class MetricsSink:
    """Append one JSON line per step to ``<out_dir>/metrics.jsonl`` and mirror it to TensorBoard.

    Args:
        out_dir: The run's output directory.
        tensorboard: Also write TensorBoard events (skipped silently when ``tensorboard`` is missing).
    """

    def __init__(self, out_dir: str | Path, *, tensorboard: bool = True) -> None:
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.out_dir / METRICS_FILE
        self._writer: Any = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:
                self._writer = None
            else:
                self._writer = SummaryWriter(log_dir=str(self.out_dir / "tensorboard"))

    @property
    def tensorboard_enabled(self) -> bool:
        """Whether TensorBoard events are being written."""
        return self._writer is not None

    def log(self, step: int, metrics: Mapping[str, Any], *, prefix: str = "") -> None:
        """Record the metrics of one step (``prefix`` e.g. 'eval/' namespaces them)."""
        row: dict[str, Any] = {"step": step}
        for key, value in metrics.items():
            if key == "step":
                continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                value = float(value)
                row[f"{prefix}{key}"] = value if math.isfinite(value) else None
            else:
                row[f"{prefix}{key}"] = value
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        if self._writer is not None:
            for key, value in row.items():
                if key != "step" and isinstance(value, float):
                    self._writer.add_scalar(key, value, step)
            self._writer.flush()

    def read(self) -> list[dict[str, Any]]:
        """All lines written so far (also those of an earlier, resumed session)."""
        if not self.path.is_file():
            return []
        return [
            json.loads(line) for line in self.path.read_text(encoding="utf-8").split("\n") if line.strip()
        ]

    def plot_rewards(self, path: str | Path | None = None) -> Path:
        """Draw ``reward_mean`` (and ``eval/reward_mean`` when logged) against step to a PNG."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        target = Path(path) if path is not None else self.out_dir / CURVE_FILE
        rows = self.read()
        fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
        for key, label in (("reward_mean", "train"), ("eval/reward_mean", "validation")):
            points = [(r["step"], r[key]) for r in rows if r.get(key) is not None]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, marker="o" if len(points) < 30 else None, label=label)
        style_reward_axes(ax)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        fig.tight_layout()
        fig.savefig(target)
        plt.close(fig)
        return target

    def close(self) -> None:
        """Flush and close TensorBoard."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def style_reward_axes(ax: Any) -> None:
    """Reward-curve axes: integer step ticks, rewards on their whole 0-1 range (not zoomed to noise)."""
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("step")
    ax.set_ylabel("mean reward")
    ax.set_title("GRPO reward")
    ax.grid(alpha=0.3)

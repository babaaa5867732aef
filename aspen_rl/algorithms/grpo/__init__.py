"""Multi-turn GRPO: group advantages, clipped loss, trainer, checkpoints (local model: ``aspen_rl.llm``).

The names below are loaded on first use: ``import aspen_rl.algorithms.grpo.config`` (or this package)
does not import torch or transformers; ``from aspen_rl.algorithms.grpo import GRPOTrainer`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl._lazy import lazy_exports

if TYPE_CHECKING:
    from aspen_rl.algorithms.grpo.advantages import GroupAdvantages, group_advantages
    from aspen_rl.algorithms.grpo.checkpoint import latest_checkpoint
    from aspen_rl.algorithms.grpo.config import GRPOConfig, GRPOConfigError, load_grpo_config
    from aspen_rl.algorithms.grpo.metrics import MetricsSink
    from aspen_rl.algorithms.grpo.trainer import GRPOTrainer

_LAZY = {
    "GroupAdvantages": ".advantages",
    "group_advantages": ".advantages",
    "latest_checkpoint": ".checkpoint",
    "GRPOConfig": ".config",
    "GRPOConfigError": ".config",
    "load_grpo_config": ".config",
    "MetricsSink": ".metrics",
    "GRPOTrainer": ".trainer",
}
"""Public name -> the submodule (of this package) that defines it."""

__all__ = [
    "GRPOConfig",
    "GRPOConfigError",
    "GRPOTrainer",
    "GroupAdvantages",
    "MetricsSink",
    "group_advantages",
    "latest_checkpoint",
    "load_grpo_config",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

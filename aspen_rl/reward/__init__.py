"""Reward: the ``RewardFn`` contract, the shipped Aspen reward, task fidelity, the funnel, attribution, units.

``base`` names (the contract, weights, breakdown) load eagerly and light; the shipped reward and its
helpers load on first use, so importing settings never loads the unit library.
"""

from __future__ import annotations

from aspen_rl._lazy import lazy_exports
from aspen_rl.reward.base import RewardBreakdown, RewardFn, RewardWeights, load_reward_fn

_LAZY = {
    "AspenReward": "aspen_rl.reward.aspen",
    "classify_calls": "aspen_rl.reward.aspen",
    "completion_score": "aspen_rl.reward.aspen",
    "compute_reward": "aspen_rl.reward.aspen",
    "response_quality_score": "aspen_rl.reward.aspen",
    "tool_efficiency_score": "aspen_rl.reward.aspen",
    "Statement": "aspen_rl.reward.attribution",
    "fidelity": "aspen_rl.reward.fidelity",
    "read_statements": "aspen_rl.reward.attribution",
}

__all__ = ["RewardBreakdown", "RewardFn", "RewardWeights", "load_reward_fn", *_LAZY]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

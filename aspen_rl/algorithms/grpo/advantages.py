"""Group-relative advantages: one scalar per rollout, normalised within the task's group."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class GroupAdvantages:
    """Advantages of one group, and whether the group carries no signal (all rewards equal)."""

    advantages: list[float]
    zero_variance: bool


def reward_std(rewards: torch.Tensor) -> torch.Tensor:
    """Standard deviation of a group's rewards (Bessel-corrected, as TRL and verl; 0 for one reward)."""
    if rewards.numel() < 2:
        return torch.zeros((), dtype=rewards.dtype)
    return rewards.std(unbiased=True)


def group_advantages(
    rewards: Sequence[float], *, scale: bool = True, eps: float = 1e-4, zero_variance_tolerance: float = 1e-6
) -> GroupAdvantages:
    """Advantages ``(R - mean_G) / (std_G + eps)`` of the G rollouts of one task.

    Args:
        rewards: The group's rewards.
        scale: Divide by the group std (GRPO); False gives ``R - mean_G`` (Dr. GRPO).
        eps: Added to the std in the denominator.
        zero_variance_tolerance: A group whose std is at most this is flagged: its advantages are all 0.

    Returns:
        One advantage per rollout, in order, and the zero-variance flag.
    """
    r = torch.tensor(list(rewards), dtype=torch.float64)
    std = reward_std(r)
    if float(std) <= zero_variance_tolerance:
        return GroupAdvantages([0.0] * len(rewards), True)
    centered = r - r.mean()
    adv = centered / (std + eps) if scale else centered
    return GroupAdvantages([float(a) for a in adv], False)

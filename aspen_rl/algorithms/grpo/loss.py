"""GRPO's loss: clipped surrogate, k3 KL, truncated importance weights and the loss aggregations.

Tensors are ``[rows, tokens]``, aligned with the rows' ``input_ids``; ``mask`` is 1 on sampled tokens.
Aggregation is expressed as per-token weights computed once for a whole step, so that the sum over
micro-batches of ``(per_token_loss * weights).sum()`` equals the full-batch loss (exact gradient
accumulation whatever the micro-batch split).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

Aggregation = Literal["rollout_mean", "token_mean", "sequence_mean"]


def token_weights(mask: torch.Tensor, rollout_index: torch.Tensor, mode: Aggregation) -> torch.Tensor:
    """Per-token weights that turn a sum of per-token losses into the chosen mean.

    Args:
        mask: ``[rows, tokens]`` of 0/1.
        rollout_index: ``[rows]``, the rollout each row belongs to.
        mode: 'token_mean' (every token of the step counts the same), 'sequence_mean' (mean per row, then
            over rows) or 'rollout_mean' (mean over a rollout's tokens across its rows, then over rollouts).

    Returns:
        ``[rows, tokens]`` float weights, 0 where the mask is 0, summing to 1 when any token is masked in.
    """
    m = mask.float()
    per_row = m.sum(dim=1)
    if mode == "token_mean":
        total = m.sum()
        return m / total if total > 0 else m
    if mode == "sequence_mean":
        live = per_row > 0
        n_rows = int(live.sum())
        if n_rows == 0:
            return m
        return m / (per_row.clamp(min=1.0) * n_rows).unsqueeze(1)
    if mode == "rollout_mean":
        ids = torch.unique(rollout_index, return_inverse=True)[1]
        per_rollout = torch.zeros(int(ids.max()) + 1 if ids.numel() else 0).index_add_(0, ids, per_row)
        n_rollouts = int((per_rollout > 0).sum())
        if n_rollouts == 0:
            return m
        return m / (per_rollout[ids].clamp(min=1.0) * n_rollouts).unsqueeze(1)
    raise ValueError(f"unknown loss aggregation {mode!r}")


def clipped_surrogate(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    epsilon_low: float,
    epsilon_high: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """PPO/GRPO clipped objective per token, as a loss: ``-min(r A, clip(r, 1-e_low, 1+e_high) A)``.

    Args:
        logprobs: Current policy logprobs ``[rows, tokens]`` (with grad).
        old_logprobs: Logprobs of the policy that sampled (no grad).
        advantages: ``[rows]`` or ``[rows, tokens]``.
        epsilon_low: Lower clip range.
        epsilon_high: Upper clip range.

    Returns:
        Per-token loss, per-token ratio, and a 0/1 tensor marking tokens where the clip is active.
    """
    adv = advantages.unsqueeze(1) if advantages.dim() == 1 else advantages
    ratio = torch.exp(logprobs - old_logprobs)
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1.0 - epsilon_low, 1.0 + epsilon_high) * adv
    loss = -torch.minimum(unclipped, clipped)
    active = ((ratio < 1.0 - epsilon_low) & (adv < 0)) | ((ratio > 1.0 + epsilon_high) & (adv > 0))
    return loss, ratio.detach(), active.float()


def k3_kl(logprobs: torch.Tensor, ref_logprobs: torch.Tensor) -> torch.Tensor:
    """Per-token k3 estimator of KL(policy || reference): ``exp(ref - logp) - (ref - logp) - 1`` (>= 0)."""
    delta = ref_logprobs - logprobs
    return torch.exp(delta) - delta - 1.0


def truncated_is_weights(
    old_logprobs: torch.Tensor, engine_logprobs: torch.Tensor, cap: float
) -> torch.Tensor:
    """Per-token weight ``min(exp(old - engine), cap)``: corrects engine/trainer mismatch (no grad)."""
    return torch.exp(old_logprobs - engine_logprobs).clamp(max=cap).detach()


def weighted_sum(per_token: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """``sum(per_token * weights)``: the aggregated loss (or a micro-batch's share of it)."""
    return (per_token * weights).sum()


@dataclass
class TokenLoss:
    """Per-token GRPO loss (0 off the mask) and per-token diagnostics for the metrics."""

    loss: torch.Tensor
    stats: dict[str, torch.Tensor]


def grpo_token_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    epsilon_low: float,
    epsilon_high: float,
    engine_logprobs: torch.Tensor | None = None,
    is_cap: float | None = None,
    ref_logprobs: torch.Tensor | None = None,
    beta: float = 0.0,
) -> TokenLoss:
    """GRPO's per-token loss: clipped surrogate, times the truncated IS weight, plus ``beta`` * k3 KL.

    Off the mask the old/engine logprobs are replaced by the current ones (ratio 1, weight 1) and the loss
    is set to 0 with ``torch.where``, so masked positions get exactly zero gradient whatever they hold.

    Args:
        logprobs: Current policy ``[rows, tokens]`` (with grad).
        old_logprobs: Policy that sampled, as recomputed by the trainer (no grad).
        advantages: ``[rows]``.
        mask: 0/1 ``[rows, tokens]``, 1 on sampled tokens.
        epsilon_low: Lower clip range.
        epsilon_high: Upper clip range.
        engine_logprobs: Rollout engine's logprobs; with ``is_cap`` enables the IS correction.
        is_cap: Truncation cap of the importance weight (None: no correction).
        ref_logprobs: Reference policy, for the KL term.
        beta: KL coefficient.
    """
    live = mask.bool()
    current = logprobs.detach()
    old = torch.where(live, old_logprobs, current)
    per_token, ratio, clipped = clipped_surrogate(logprobs, old, advantages, epsilon_low, epsilon_high)
    stats: dict[str, torch.Tensor] = {"ratio": ratio, "clipped": clipped}
    if engine_logprobs is not None:
        engine = torch.where(live, engine_logprobs, old)
        stats["logprob_diff"] = (old - engine).abs()
        if is_cap is not None:
            weight = truncated_is_weights(old, engine, is_cap)
            per_token = per_token * weight
            stats["is_weight"] = weight
            stats["is_truncated"] = (torch.exp(old - engine) > is_cap).float()
    if beta > 0 and ref_logprobs is not None:
        kl = k3_kl(logprobs, torch.where(live, ref_logprobs, current))
        per_token = per_token + beta * kl
        stats["kl"] = kl.detach()
    return TokenLoss(torch.where(live, per_token, torch.zeros_like(per_token)), stats)

"""Advantages, clipped surrogate, KL, IS weights and the three aggregations against hand-computed values."""

from __future__ import annotations

import math

import pytest
import torch

from aspen_rl.algorithms.grpo.advantages import group_advantages
from aspen_rl.algorithms.grpo.loss import (
    clipped_surrogate,
    grpo_token_loss,
    k3_kl,
    token_weights,
    truncated_is_weights,
    weighted_sum,
)
from aspen_rl.llm.logprobs import selective_logprobs


def test_group_advantages_std_scaled() -> None:
    # mean 0.5, Bessel std sqrt(1/3): (R - 0.5) / (0.57735 + 1e-4)
    adv = group_advantages([1.0, 0.0, 0.0, 1.0], eps=1e-4)
    expected = 0.5 / (math.sqrt(1 / 3) + 1e-4)
    assert adv.advantages == pytest.approx([expected, -expected, -expected, expected], abs=1e-12)
    assert not adv.zero_variance
    # mean 0.5, std 0.3
    adv = group_advantages([0.2, 0.5, 0.8], eps=1e-4)
    assert adv.advantages == pytest.approx([-0.3 / 0.3001, 0.0, 0.3 / 0.3001], abs=1e-12)


def test_group_advantages_without_std_scaling_is_dr_grpo() -> None:
    adv = group_advantages([0.2, 0.5, 0.8], scale=False)
    assert adv.advantages == pytest.approx([-0.3, 0.0, 0.3], abs=1e-12)


def test_zero_variance_group_is_flagged() -> None:
    adv = group_advantages([0.7, 0.7, 0.7, 0.7])
    assert adv.zero_variance and adv.advantages == [0.0] * 4
    assert group_advantages([1.0]).zero_variance


def _example() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    # rows 0 and 1 belong to rollout 0 (3 tokens), row 2 to rollout 1 (2 tokens)
    mask = torch.tensor([[1, 1, 0], [1, 0, 0], [1, 1, 0]], dtype=torch.float32)
    rollout = torch.tensor([0, 0, 1])
    per_token = torch.tensor([[1.0, 2.0, 9.0], [3.0, 9.0, 9.0], [4.0, 6.0, 9.0]])
    return mask, rollout, per_token


def test_token_mean_aggregation() -> None:
    mask, rollout, per_token = _example()
    w = token_weights(mask, rollout, "token_mean")
    assert torch.allclose(w, mask / 5)
    assert weighted_sum(per_token, w).item() == pytest.approx((1 + 2 + 3 + 4 + 6) / 5)


def test_sequence_mean_aggregation() -> None:
    mask, rollout, per_token = _example()
    w = token_weights(mask, rollout, "sequence_mean")
    expected = torch.tensor([[1 / 6, 1 / 6, 0], [1 / 3, 0, 0], [1 / 6, 1 / 6, 0]])
    assert torch.allclose(w, expected)
    assert weighted_sum(per_token, w).item() == pytest.approx((1.5 + 3 + 5) / 3)


def test_rollout_mean_aggregation() -> None:
    mask, rollout, per_token = _example()
    w = token_weights(mask, rollout, "rollout_mean")
    expected = torch.tensor([[1 / 6, 1 / 6, 0], [1 / 6, 0, 0], [1 / 4, 1 / 4, 0]])
    assert torch.allclose(w, expected)
    # rollout 0: (1 + 2 + 3) / 3 = 2; rollout 1: (4 + 6) / 2 = 5; mean 3.5
    assert weighted_sum(per_token, w).item() == pytest.approx(3.5)


def test_weights_split_exactly_over_micro_batches() -> None:
    mask, rollout, per_token = _example()
    for mode in ("token_mean", "sequence_mean", "rollout_mean"):
        w = token_weights(mask, rollout, mode)
        parts = sum(weighted_sum(per_token[i : i + 1], w[i : i + 1]) for i in range(3))
        assert parts.item() == pytest.approx(weighted_sum(per_token, w).item())


def test_clipped_surrogate_hand_values_and_gradients() -> None:
    ratios = torch.tensor([[1.5, 0.5, 0.5, 1.5, 1.1]])
    adv = torch.tensor([[1.0, 1.0, -1.0, -1.0, 2.0]])
    old = torch.zeros_like(ratios)
    logp = torch.log(ratios).requires_grad_(True)
    loss, ratio, active = clipped_surrogate(logp, old, adv, 0.2, 0.28)
    assert loss.detach().tolist()[0] == pytest.approx([-1.28, -0.5, 0.8, 1.5, -2.2])
    assert torch.allclose(ratio, ratios)
    assert active.tolist()[0] == [1.0, 0.0, 1.0, 0.0, 0.0]
    loss.sum().backward()
    # d/dlogp of -r*A is -A*r where unclipped; 0 where the clip is active
    assert logp.grad is not None
    assert logp.grad.tolist()[0] == pytest.approx([0.0, -0.5, 0.0, 1.5, -2.2])


def test_k3_kl_and_truncated_is_weights() -> None:
    kl = k3_kl(torch.log(torch.tensor([0.5, 0.3])), torch.log(torch.tensor([0.25, 0.3])))
    assert kl.tolist() == pytest.approx([0.5 - math.log(0.5) - 1, 0.0], abs=1e-6)
    w = truncated_is_weights(torch.log(torch.tensor([1.5, 3.0, 0.5])), torch.zeros(3), cap=2.0)
    assert w.tolist() == pytest.approx([1.5, 2.0, 0.5], abs=1e-6)


def test_selective_logprobs_matches_log_softmax() -> None:
    torch.manual_seed(0)
    logits = torch.randn(2, 5, 11)
    ids = torch.randint(0, 11, (2, 5))
    expected = torch.log_softmax(logits / 0.7, dim=-1).gather(-1, ids.unsqueeze(-1)).squeeze(-1)
    assert torch.allclose(selective_logprobs(logits, ids, 0.7), expected, atol=1e-6)


def test_gradient_is_exactly_zero_at_masked_positions() -> None:
    torch.manual_seed(0)
    mask = torch.tensor([[0, 1, 1, 0, 1], [0, 0, 1, 1, 0]], dtype=torch.float32)
    logp = (-torch.rand(2, 5) * 3).requires_grad_(True)
    garbage = torch.full((2, 5), 1e4)  # would overflow exp() if it leaked into masked positions
    old = torch.where(mask.bool(), logp.detach() + 0.05, garbage)
    engine = torch.where(mask.bool(), logp.detach() - 0.1, -garbage)
    ref = torch.where(mask.bool(), logp.detach() - 0.2, garbage)
    out = grpo_token_loss(
        logp,
        old,
        torch.tensor([1.0, -0.5]),
        mask,
        epsilon_low=0.2,
        epsilon_high=0.28,
        engine_logprobs=engine,
        is_cap=2.0,
        ref_logprobs=ref,
        beta=0.1,
    )
    for mode in ("token_mean", "sequence_mean", "rollout_mean"):
        logp.grad = None
        weighted_sum(out.loss, token_weights(mask, torch.tensor([0, 1]), mode)).backward(retain_graph=True)
        assert logp.grad is not None and torch.isfinite(logp.grad).all()
        assert (logp.grad[mask == 0] == 0).all()
        assert (logp.grad[mask == 1] != 0).all()


def test_gradient_through_the_model_is_zero_at_masked_positions(chat_model: torch.nn.Module) -> None:
    ids = torch.tensor([[5, 9, 20, 31, 7, 8, 2, 40]])
    mask = torch.tensor([[0, 0, 0, 1, 1, 0, 0, 1]], dtype=torch.float32)[:, 1:]
    logits = chat_model(input_ids=ids).logits
    logits.retain_grad()
    logp = selective_logprobs(logits[:, :-1], ids[:, 1:])
    out = grpo_token_loss(logp, logp.detach(), torch.tensor([1.0]), mask, epsilon_low=0.2, epsilon_high=0.28)
    weighted_sum(out.loss, token_weights(mask, torch.tensor([0]), "rollout_mean")).backward()
    assert logits.grad is not None
    grad = logits.grad[0, :-1].abs().sum(dim=-1)
    assert (grad[mask[0] == 0] == 0).all()
    assert (grad[mask[0] == 1] > 0).all()

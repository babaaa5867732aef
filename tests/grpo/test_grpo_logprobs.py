"""The memory-lean logprobs (sampled positions only, chunked) equal the full-vocabulary computation."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
from aspen_rl.llm.loading import apply_lora
from aspen_rl.llm.logprobs import full_token_logprobs, split_head, token_logprobs
from aspen_rl.llm.tiny_bytes import build_tiny_model
from aspen_rl.llm.types import RolloutSample, TrajectoryRow

VOCAB = 300


def batch(seed: int = 0, rows: int = 3, width: int = 40) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, VOCAB, (rows, width), generator=g)
    attention = torch.ones(rows, width, dtype=torch.long)
    attention[1, width - 7 :] = 0  # a right-padded row
    needed = torch.rand(rows, width - 1, generator=g) < 0.4
    needed &= attention[:, 1:].bool()
    return ids, attention, needed


@pytest.mark.filterwarnings("ignore:fan_in_fan_out:UserWarning")
@pytest.mark.parametrize("arch", ["qwen2", "gpt2"])
@pytest.mark.parametrize("lora", [False, True])
@pytest.mark.parametrize("chunk", [1, 5, 512])
def test_values_and_gradients_equal_the_full_computation(arch: str, lora: bool, chunk: int) -> None:
    model = build_tiny_model(VOCAB, arch=arch, seed=3)
    if lora:
        model = apply_lora(model, GRPOConfig().lora.model_copy(update={"r": 4, "alpha": 8}))
        with torch.no_grad():
            for name, p in model.named_parameters():
                if "lora_B" in name:
                    p.normal_(std=0.05)
    assert split_head(model) is not None
    ids, attention, needed = batch()
    weights = torch.rand(needed.shape, generator=torch.Generator().manual_seed(1))

    full = full_token_logprobs(model, ids, attention, 0.7)
    (torch.where(needed, full, 0.0) * weights).sum().backward()
    full_grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)

    lean = token_logprobs(model, ids, attention, needed, temperature=0.7, chunk_size=chunk)
    (lean * weights).sum().backward()
    assert torch.allclose(lean[needed], full[needed], atol=1e-6, rtol=0)
    assert (lean[~needed] == 0).all()
    lean_grads = {n: p.grad for n, p in model.named_parameters() if p.grad is not None}
    assert full_grads.keys() == lean_grads.keys() and full_grads
    for name, grad in full_grads.items():
        # float32 sums over the batch's positions in another order: the error grows with the gradient's
        # size (gpt2's c_proj bias, |g| up to 9.3, passed a fixed atol 1e-6 by 1.8e-7 on one torch thread)
        atol = 1e-6 * max(1.0, float(grad.abs().max()))
        assert torch.allclose(lean_grads[name], grad, atol=atol, rtol=1e-5), name


def test_models_that_reshape_their_logits_use_the_full_path() -> None:
    model = build_tiny_model(VOCAB, seed=0)
    model.config.final_logit_softcapping = 30.0  # as Gemma2: the head's output is not the logits
    assert split_head(model) is None
    ids, attention, needed = batch()
    lp = token_logprobs(model, ids, attention, needed, chunk_size=8)
    assert torch.allclose(lp, full_token_logprobs(model, ids, attention), atol=1e-6)


def test_a_trainer_step_is_the_same_lean_or_full(tokenizer: Any, cpu_config: GRPOConfig) -> None:
    g = torch.Generator().manual_seed(5)
    groups = []
    for _ in range(2):
        group = []
        for _ in range(3):
            ids = torch.randint(0, len(tokenizer), (30,), generator=g).tolist()
            mask = [0] * 12 + [1] * 8 + [0] * 4 + [1] * 6
            group.append(
                RolloutSample(
                    [TrajectoryRow(ids, mask, [-1.0 * m for m in mask])], float(torch.rand(1, generator=g))
                )
            )
        groups.append(group)
    results = []
    for chunk in (0, 4):
        cfg = cpu_config.replace(logprob_chunk_tokens=chunk, micro_batch_size=2, num_iterations=2, beta=0.1)
        trainer = GRPOTrainer(cfg, model=build_tiny_model(len(tokenizer), seed=0), tokenizer=tokenizer)
        metrics = trainer.step(groups)
        weights = torch.cat([p.detach().flatten() for p in trainer.model.parameters()])
        results.append((metrics, weights))
    (full, w_full), (lean, w_lean) = results
    for key in ("loss", "grad_norm", "kl", "ratio_mean", "clip_fraction", "is_weight_mean"):
        assert lean[key] == pytest.approx(full[key], abs=1e-6), key
    assert torch.allclose(w_lean, w_full, atol=1e-6)

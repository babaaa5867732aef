"""Seeded sampling: a seeded prompt draws from its own stream, whatever it is batched with.

Without it a rollout's tokens depend on which other calls the endpoint batched it with and on the global
RNG, so two GRPO runs of one recipe sample different episodes from their first step.
"""

from __future__ import annotations

from typing import Any

import torch
from _support.engine_rows import rows_of

from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
from aspen_rl.llm.engine import TransformersEngine
from aspen_rl.llm.engine.transformers_engine import SeededDraw, inverse_cdf
from aspen_rl.llm.types import SamplingParams
from aspen_rl.rollout_seed import derive_seed, prompt_seed

PROMPT = [7, 100, 3, 44, 45, 46, 47, 48, 12]
OTHERS = [[5, 9, 20], [250, 1, 33, 34]]


def test_the_draw_follows_the_distribution_and_never_picks_an_impossible_token() -> None:
    probs = torch.tensor([0.5, 0.0, 0.3, 0.2, 0.0])
    n = 4000
    scores = probs.log().expand(n, -1).clone()  # log(0) = -inf: a token top-k/top-p removed
    out = SeededDraw(list(range(n)), steps=1)(torch.zeros((n, 1), dtype=torch.long), scores)
    drawn = out.argmax(dim=1)
    assert bool((out.isfinite().sum(dim=1) == 1).all())  # exactly one token left possible per row
    freq = torch.bincount(drawn, minlength=5).float() / n
    assert freq[1] == 0 and freq[4] == 0
    # 4 standard errors of a frequency near 0.5 with n = 4000 is 0.032
    assert torch.allclose(freq, probs, atol=0.032), freq


def test_unseeded_rows_are_left_to_generates_own_draw() -> None:
    scores = torch.randn(3, 10)
    out = SeededDraw([None, 4, None], steps=1)(torch.zeros((3, 1), dtype=torch.long), scores)
    assert torch.equal(out[0], scores[0]) and torch.equal(out[2], scores[2])
    assert int(out[1].isfinite().sum()) == 1


def test_a_uniform_at_the_top_of_the_range_still_draws_a_possible_token() -> None:
    """Float sums can leave the target on the total: the last possible token is drawn, not a removed one."""
    probs = torch.tensor([[0.25, 0.0, 0.75 - 1e-7, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0]])
    near_top = torch.tensor([1.0 - 2.0**-53, 1.0 - 2.0**-53], dtype=torch.float64)
    assert inverse_cdf(probs, near_top).tolist() == [2, 1]
    on_total = torch.ones(2, dtype=torch.float64)  # the target on the total: past every token but clamped
    assert inverse_cdf(probs, on_total).tolist() == [2, 1]
    assert inverse_cdf(probs, torch.zeros(2, dtype=torch.float64)).tolist() == [0, 1]
    assert inverse_cdf(probs, torch.tensor([0.3, 0.5], dtype=torch.float64)).tolist() == [2, 1]


def test_a_seeded_prompt_samples_the_same_tokens_alone_or_batched(
    chat_model: torch.nn.Module, tokenizer: Any, cpu_config: GRPOConfig
) -> None:
    trainer = GRPOTrainer(cpu_config.replace(temperature=0.7), model=chat_model)
    engine = TransformersEngine(trainer.model, tokenizer)
    sampling = SamplingParams(max_tokens=24, temperature=0.7, stop_token_ids=(0,))
    torch.manual_seed(1)
    (alone,) = engine.generate([PROMPT], sampling, seeds=[11])
    torch.manual_seed(2)  # another global RNG state, other prompts around it, another position
    batched = engine.generate([OTHERS[0], PROMPT, OTHERS[1]], sampling, seeds=[None, 11, 5])
    assert len(alone.completion_ids) == 24  # a random model: no stop token sampled
    assert batched[1].completion_ids == alone.completion_ids
    assert torch.allclose(torch.tensor(batched[1].logprobs), torch.tensor(alone.logprobs), atol=1e-5)
    (other_seed,) = engine.generate([PROMPT], sampling, seeds=[12])
    assert other_seed.completion_ids != alone.completion_ids
    # the logprobs are still those of the distribution sampled from
    recomputed = trainer.compute_logprobs(rows_of([alone, *batched]))
    for row, lp in zip(rows_of([alone, *batched]), recomputed, strict=True):
        mask = torch.tensor(row.loss_mask, dtype=torch.bool)
        assert float((lp[mask] - torch.tensor(row.engine_logprobs)[mask]).abs().max()) < 1e-5


def test_a_seeded_prompt_keeps_its_tokens_when_the_batch_is_cut_into_chunks(
    chat_model: torch.nn.Module, tokenizer: Any
) -> None:
    sampling = SamplingParams(max_tokens=16, temperature=1.0, stop_token_ids=(0,))
    (alone,) = TransformersEngine(chat_model, tokenizer).generate([PROMPT], sampling, seeds=[3])
    chunked = TransformersEngine(chat_model, tokenizer, max_batch_size=1).generate(
        [OTHERS[0], OTHERS[1], PROMPT], sampling, seeds=[1, 2, 3]
    )
    assert chunked[2].completion_ids == alone.completion_ids


def test_derived_seeds_are_stable_and_distinct() -> None:
    seeds = [derive_seed(0, "train", 1, i) for i in range(64)]
    assert len(set(seeds)) == 64 and all(0 <= s < 2**63 for s in seeds)
    assert derive_seed(0, "train", 1) == derive_seed(0, "train", 1) != derive_seed(1, "train", 1)
    assert derive_seed(0, "train", 1) == 7114178213314888903  # the same on every machine and process


def test_each_call_of_a_rollout_gets_its_own_stream() -> None:
    """One request seed serves every turn of a rollout; mixed with the prompt, each turn draws afresh."""
    first, second = [1, 2, 3], [1, 2, 3, 4, 5]
    assert prompt_seed(9, first) == prompt_seed(9, list(first))
    assert len({prompt_seed(9, first), prompt_seed(9, second), prompt_seed(10, first)}) == 3

"""The decode benchmark's checks of a KV-cache mode (benchmarks/grpo_bench.py): shared prefix with eager's
tokens, and the gap between the engine's sampling logprobs and the trainer's teacher-forced ones."""

from __future__ import annotations

import pytest
import torch
from _support.benchmarks import load_benchmark

from aspen_rl.llm.engine import TransformersEngine
from aspen_rl.llm.tiny_bytes import build_tiny_model, build_tiny_tokenizer
from aspen_rl.llm.types import Generation, SamplingParams


@pytest.fixture(scope="module")
def bench():  # type: ignore[no-untyped-def]
    return load_benchmark("grpo_bench")  # registered: its dataclasses need their module


def test_shared_prefix_counts_the_tokens_before_each_rows_first_difference(bench) -> None:  # type: ignore[no-untyped-def]
    reference = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 9]]
    rows = [[1, 2, 3, 4], [5, 0, 7, 8], [0, 9]]
    assert bench.shared_prefix(rows, reference) == pytest.approx((4 + 1 + 0) / 3, abs=0.05)


def test_the_engines_logprobs_match_the_trainers_and_a_wrong_one_shows(bench) -> None:  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    tokenizer = build_tiny_tokenizer()
    model = build_tiny_model(len(tokenizer), seed=0, hidden_size=32, num_layers=2, num_heads=2)
    prompts = [[int(t) for t in torch.randint(3, 200, (12,))] for _ in range(3)]
    sampling = SamplingParams(max_tokens=10, temperature=1.0, ignore_eos=True)
    generations = TransformersEngine(model, tokenizer, max_batch_size=3, decode="static").generate(
        prompts, sampling
    )
    gap = bench.logprob_gap(model, generations)
    assert gap["max"] < 1e-4
    # a sampler whose logprobs are off by half a nat on one token is caught
    shifted = [
        Generation(g.prompt_ids, g.completion_ids, list(g.logprobs), g.finish_reason) for g in generations
    ]
    shifted[1].logprobs[4] -= 0.5
    assert bench.logprob_gap(model, shifted)["max"] == pytest.approx(0.5, abs=1e-3)

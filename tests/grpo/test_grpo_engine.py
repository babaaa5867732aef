"""Transformers engine: sampled-token logprobs equal the trainer's recomputation; stops; weight updates.

Logprobs are compared in float32 at temperature 1, 0.7 and greedy (top_p 1, top_k 0): the engine reports
log_softmax of the scores it sampled from, the trainer log_softmax(logits / T) of a fresh forward over
prompt + completion (right-padded, versus left-padded generation with a KV cache).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
import torch
from _support.engine_rows import rows_of

from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
from aspen_rl.llm.engine import TransformersEngine, build_engine
from aspen_rl.llm.tiny_bytes import build_tiny_model
from aspen_rl.llm.types import Generation, SamplingParams


def _max_diff(trainer: GRPOTrainer, generations: list[Generation]) -> float:
    worst = 0.0
    for row, lp in zip(rows_of(generations), trainer.compute_logprobs(rows_of(generations)), strict=True):
        mask = torch.tensor(row.loss_mask, dtype=torch.bool)
        worst = max(worst, float((lp[mask] - torch.tensor(row.engine_logprobs)[mask]).abs().max()))
    return worst


PROMPTS = [[5, 9, 20], [7, 100, 3, 44, 45, 46, 47, 48, 12], [250, 1]]


@pytest.mark.parametrize("temperature", [1.0, 0.7, 0.0])
def test_engine_logprobs_equal_recomputed_logprobs(
    chat_model: torch.nn.Module, tokenizer: Any, cpu_config: GRPOConfig, temperature: float
) -> None:
    trainer = GRPOTrainer(cpu_config.replace(temperature=temperature), model=chat_model)
    engine = TransformersEngine(trainer.model, tokenizer)
    torch.manual_seed(1)
    generations = engine.generate(
        PROMPTS, SamplingParams(max_tokens=16, temperature=temperature, stop_token_ids=(0,))
    )
    assert [g.prompt_ids for g in generations] == PROMPTS
    assert all(len(g.completion_ids) == 16 for g in generations)
    assert _max_diff(trainer, generations) < 1e-5


@pytest.mark.parametrize("temperature", [1.0, 0.0])
def test_static_cache_decodes_the_eager_tokens_with_the_trainers_logprobs(
    chat_model: torch.nn.Module, tokenizer: Any, cpu_config: GRPOConfig, temperature: float
) -> None:
    """A pre-allocated cache (and the extra left padding it brings) changes no token and no logprob."""
    trainer = GRPOTrainer(cpu_config.replace(temperature=temperature), model=chat_model)
    sampling = SamplingParams(max_tokens=16, temperature=temperature, stop_token_ids=(0,))
    decoded = {}
    for decode in ("eager", "static"):
        engine = TransformersEngine(trainer.model, tokenizer, decode=decode)
        torch.manual_seed(1)
        decoded[decode] = engine.generate(PROMPTS, sampling)
    assert [g.completion_ids for g in decoded["static"]] == [g.completion_ids for g in decoded["eager"]]
    assert [g.prompt_ids for g in decoded["static"]] == PROMPTS
    assert _max_diff(trainer, decoded["static"]) < 1e-5


def test_compiled_decode_is_refused_off_a_gpu(chat_model: torch.nn.Module, tokenizer: Any) -> None:
    with pytest.raises(ValueError, match="compiled"):
        TransformersEngine(chat_model, tokenizer, decode="compiled")
    with pytest.raises(ValueError, match="CUDA"):
        build_engine(GRPOConfig(model="tiny", decode="compiled"), model=chat_model, tokenizer=tokenizer)


def test_top_p_logprobs_are_those_of_the_truncated_distribution(
    chat_model: torch.nn.Module, tokenizer: Any, cpu_config: GRPOConfig
) -> None:
    trainer = GRPOTrainer(cpu_config, model=chat_model)
    engine = TransformersEngine(trainer.model, tokenizer)
    torch.manual_seed(4)
    generations = engine.generate(PROMPTS, SamplingParams(max_tokens=8, top_p=0.5, stop_token_ids=(0,)))
    rows = rows_of(generations)
    for row, full in zip(rows, trainer.compute_logprobs(rows), strict=True):
        mask = torch.tensor(row.loss_mask, dtype=torch.bool)
        engine_lp = torch.tensor(row.engine_logprobs)[mask]
        # renormalised over the nucleus: never below the full-softmax logprob, above it here
        assert (engine_lp >= full[mask] - 1e-6).all() and (engine_lp > full[mask] + 1e-3).any()


def test_checkpoint_generation_defaults_do_not_reshape_sampling(
    chat_model: torch.nn.Module, tokenizer: Any, cpu_config: GRPOConfig
) -> None:
    chat_model.generation_config.repetition_penalty = 1.8
    chat_model.generation_config.top_k = 3
    trainer = GRPOTrainer(cpu_config, model=chat_model)
    engine = TransformersEngine(trainer.model, tokenizer)
    torch.manual_seed(2)
    generations = engine.generate(PROMPTS, SamplingParams(max_tokens=12, stop_token_ids=(0,)))
    assert _max_diff(trainer, generations) < 1e-5
    assert chat_model.generation_config.repetition_penalty == 1.8  # restored afterwards


def test_stop_tokens_end_the_completion(chat_model: torch.nn.Module, tokenizer: Any) -> None:
    engine = TransformersEngine(chat_model, tokenizer)
    every_token = tuple(range(len(tokenizer)))
    (stopped,) = engine.generate([[5, 6]], SamplingParams(max_tokens=8, stop_token_ids=every_token))
    assert stopped.finish_reason == "stop" and len(stopped.completion_ids) == 1 == len(stopped.logprobs)
    (ran_out,) = engine.generate([[5, 6]], SamplingParams(max_tokens=3, stop_token_ids=(10_000,)))
    assert ran_out.finish_reason == "length" and len(ran_out.completion_ids) == 3
    (ignored,) = engine.generate(
        [[5, 6]], SamplingParams(max_tokens=4, stop_token_ids=every_token, ignore_eos=True)
    )
    assert ignored.finish_reason == "length" and len(ignored.completion_ids) == 4
    assert engine.stop_token_ids == (tokenizer.eos_token_id,)
    with pytest.raises(ValueError, match="empty prompt"):
        engine.generate([[]], SamplingParams())


def test_update_weights_loads_another_policy(tokenizer: Any, cpu_config: GRPOConfig) -> None:
    engine = TransformersEngine(build_tiny_model(len(tokenizer), seed=0), tokenizer)
    other = build_tiny_model(len(tokenizer), seed=1)
    engine.update_weights(other.state_dict())
    assert engine.version == 1
    trainer = GRPOTrainer(cpu_config, model=other)
    torch.manual_seed(3)
    generations = engine.generate(PROMPTS, SamplingParams(max_tokens=6, stop_token_ids=(0,)))
    assert _max_diff(trainer, generations) < 1e-5


def test_build_engine_shares_the_trainer_model(chat_model: torch.nn.Module, tokenizer: Any) -> None:
    engine = build_engine(GRPOConfig(model="tiny"), model=chat_model, tokenizer=tokenizer)
    assert isinstance(engine, TransformersEngine) and engine.model is chat_model


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed here")
def test_vllm_engine_without_vllm_says_how_to_install() -> None:
    from aspen_rl.llm.engine.vllm_engine import VLLMUnavailableError

    with pytest.raises(VLLMUnavailableError, match=r"pip install 'aspen_rl\[gpu\]'"):
        build_engine(GRPOConfig(model="tiny", engine="vllm"))

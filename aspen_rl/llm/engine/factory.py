"""Build the configured rollout engine (transformers sharing the trainer's model, or vLLM)."""

from __future__ import annotations

from typing import Any

import torch

from aspen_rl.llm.engine.base import RolloutEngine
from aspen_rl.llm.engine.transformers_engine import TransformersEngine
from aspen_rl.llm.settings import EngineConfig


def build_engine(
    config: EngineConfig, model: torch.nn.Module | None = None, tokenizer: Any = None
) -> RolloutEngine:
    """The engine named by ``config.engine``.

    Args:
        config: The engine's settings (GRPO's config carries them).
        model: For 'transformers': the trainer's policy, shared (no copy, sync is free); loaded from
            ``config.model`` when None. Ignored by 'vllm', which loads ``config.model`` itself.
        tokenizer: The policy's tokenizer.

    Raises:
        VLLMUnavailableError: 'vllm' without vLLM installed.
        ValueError: ``decode: compiled`` with the model off a CUDA GPU.
    """
    from aspen_rl.llm.loading import set_cpu_threads

    set_cpu_threads(config.cpu_threads)  # generation on CPU (and vLLM's CPU-side work)
    if config.engine == "vllm":
        from aspen_rl.llm.engine.vllm_engine import VLLMEngine

        return VLLMEngine(
            config.model,
            tokenizer,
            dtype=config.dtype,
            seed=config.seed,
            enable_lora=config.lora.enabled,
            max_lora_rank=max(config.vllm.max_lora_rank, config.lora.r),
            gpu_memory_utilization=config.vllm.gpu_memory_utilization,
            max_model_len=config.vllm.max_model_len,
            logprobs_mode=config.vllm.logprobs_mode,
            enforce_eager=config.vllm.enforce_eager,
        )
    if model is None:
        from aspen_rl.llm.loading import load_model

        model, loaded = load_model(config)
        tokenizer = tokenizer if tokenizer is not None else loaded
    return TransformersEngine(model, tokenizer, max_batch_size=config.server_max_batch, decode=config.decode)

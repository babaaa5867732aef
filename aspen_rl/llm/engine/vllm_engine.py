"""Rollouts with vLLM on a GPU (optional ``gpu`` extra, imported lazily), with LoRA hot-load or weight reload.

Logprobs: ``SamplingParams(logprobs=0)`` returns the logprob of each sampled token. vLLM's V1 default
``logprobs_mode='raw_logprobs'`` takes them *before* temperature/top-p; this engine asks for
``processed_logprobs`` (configurable), i.e. under the distribution actually sampled from, like the
transformers engine. Weights: a LoRA adapter directory is hot-loaded as a new ``LoRARequest`` (no
engine restart); full weights are pushed with the model's ``load_weights`` (in-process engine), and the
prefix cache is reset so no stale KV entry survives a sync.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import torch

from aspen_rl.llm.engine.base import RolloutEngine, WeightsSource
from aspen_rl.llm.types import Generation, SamplingParams

INSTALL_HINT = "vLLM is not installed: pip install 'aspen_rl[gpu]' on a machine with a CUDA GPU"


class VLLMUnavailableError(ImportError):
    """vLLM (the ``gpu`` extra) is not importable."""


def import_vllm() -> Any:
    """Import vllm, or raise ``VLLMUnavailableError`` with the install hint."""
    try:
        import vllm
    except ImportError as exc:
        raise VLLMUnavailableError(f"{INSTALL_HINT} ({exc})") from exc
    return vllm


class VLLMEngine(RolloutEngine):
    """``vllm.LLM`` behind the ``RolloutEngine`` contract.

    Args:
        model: Local directory or hub id of the policy's base weights.
        tokenizer: A Hugging Face tokenizer for the chat template (None: vLLM's own).
        dtype: 'auto', 'bfloat16', 'float16' or 'float32'.
        seed: vLLM's sampling seed.
        enable_lora: Prepare for adapter hot-loading (LoRA training).
        max_lora_rank: Largest adapter rank to expect.
        gpu_memory_utilization: Share of GPU memory for weights + KV cache.
        max_model_len: Context length to reserve (None: the model's).
        logprobs_mode: vLLM's logprobs mode, 'processed_logprobs' by default (see module docstring).
        enforce_eager: Disable CUDA graphs.
        **llm_kwargs: Passed to ``vllm.LLM``.
    """

    def __init__(
        self,
        model: str | Path,
        tokenizer: Any = None,
        *,
        dtype: str = "auto",
        seed: int = 0,
        enable_lora: bool = False,
        max_lora_rank: int = 64,
        gpu_memory_utilization: float = 0.45,
        max_model_len: int | None = None,
        logprobs_mode: str | None = "processed_logprobs",
        enforce_eager: bool = False,
        **llm_kwargs: Any,
    ) -> None:
        super().__init__()
        # Full-weight sync reaches into the model, which needs the engine core in this process.
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        self._vllm = import_vllm()
        kwargs: dict[str, Any] = {
            "model": str(model),
            "dtype": dtype,
            "seed": seed,
            "gpu_memory_utilization": gpu_memory_utilization,
            "enable_lora": enable_lora,
            "enforce_eager": enforce_eager,
            "enable_prefix_caching": True,
        }
        if enable_lora:
            kwargs["max_lora_rank"] = max_lora_rank
        if max_model_len is not None:
            kwargs["max_model_len"] = max_model_len
        if logprobs_mode is not None:
            kwargs["logprobs_mode"] = logprobs_mode
        kwargs.update(llm_kwargs)
        self._llm = self._vllm.LLM(**kwargs)
        self._tokenizer = tokenizer
        self._lora: Any = None

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer if self._tokenizer is not None else self._llm.get_tokenizer()

    def _sampling_params(self, sampling: SamplingParams, stop_ids: tuple[int, ...], seed: int | None) -> Any:
        return self._vllm.SamplingParams(
            n=1,
            seed=seed,
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            top_k=sampling.top_k if sampling.top_k > 0 else -1,
            max_tokens=sampling.max_tokens,
            stop_token_ids=list(stop_ids),
            ignore_eos=sampling.ignore_eos,
            logprobs=0,
            detokenize=False,
            skip_special_tokens=False,
        )

    def _generate(
        self, prompts: list[list[int]], sampling: SamplingParams, seeds: list[int | None]
    ) -> list[Generation]:
        stop_ids = sampling.stop_ids(self.stop_token_ids)
        params = [self._sampling_params(sampling, stop_ids, seed) for seed in seeds]
        inputs = [{"prompt_token_ids": p} for p in prompts]
        outputs = self._llm.generate(inputs, sampling_params=params, lora_request=self._lora, use_tqdm=False)
        generations = []
        for prompt, output in zip(prompts, outputs, strict=True):
            completion = output.outputs[0]
            ids = list(completion.token_ids)
            logprobs = [
                float(step[token].logprob) for step, token in zip(completion.logprobs, ids, strict=True)
            ]
            finish = "stop" if completion.finish_reason == "stop" else "length"
            generations.append(Generation(list(prompt), ids, logprobs, finish))
        return generations

    def _update_weights(self, source: WeightsSource) -> None:
        if isinstance(source, str | Path):
            version = self.version + 1
            from vllm.lora.request import LoRARequest

            self._lora = LoRARequest(f"policy-v{version}", version, str(source))
            return
        state = source.state_dict() if isinstance(source, torch.nn.Module) else source
        self._load_full_weights(state.items())
        self._llm.reset_prefix_cache()

    def _load_full_weights(
        self, weights: Iterable[tuple[str, torch.Tensor]] | Mapping[str, torch.Tensor]
    ) -> None:
        engine = self._llm.llm_engine
        for path in (
            ("model_executor", "driver_worker", "worker", "model_runner", "model"),
            ("model_executor", "driver_worker", "model_runner", "model"),
        ):
            target: Any = engine
            for attr in path:
                target = getattr(target, attr, None)
                if target is None:
                    break
            if target is not None:
                target.load_weights(weights=iter(weights))
                return
        raise RuntimeError(
            "cannot reach vLLM's model to reload weights (engine core in another process?); "
            "train with LoRA (hot-loaded adapters) or set VLLM_ENABLE_V1_MULTIPROCESSING=0"
        )

    def close(self) -> None:
        self._llm = None

"""The rollout-engine contract: token ids in, sampled token ids and their logprobs out."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from aspen_rl.llm.types import Generation, SamplingParams

WeightsSource = torch.nn.Module | Mapping[str, torch.Tensor] | str | Path
"""What ``update_weights`` accepts: a model, a state dict, or the directory of a saved LoRA adapter."""


class RolloutEngine(ABC):
    """Samples completions for token-id prompts and reports the logprob of every sampled token.

    Implementations never detokenize and re-tokenize: ``Generation.completion_ids`` are the ids the
    sampler drew. ``generate`` and ``update_weights`` are serialised by one lock, so a weight sync never
    interleaves with a batch being sampled.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version = 0

    @property
    def version(self) -> int:
        """How many times the weights were updated since the engine was built (the policy version)."""
        return self._version

    @property
    @abstractmethod
    def tokenizer(self) -> Any:
        """The tokenizer whose ids the engine speaks (None when built without one)."""

    @property
    def stop_token_ids(self) -> tuple[int, ...]:
        """Tokens that end a completion by default (the tokenizer's eos)."""
        tok = self.tokenizer
        eos = getattr(tok, "eos_token_id", None) if tok is not None else None
        return (eos,) if isinstance(eos, int) else ()

    def generate(
        self,
        prompt_token_ids: Sequence[Sequence[int]],
        sampling: SamplingParams,
        seeds: Sequence[int | None] | None = None,
    ) -> list[Generation]:
        """Sample one completion per prompt.

        Args:
            prompt_token_ids: Prompts as token ids (not re-tokenized).
            sampling: Shared sampling parameters of the batch.
            seeds: One per prompt (None: all unseeded). A seeded prompt draws from its own random
                stream, so its completion does not depend on what it was batched with or on the
                process's global RNG; an unseeded one draws from the global RNG.

        Returns:
            One ``Generation`` per prompt, in order.
        """
        if not prompt_token_ids:
            return []
        if any(len(p) == 0 for p in prompt_token_ids):
            raise ValueError("empty prompt")
        row_seeds: list[int | None] = list(seeds) if seeds is not None else [None] * len(prompt_token_ids)
        if len(row_seeds) != len(prompt_token_ids):
            raise ValueError(f"{len(row_seeds)} seeds for {len(prompt_token_ids)} prompts")
        with self._lock:
            return self._generate([list(p) for p in prompt_token_ids], sampling, row_seeds)

    def update_weights(self, source: WeightsSource) -> None:
        """Load new policy weights: a model, a state dict, or a saved LoRA adapter directory."""
        with self._lock:
            self._update_weights(source)
            self._version += 1

    @abstractmethod
    def _generate(
        self, prompts: list[list[int]], sampling: SamplingParams, seeds: list[int | None]
    ) -> list[Generation]: ...

    @abstractmethod
    def _update_weights(self, source: WeightsSource) -> None: ...

    def close(self) -> None:  # noqa: B027 - optional hook
        """Free the engine's resources."""

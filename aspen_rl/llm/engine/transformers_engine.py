"""Rollouts with plain ``transformers`` generation (CPU or GPU), logprobs of the sampling distribution.

Logprobs are those of the distribution actually sampled from: temperature, top-k and top-p are applied
by this engine's own logits processors, and a last processor keeps ``log_softmax`` of the processed
scores until the next step reveals the sampled token (memory O(batch x vocab), not x steps). With
``top_p=1`` and ``top_k=0`` they equal the trainer's ``log_softmax(logits / temperature)``; greedy
decoding (temperature 0) reports ``log_softmax(logits)``. The model's own ``generation_config`` (e.g. a
checkpoint's repetition penalty or top-k 20) is ignored while sampling, so nothing else reshapes the
distribution.

Decoding (``decode``): ``eager`` grows a dynamic KV cache step by step (today's default, any device);
``static`` pre-allocates it for prompt + ``max_tokens`` (no per-step allocation; the same tokens);
``compiled`` is ``static`` plus transformers' ``torch.compile`` of the decode step (CUDA graphs), on a
GPU only: its first call per batch shape compiles, so it pays off on long, repeated generations.
Prompts are left-padded to a multiple of ``PAD_MULTIPLE`` tokens under ``static``/``compiled``, so
prompts of similar length share a cache shape (and a compiled graph).

Seeds: a prompt given a seed draws each token from its own stream (``SeededDraw``), so the same prompt
and seed give the same completion whatever it is batched with (up to the float rounding of the batched
forward, which can flip a token whose uniform lies on a boundary); unseeded prompts draw from the global
RNG inside ``generate``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import torch
from transformers import (
    GenerationConfig,
    LogitsProcessor,
    LogitsProcessorList,
    PreTrainedModel,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from aspen_rl.llm.engine.base import RolloutEngine, WeightsSource
from aspen_rl.llm.types import Generation, SamplingParams

Decode = Literal["eager", "static", "compiled"]
"""How ``generate`` keeps the KV cache: dynamic (eager), pre-allocated (static), or static and compiled."""

PAD_MULTIPLE = 64
"""Under a static cache, prompts are left-padded to a multiple of this many tokens (fewer cache shapes)."""


def _base_model(model: torch.nn.Module) -> Any:  # an HF model: torch's Module typing hides its fields
    get_base = getattr(model, "get_base_model", None)
    return get_base() if callable(get_base) else model


@contextlib.contextmanager
def _neutral_generation_config(model: torch.nn.Module) -> Iterator[None]:
    """Temporarily hide the checkpoint's generation defaults (penalties, top-k...) from ``generate``."""
    base = _base_model(model)
    saved = getattr(base, "generation_config", None)
    base.generation_config = GenerationConfig()
    try:
        yield
    finally:
        base.generation_config = saved


class SampledLogprobs(LogitsProcessor):
    """Last logits processor: records the logprob of each sampled token under the processed scores."""

    def __init__(self) -> None:
        self.steps: list[torch.Tensor] = []
        self._previous: torch.Tensor | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        self._take(input_ids[:, -1])
        self._previous = torch.log_softmax(scores.float(), dim=-1)
        return scores

    def _take(self, sampled: torch.Tensor) -> None:
        if self._previous is not None:
            self.steps.append(self._previous.gather(1, sampled.unsqueeze(1)).squeeze(1).cpu())
            self._previous = None

    def finish(self, sequences: torch.Tensor) -> torch.Tensor:
        """``[batch, new_tokens]`` logprobs, once ``generate`` has returned the full sequences."""
        self._take(sequences[:, -1])
        return torch.stack(self.steps, dim=1)


def inverse_cdf(probs: torch.Tensor, uniform: torch.Tensor) -> torch.Tensor:
    """The token each row of ``probs`` [rows, vocab] gives for its uniform in [0, 1) (float64 sums).

    A token of probability 0 is never returned, even when rounding leaves the target on the total.
    """
    cdf = probs.double().cumsum(dim=-1)
    target = (uniform.double() * cdf[:, -1]).unsqueeze(1)
    drawn = torch.searchsorted(cdf, target, right=True).squeeze(1)
    possible = probs > 0
    last = possible.shape[1] - 1 - possible.flip(1).int().argmax(dim=1)
    return torch.minimum(drawn, last)


class SeededDraw(LogitsProcessor):
    """After ``SampledLogprobs``: draws the next token of each seeded row from that row's own stream.

    Each seeded row's ``steps`` uniforms are drawn up front from a generator seeded with its seed; at
    step t the row's t-th uniform is inverted through its distribution (``inverse_cdf``) and every other
    token of the row set to ``-inf``, so ``generate``'s own draw can only pick it. Unseeded rows are left
    untouched.
    """

    def __init__(self, seeds: list[int | None], steps: int) -> None:
        self.rows = [i for i, seed in enumerate(seeds) if seed is not None]
        streams = [
            torch.rand(steps, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
            for seed in seeds
            if seed is not None
        ]
        self.uniforms = torch.stack(streams) if streams else torch.empty((0, steps), dtype=torch.float64)
        self.step = 0

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if not self.rows:
            return scores
        if self.uniforms.device != scores.device:
            self.uniforms = self.uniforms.to(scores.device)
        rows = torch.tensor(self.rows, device=scores.device)
        drawn = inverse_cdf(torch.softmax(scores[rows].float(), dim=-1), self.uniforms[:, self.step])
        self.step += 1
        out = scores.clone()
        out[rows] = float("-inf")
        out[rows, drawn] = 0.0
        return out  # type: ignore[return-value]  # a FloatTensor by construction


def _warpers(sampling: SamplingParams) -> list[LogitsProcessor]:
    if sampling.temperature <= 0:
        return []
    warpers: list[LogitsProcessor] = []
    if sampling.temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(sampling.temperature))
    if sampling.top_k > 0:
        warpers.append(TopKLogitsWarper(top_k=sampling.top_k))
    if sampling.top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p=sampling.top_p))
    return warpers


class TransformersEngine(RolloutEngine):
    """``model.generate`` behind the ``RolloutEngine`` contract; batched with left padding.

    Args:
        model: A causal LM (a peft model works too: the adapter is active while sampling). It may be the
            trainer's own model object, then ``update_weights`` with that object is free.
        tokenizer: Optional; gives the default stop token (eos) and the pad id.
        pad_token_id: Pad id for left padding (default: tokenizer's pad, else eos, else 0).
        max_batch_size: Prompts per ``generate`` call.
        decode: ``eager``, ``static`` or ``compiled`` (see the module docstring).

    Raises:
        ValueError: ``compiled`` on a model that is not on a CUDA device.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer: Any = None,
        *,
        pad_token_id: int | None = None,
        max_batch_size: int = 64,
        decode: Decode = "eager",
    ) -> None:
        super().__init__()
        self.model = model
        self.decode = decode
        if decode == "compiled" and self.device.type != "cuda":
            raise ValueError(
                f"decode 'compiled' needs the model on a CUDA GPU, it is on {self.device.type}: "
                "use 'static' or 'eager' here"
            )
        self._tokenizer = tokenizer
        self.max_batch_size = max_batch_size
        if pad_token_id is None and tokenizer is not None:
            pad_token_id = (
                tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
            )
        self.pad_token_id = int(pad_token_id) if pad_token_id is not None else 0

    @classmethod
    def from_pretrained(
        cls, path: str | Path, *, dtype: torch.dtype = torch.float32, device: str = "cpu", **kwargs: Any
    ) -> TransformersEngine:
        """Load model and tokenizer from a local directory or hub id."""
        from transformers import AutoModelForCausalLM

        from aspen_rl.llm.tokenizer_files import load_tokenizer

        tokenizer = load_tokenizer(path)
        model = AutoModelForCausalLM.from_pretrained(str(path), dtype=dtype).to(device)  # type: ignore[arg-type]  # transformers types .to() through a wrapper mypy misreads
        return cls(model, tokenizer, **kwargs)

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _generation_config(self, sampling: SamplingParams, stop_ids: tuple[int, ...]) -> GenerationConfig:
        # temperature/top-k/top-p are neutral here: our own warpers apply them (see ``_warpers``)
        return GenerationConfig(
            do_sample=sampling.temperature > 0,
            temperature=1.0,
            top_p=1.0,
            top_k=0,
            max_new_tokens=sampling.max_tokens,
            eos_token_id=list(stop_ids) if stop_ids else None,
            pad_token_id=self.pad_token_id,
            return_dict_in_generate=True,
            use_cache=True,
            cache_implementation=None if self.decode == "eager" else "static",
            disable_compile=self.decode != "compiled",
        )

    def _generate(
        self, prompts: list[list[int]], sampling: SamplingParams, seeds: list[int | None]
    ) -> list[Generation]:
        stop_ids = sampling.stop_ids(self.stop_token_ids)
        results: list[Generation] = []
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.inference_mode(), _neutral_generation_config(self.model):
                config = self._generation_config(sampling, stop_ids)
                for start in range(0, len(prompts), self.max_batch_size):
                    end = start + self.max_batch_size
                    results.extend(
                        self._generate_chunk(prompts[start:end], seeds[start:end], config, sampling, stop_ids)
                    )
        finally:
            self.model.train(was_training)
        return results

    def _generate_chunk(
        self,
        prompts: list[list[int]],
        seeds: list[int | None],
        config: GenerationConfig,
        sampling: SamplingParams,
        stop_ids: tuple[int, ...],
    ) -> list[Generation]:
        width = max(len(p) for p in prompts)
        if self.decode != "eager":
            width = -(-width // PAD_MULTIPLE) * PAD_MULTIPLE
        ids = torch.full((len(prompts), width), self.pad_token_id, dtype=torch.long)
        attention = torch.zeros((len(prompts), width), dtype=torch.long)
        for i, prompt in enumerate(prompts):
            ids[i, width - len(prompt) :] = torch.tensor(prompt, dtype=torch.long)
            attention[i, width - len(prompt) :] = 1
        recorder = SampledLogprobs()
        seeded = sampling.temperature > 0 and any(s is not None for s in seeds)
        draw = [SeededDraw(seeds, sampling.max_tokens)] if seeded else []
        out = self.model.generate(  # type: ignore[operator]  # an HF/PEFT model method; torch types Module attributes as Tensor | Module
            input_ids=ids.to(self.device),
            attention_mask=attention.to(self.device),
            generation_config=config,
            logits_processor=LogitsProcessorList([*_warpers(sampling), recorder, *draw]),
        )
        new_tokens = out.sequences[:, width:].cpu()
        picked = recorder.finish(out.sequences)
        stops = set(stop_ids)
        generations = []
        for i, prompt in enumerate(prompts):
            tokens = new_tokens[i].tolist()
            end, finish = len(tokens), "length"
            for t, tok in enumerate(tokens):
                if tok in stops:
                    end, finish = t + 1, "stop"
                    break
            generations.append(Generation(list(prompt), tokens[:end], picked[i, :end].tolist(), finish))
        return generations

    def _update_weights(self, source: WeightsSource) -> None:
        if source is self.model:
            return
        if isinstance(source, str | Path):
            self._load_adapter(Path(source))
            return
        state = source.state_dict() if isinstance(source, torch.nn.Module) else source
        self._load_state(state)

    def _load_state(self, state: Mapping[str, torch.Tensor]) -> None:
        target = _base_model(self.model) if not hasattr(self.model, "peft_config") else self.model
        missing, unexpected = target.load_state_dict(dict(state), strict=False)
        if unexpected:
            raise ValueError(f"weights do not fit the engine's model: unexpected keys {unexpected[:5]}")
        loaded = set(state)
        if not loaded or len(missing) == len(list(target.state_dict())):
            raise ValueError("no weight of the engine's model was updated")

    def _load_adapter(self, path: Path) -> None:
        from peft import PeftModel, set_peft_model_state_dict
        from peft.utils import load_peft_weights

        if isinstance(self.model, PeftModel):
            set_peft_model_state_dict(self.model, load_peft_weights(str(path)))
        elif isinstance(self.model, PreTrainedModel):
            from aspen_rl.llm.loading import quiet_peft

            with quiet_peft():
                self.model = PeftModel.from_pretrained(self.model, str(path))
        else:
            raise TypeError(f"cannot load a LoRA adapter into {type(self.model).__name__}")

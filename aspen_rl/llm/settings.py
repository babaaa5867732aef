"""The local model's own settings: weights dtype, LoRA adapters, the vLLM engine, and what loading reads.

GRPO's and SFT's configs carry these (``lora:``, ``vllm:``, ``dtype:``, flat ``model`` / ``device`` keys), so
their YAML files stay as they are; the functions of this package read them through the protocols below,
never through an algorithm's config class.
"""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

DType = Literal["auto", "float32", "bfloat16", "float16"]
"""Weights dtype; 'auto' is bfloat16 on a GPU that supports it, else float32."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class LoRASettings(_Section):
    """Low-rank adapters (peft) instead of full-weight training."""

    enabled: bool = Field(
        True, description="Train LoRA adapters (true) or all weights of the policy (false)."
    )
    r: int = Field(16, gt=0, description="Adapter rank.")
    alpha: int = Field(32, gt=0, description="LoRA scaling numerator (scale = alpha / r).")
    dropout: float = Field(
        0.0,
        ge=0.0,
        lt=1.0,
        description="Dropout on the adapter input; must be 0: the update needs the engine's exact logprobs.",
    )
    target_modules: str | list[str] = Field(
        "all-linear", description="Modules that get adapters: a list of names or peft's 'all-linear'."
    )

    @model_validator(mode="after")
    def _no_dropout(self) -> LoRASettings:
        if self.dropout > 0:
            raise ValueError(
                f"lora.dropout={self.dropout} is not supported: GRPO's ratio and importance weights need the "
                "trainer's logprobs to equal the engine's, and dropout makes training forwards random; use 0"
            )
        return self


class VLLMSettings(_Section):
    """Options of the vLLM rollout engine (GPU only)."""

    gpu_memory_utilization: float = Field(
        0.45, gt=0.0, le=1.0, description="Share of GPU memory vLLM may take (the trainer shares the GPU)."
    )
    max_model_len: int | None = Field(
        None, description="Context length vLLM reserves KV cache for (None: model's)."
    )
    logprobs_mode: str | None = Field(
        "processed_logprobs",
        description="vLLM's logprobs_mode: 'processed_logprobs' gives logprobs after temperature/top-p, "
        "i.e. under the sampling distribution (vLLM's own default 'raw_logprobs' ignores temperature); "
        "null: not passed (vLLM versions without the option).",
    )
    max_lora_rank: int = Field(64, gt=0, description="Largest adapter rank vLLM is prepared to hot-load.")
    enforce_eager: bool = Field(False, description="Disable CUDA graphs (slower, less memory, faster start).")


class ModelSource(Protocol):
    """Where a model and its tokenizer come from and where they go (read by ``loading.load_model``)."""

    @property
    def model(self) -> str: ...
    @property
    def tokenizer(self) -> str | None: ...
    @property
    def chat_template(self) -> str | None: ...
    @property
    def device(self) -> str: ...
    @property
    def dtype(self) -> DType: ...


class TrainingSource(ModelSource, Protocol):
    """What ``loading.model_to_train`` reads besides the model's source: adapters and checkpointing."""

    @property
    def lora(self) -> LoRASettings: ...
    @property
    def gradient_checkpointing(self) -> bool: ...


class EngineConfig(ModelSource, Protocol):
    """What ``engine.build_engine`` reads: the engine's name, the model, its adapters and vLLM's options."""

    @property
    def engine(self) -> Literal["transformers", "vllm"]: ...
    @property
    def seed(self) -> int: ...
    @property
    def cpu_threads(self) -> int: ...
    @property
    def lora(self) -> LoRASettings: ...
    @property
    def vllm(self) -> VLLMSettings: ...
    @property
    def server_max_batch(self) -> int: ...
    @property
    def decode(self) -> Literal["eager", "static", "compiled"]: ...


class ServerConfig(Protocol):
    """What ``ChatCompletionServer.from_config`` reads: sampling, limits, the served name and the address."""

    @property
    def max_response_tokens(self) -> int: ...
    @property
    def temperature(self) -> float: ...
    @property
    def top_p(self) -> float: ...
    @property
    def top_k(self) -> int: ...
    @property
    def served_model_name(self) -> str: ...
    @property
    def max_prompt_tokens(self) -> int: ...
    @property
    def server_max_batch(self) -> int: ...
    @property
    def server_batch_wait_ms(self) -> float: ...
    @property
    def server_host(self) -> str: ...
    @property
    def server_port(self) -> int: ...
    @property
    def chat_template(self) -> str | None: ...

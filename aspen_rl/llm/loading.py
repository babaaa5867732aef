"""Load the policy and tokenizer, pick device and dtype, wrap LoRA adapters, switch dropout off."""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator
from typing import Any

import torch

from aspen_rl.llm.chat_template import prepare_tokenizer
from aspen_rl.llm.settings import LoRASettings, ModelSource, TrainingSource

_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def resolve_device(device: str) -> torch.device:
    """'auto' is cuda when available, else cpu."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def cpu_thread_count(setting: int = 0) -> int:
    """Threads for torch's CPU work: ``setting`` when > 0, else the usable cores minus one (at least 1).

    On a shared CPU, more threads than free cores is slower, not faster (decoding measured 3.9 tok/s
    with 1 thread and 1.0 with 2 on a busy 2-core machine), and the simulator and the agent runners
    need a core too.
    """
    if setting > 0:
        return setting
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


def set_cpu_threads(setting: int = 0) -> int:
    """Apply ``cpu_thread_count(setting)`` with ``torch.set_num_threads`` (process-wide); returns it."""
    threads = cpu_thread_count(setting)
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads


def resolve_dtype(dtype: str, device: torch.device) -> torch.dtype:
    """'auto' is bfloat16 on a GPU that supports it, else float32."""
    if dtype != "auto":
        return _DTYPES[dtype]
    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float32


def is_peft_model(model: torch.nn.Module) -> bool:
    """Whether the model carries peft adapters."""
    return hasattr(model, "peft_config") and hasattr(model, "disable_adapter")


_DROPOUT_RATES = ("attention_dropout", "dropout", "attn_dropout", "hidden_dropout")
"""Float rates that modules pass to functional dropout in train mode (Qwen2, Llama: attention_dropout)."""


def disable_dropout(model: torch.nn.Module) -> None:
    """Set every dropout to 0: the ratio and the engine/trainer logprob match need deterministic forwards.

    Covers ``nn.Dropout`` modules (peft's adapter dropout included: call it after wrapping) and the float
    rates attention modules pass to functional dropout in train mode.
    """
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
        for name in _DROPOUT_RATES:
            value = getattr(module, name, None)
            if isinstance(value, float) and not isinstance(value, bool) and value > 0:
                setattr(module, name, 0.0)


@contextlib.contextmanager
def quiet_peft() -> Iterator[None]:
    """Silence peft 0.21's call of transformers' deprecated ``is_gradient_checkpointing``."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
        yield


def apply_lora(model: torch.nn.Module, settings: LoRASettings) -> torch.nn.Module:
    """Wrap a causal LM with trainable LoRA adapters (base weights frozen)."""
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=settings.target_modules,
        task_type="CAUSAL_LM",
    )
    with quiet_peft():
        return get_peft_model(model, lora)


def model_to_train(
    config: TrainingSource, model: torch.nn.Module | None = None, tokenizer: Any = None
) -> tuple[torch.nn.Module, Any, torch.device]:
    """The model to train (the peft wrapper under LoRA), its tokenizer and its device.

    ``model`` and ``tokenizer`` default to those ``load_model(config)`` loads. The model is moved to
    ``config.device``; LoRA adapters are added when ``config.lora.enabled`` (unless it has some), dropout is
    switched off (after wrapping: adapters bring their own dropout modules), activations are recomputed in
    the backward pass when ``config.gradient_checkpointing``.
    """
    if model is None:
        model, loaded = load_model(config)
        tokenizer = tokenizer if tokenizer is not None else loaded
    device = resolve_device(config.device)
    model.to(device)
    if config.lora.enabled and not is_peft_model(model):
        model = apply_lora(model, config.lora)
    disable_dropout(model)
    if config.gradient_checkpointing:
        model.gradient_checkpointing_enable()  # type: ignore[operator]  # an HF/PEFT method; torch types Module attributes as Tensor | Module
        if is_peft_model(model):
            model.enable_input_require_grads()  # type: ignore[operator]  # an HF/PEFT method; torch types Module attributes as Tensor | Module
    return model, tokenizer, device


def load_model(config: ModelSource) -> tuple[torch.nn.Module, Any]:
    """Load a model (on the configured device and dtype) and its tokenizer: GRPO's policy, SFT's base.

    ``config.model`` is a local directory or a hub id; only real runs name a hub id. The tokenizer gets
    ``config.chat_template`` when set, and must render tools (``chat_template.check_renders_tools``).

    Raises:
        ChatTemplateError: the template drops the agent's tools.
    """
    from transformers import AutoModelForCausalLM

    from aspen_rl.llm.tokenizer_files import load_tokenizer

    device = resolve_device(config.device)
    dtype = resolve_dtype(config.dtype, device)
    source = config.tokenizer or config.model
    tokenizer = prepare_tokenizer(load_tokenizer(source), config.chat_template, where=source)
    model = AutoModelForCausalLM.from_pretrained(config.model, dtype=dtype).to(device)  # type: ignore[arg-type]  # transformers types .to() through a wrapper mypy misreads
    return model, tokenizer

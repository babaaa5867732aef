"""Making a loaded policy trainable, as GRPO and SFT both do: on its device, LoRA-wrapped, no dropout."""

from __future__ import annotations

import torch

from aspen_rl.algorithms.grpo.config import LoRASettings
from aspen_rl.algorithms.grpo.model import apply_lora, disable_dropout, is_peft_model


def make_trainable(
    model: torch.nn.Module, device: torch.device, lora: LoRASettings, *, gradient_checkpointing: bool
) -> torch.nn.Module:
    """``model`` on ``device``, wrapped with LoRA adapters when ``lora.enabled`` (and not wrapped yet),
    dropout off (after wrapping: adapters bring their own dropout modules), activations recomputed in the
    backward pass when ``gradient_checkpointing``."""
    model.to(device)
    if lora.enabled and not is_peft_model(model):
        model = apply_lora(model, lora)
    disable_dropout(model)
    if gradient_checkpointing:
        model.gradient_checkpointing_enable()  # type: ignore[operator]  # an HF/PEFT model method; torch types Module attributes as Tensor | Module
        if is_peft_model(model):
            model.enable_input_require_grads()  # type: ignore[operator]  # an HF/PEFT model method; torch types Module attributes as Tensor | Module
    return model

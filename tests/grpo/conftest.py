"""Fixtures for the GRPO tests: a tiny local chat model and tokenizer (nothing is downloaded)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.llm.tiny_bytes import build_tiny_model, build_tiny_tokenizer


@pytest.fixture(scope="session")
def tokenizer() -> Any:
    """Byte-level tokenizer (vocab 261) with a Qwen2.5-style chat template."""
    return build_tiny_tokenizer()


@pytest.fixture
def chat_model(tokenizer: Any) -> torch.nn.Module:
    """A fresh random 2-layer Qwen2 model over the tiny tokenizer."""
    return build_tiny_model(len(tokenizer), seed=0)


@pytest.fixture
def cpu_config(tmp_path: Any) -> GRPOConfig:
    """A CPU, full-weights config writing under tmp_path."""
    return GRPOConfig(
        model="tiny",
        device="cpu",
        lora={"enabled": False},
        learning_rate=1e-3,
        checkpoint_dir=str(tmp_path / "models"),
        run_name="test",
        tensorboard=False,
    )

"""Fixtures for the GRPO tests: a tiny local chat model and tokenizer (nothing is downloaded)."""

from __future__ import annotations

from typing import Any

import pytest
from _support.tiny_model import chat_model, tokenizer

from aspen_rl.algorithms.grpo.config import GRPOConfig

__all__ = ["chat_model", "cpu_config", "tokenizer"]


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

"""Fixtures of a tiny local chat model and tokenizer (nothing downloaded) for the GRPO and local-LLM tests."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from aspen_rl.llm.tiny_bytes import build_tiny_model, build_tiny_tokenizer


@pytest.fixture(scope="session")
def tokenizer() -> Any:
    """Byte-level tokenizer (vocab 261) with a Qwen2.5-style chat template."""
    return build_tiny_tokenizer()


@pytest.fixture
def chat_model(tokenizer: Any) -> torch.nn.Module:
    """A fresh random 2-layer Qwen2 model over the tiny tokenizer."""
    return build_tiny_model(len(tokenizer), seed=0)

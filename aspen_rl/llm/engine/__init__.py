"""Rollout engines: the contract, plain transformers generation, and vLLM (imported lazily)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl._lazy import lazy_exports
from aspen_rl.llm.engine.base import RolloutEngine, WeightsSource
from aspen_rl.llm.engine.factory import build_engine
from aspen_rl.llm.engine.transformers_engine import TransformersEngine

if TYPE_CHECKING:
    from aspen_rl.llm.engine.vllm_engine import VLLMEngine

__all__ = ["RolloutEngine", "TransformersEngine", "VLLMEngine", "WeightsSource", "build_engine"]

__getattr__, __dir__ = lazy_exports(__name__, {"VLLMEngine": ".vllm_engine"})

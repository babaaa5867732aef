"""Multi-turn GRPO: rollout engines, a recording OpenAI endpoint, trajectory rows, loss, trainer.

The names below are loaded on first use: ``import aspen_rl.algorithms.grpo.config`` (or this package)
does not import torch or transformers; ``from aspen_rl.algorithms.grpo import GRPOTrainer`` does.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aspen_rl.algorithms.grpo.advantages import GroupAdvantages, group_advantages
    from aspen_rl.algorithms.grpo.checkpoint import latest_checkpoint
    from aspen_rl.algorithms.grpo.config import (
        GRPOConfig,
        GRPOConfigError,
        LoRASettings,
        VLLMSettings,
        load_grpo_config,
    )
    from aspen_rl.algorithms.grpo.engine import RolloutEngine, TransformersEngine, build_engine
    from aspen_rl.algorithms.grpo.metrics import MetricsSink
    from aspen_rl.algorithms.grpo.records import CallRecorder
    from aspen_rl.algorithms.grpo.server import ChatCompletionServer
    from aspen_rl.algorithms.grpo.tool_calls import ParsedMessage, ToolCall, parse_tool_calls
    from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
    from aspen_rl.algorithms.grpo.trajectory import RowsBuild, build_rows, sample_from_records
    from aspen_rl.algorithms.grpo.types import (
        CallRecord,
        Generation,
        RolloutSample,
        SamplingParams,
        TrajectoryRow,
    )

_LAZY = {
    "GroupAdvantages": "advantages",
    "group_advantages": "advantages",
    "latest_checkpoint": "checkpoint",
    "GRPOConfig": "config",
    "GRPOConfigError": "config",
    "LoRASettings": "config",
    "VLLMSettings": "config",
    "load_grpo_config": "config",
    "RolloutEngine": "engine",
    "TransformersEngine": "engine",
    "build_engine": "engine",
    "MetricsSink": "metrics",
    "CallRecorder": "records",
    "ChatCompletionServer": "server",
    "ParsedMessage": "tool_calls",
    "ToolCall": "tool_calls",
    "parse_tool_calls": "tool_calls",
    "GRPOTrainer": "trainer",
    "RowsBuild": "trajectory",
    "build_rows": "trajectory",
    "sample_from_records": "trajectory",
    "CallRecord": "types",
    "Generation": "types",
    "RolloutSample": "types",
    "SamplingParams": "types",
    "TrajectoryRow": "types",
}
"""Public name -> the submodule (of this package) that defines it."""

__all__ = [
    "CallRecord",
    "CallRecorder",
    "ChatCompletionServer",
    "GRPOConfig",
    "GRPOConfigError",
    "GRPOTrainer",
    "Generation",
    "GroupAdvantages",
    "LoRASettings",
    "MetricsSink",
    "ParsedMessage",
    "RolloutEngine",
    "RolloutSample",
    "RowsBuild",
    "SamplingParams",
    "ToolCall",
    "TrajectoryRow",
    "TransformersEngine",
    "VLLMSettings",
    "build_engine",
    "build_rows",
    "group_advantages",
    "latest_checkpoint",
    "load_grpo_config",
    "parse_tool_calls",
    "sample_from_records",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

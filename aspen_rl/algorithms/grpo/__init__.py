"""Multi-turn GRPO: rollout engines, a recording OpenAI endpoint, trajectory rows, loss, trainer.

The names below are loaded on first use: ``import aspen_rl.algorithms.grpo.config`` (or this package)
does not import torch or transformers; ``from aspen_rl.algorithms.grpo import GRPOTrainer`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl._lazy import lazy_exports

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
    from aspen_rl.algorithms.grpo.tool_calls import ParsedMessage, ParsedToolCall, parse_tool_calls
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
    "GroupAdvantages": ".advantages",
    "group_advantages": ".advantages",
    "latest_checkpoint": ".checkpoint",
    "GRPOConfig": ".config",
    "GRPOConfigError": ".config",
    "LoRASettings": ".config",
    "VLLMSettings": ".config",
    "load_grpo_config": ".config",
    "RolloutEngine": ".engine",
    "TransformersEngine": ".engine",
    "build_engine": ".engine",
    "MetricsSink": ".metrics",
    "CallRecorder": ".records",
    "ChatCompletionServer": ".server",
    "ParsedMessage": ".tool_calls",
    "ParsedToolCall": ".tool_calls",
    "parse_tool_calls": ".tool_calls",
    "GRPOTrainer": ".trainer",
    "RowsBuild": ".trajectory",
    "build_rows": ".trajectory",
    "sample_from_records": ".trajectory",
    "CallRecord": ".types",
    "Generation": ".types",
    "RolloutSample": ".types",
    "SamplingParams": ".types",
    "TrajectoryRow": ".types",
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
    "ParsedToolCall",
    "RolloutEngine",
    "RolloutSample",
    "RowsBuild",
    "SamplingParams",
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

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

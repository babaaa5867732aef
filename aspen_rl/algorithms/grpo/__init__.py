"""Multi-turn GRPO: rollout engines, a recording OpenAI endpoint, trajectory rows, loss, trainer."""

from __future__ import annotations

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
from aspen_rl.algorithms.grpo.trajectory import RowsBuild, build_rows
from aspen_rl.algorithms.grpo.types import (
    CallRecord,
    Generation,
    RolloutSample,
    SamplingParams,
    TrajectoryRow,
)

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
]

"""The local LLM: loading, chat templates, engines, the OpenAI-compatible server, tool calls, tiny models.

GRPO, SFT, ``train --model PATH`` and ``python -m aspen_rl.llm.serve`` all use it; it imports no algorithm.
The names below are loaded on first use: ``import aspen_rl.llm`` (or ``aspen_rl.llm.settings``) does not
import torch or transformers; ``from aspen_rl.llm import ChatCompletionServer`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl._lazy import lazy_exports

if TYPE_CHECKING:
    from aspen_rl.llm.call_recorder import CallRecorder
    from aspen_rl.llm.chat_server import ChatCompletionServer
    from aspen_rl.llm.engine import RolloutEngine, TransformersEngine, build_engine
    from aspen_rl.llm.loading import load_model
    from aspen_rl.llm.settings import DType, LoRASettings, VLLMSettings
    from aspen_rl.llm.tool_calls import ParsedMessage, ParsedToolCall, parse_tool_calls
    from aspen_rl.llm.trajectory import RowsBuild, build_rows, sample_from_records
    from aspen_rl.llm.types import CallRecord, Generation, RolloutSample, SamplingParams, TrajectoryRow

_LAZY = {
    "CallRecorder": ".call_recorder",
    "ChatCompletionServer": ".chat_server",
    "RolloutEngine": ".engine",
    "TransformersEngine": ".engine",
    "build_engine": ".engine",
    "load_model": ".loading",
    "DType": ".settings",
    "LoRASettings": ".settings",
    "VLLMSettings": ".settings",
    "ParsedMessage": ".tool_calls",
    "ParsedToolCall": ".tool_calls",
    "parse_tool_calls": ".tool_calls",
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
    "DType",
    "Generation",
    "LoRASettings",
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
    "load_model",
    "parse_tool_calls",
    "sample_from_records",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

"""aspen_rl: train LLM agents that drive chemical process simulators, with Microsoft Agent Lightning."""

from __future__ import annotations

import os

from aspen_rl._lazy import lazy_exports

# Agent Lightning imports litellm, which otherwise tries to fetch a model-cost map from the network
# and logs its proxy's start-up chatter at INFO on the console.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOG", "ERROR")

__version__ = "0.1.0"

# Light, lazy re-exports: importing aspen_rl must not import agentlightning or autogen.
_LAZY = {
    "AspenTask": "aspen_rl.tasks",
    "Difficulty": "aspen_rl.tasks",
    "Target": "aspen_rl.tasks",
    "load_tasks": "aspen_rl.tasks",
    "load_split": "aspen_rl.tasks",
    "Settings": "aspen_rl.settings",
    "load_settings": "aspen_rl.settings",
    "SimulatorClient": "aspen_rl.simulator",
    "RunTrace": "aspen_rl.trace",
    "RecordedToolCall": "aspen_rl.trace",
    "ToolCall": "aspen_rl.trace",
    "build_tools": "aspen_rl.tools",
    "RewardWeights": "aspen_rl.reward",
    "RewardBreakdown": "aspen_rl.reward",
    "compute_reward": "aspen_rl.reward",
    "AspenLitAgent": "aspen_rl.agent",
}

__all__ = ["__version__", *_LAZY]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

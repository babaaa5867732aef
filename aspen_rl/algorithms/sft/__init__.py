"""Supervised warm start on simulator-verified demonstrations (GRPO's masks, GRPO-loadable checkpoints)."""

from __future__ import annotations

from aspen_rl.algorithms.sft.config import SFTConfig, SFTConfigError, load_sft_config

__all__ = ["SFTConfig", "SFTConfigError", "load_sft_config"]

"""CPU threads come from ``GRPOConfig.cpu_threads`` (0: usable cores minus one) for engine and update."""

from __future__ import annotations

import os
from typing import Any

import torch

from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
from aspen_rl.llm.engine import build_engine
from aspen_rl.llm.loading import cpu_thread_count
from aspen_rl.llm.tiny_bytes import build_tiny_model


def test_thread_count_default_and_setting() -> None:
    assert cpu_thread_count(3) == 3
    assert cpu_thread_count(0) == max(1, len(os.sched_getaffinity(0)) - 1)
    assert GRPOConfig().cpu_threads == 0


def test_trainer_and_engine_apply_the_setting(tokenizer: Any, cpu_config: GRPOConfig) -> None:
    before = torch.get_num_threads()
    try:
        GRPOTrainer(cpu_config.replace(cpu_threads=1), model=build_tiny_model(len(tokenizer)))
        assert torch.get_num_threads() == 1
        build_engine(
            cpu_config.replace(cpu_threads=2), model=build_tiny_model(len(tokenizer)), tokenizer=tokenizer
        )
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)

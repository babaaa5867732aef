"""The package imports light: the core modules never pull in Agent Lightning or AutoGen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_core_imports_are_light() -> None:
    code = (
        "import sys, aspen_rl, aspen_rl.settings, aspen_rl.tasks, aspen_rl.simulator, aspen_rl.trace, "
        "aspen_rl.tools, aspen_rl.reward\n"
        "heavy = [m for m in ('agentlightning', 'autogen_agentchat', 'autogen_core', 'torch', 'litellm') "
        "if m in sys.modules]\n"
        "print(','.join(heavy))\n"
        "assert aspen_rl.load_settings is aspen_rl.settings.load_settings\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_trace_reward_and_tasks_do_not_import_the_http_client() -> None:
    code = (
        "import sys, aspen_rl.trace, aspen_rl.reward, aspen_rl.tasks.model, aspen_rl.contract\n"
        "print(','.join(m for m in ('aspen_rl.simulator', 'aspen_rl.simulator.client', 'httpx') "
        "if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_grpo_config_settings_tasks_and_reward_leave_torch_and_transformers_out() -> None:
    """A config import (to validate ``configs/grpo.yaml``, to build a CLI) never pays for torch (17-20 s)."""
    code = (
        "import sys, aspen_rl.algorithms.grpo.config, aspen_rl.settings, aspen_rl.tasks, aspen_rl.reward\n"
        "print(','.join(m for m in ('torch', 'transformers') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""

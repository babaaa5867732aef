"""The package imports light: each layer leaves the heavier ones out (one interpreter, staged checks)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# (what is imported, what must still be absent afterwards). The stages run in one fresh interpreter, lightest
# first: each stage's imports add to the previous ones', so a heavy module a stage pulls in shows up at that
# stage. One interpreter instead of one per check: each costs a Python start and the imports (2-8 s loaded).
STAGES: list[tuple[str, list[str]]] = [
    (
        "import aspen_rl.trace, aspen_rl.reward, aspen_rl.tasks.model, aspen_rl.contract",
        ["aspen_rl.simulator", "aspen_rl.simulator.client", "httpx"],
    ),
    (
        # a config import (to validate configs/grpo.yaml, to build a CLI, the --resume preflight's
        # check_resumable) never pays for torch (17-20 s)
        "import aspen_rl.algorithms.grpo.config, aspen_rl.settings, aspen_rl.tasks, aspen_rl.reward, "
        "aspen_rl.algorithms.grpo, aspen_rl.algorithms.grpo.resume, aspen_rl.llm, aspen_rl.llm.settings",
        ["torch", "transformers", "peft"],
    ),
    (
        "import aspen_rl, aspen_rl.settings, aspen_rl.tasks, aspen_rl.simulator, aspen_rl.trace, "
        "aspen_rl.tools, aspen_rl.reward",
        ["agentlightning", "autogen_agentchat", "autogen_core", "torch", "litellm"],
    ),
    (
        # what a custom algorithm needs, without loading Agent Lightning
        "import aspen_rl.algorithms, aspen_rl.algorithms.registry, aspen_rl.cli",
        ["agentlightning", "torch"],
    ),
]

SCRIPT = """
import json, sys
stages = json.loads(sys.argv[1])
found = []
for code, absent in stages:
    exec(code)
    found.append(sorted(m for m in absent if m in sys.modules))
import aspen_rl, aspen_rl.settings, aspen_rl.algorithms.grpo as grpo
print(json.dumps({
    "heavy": found,
    "load_settings": aspen_rl.load_settings is aspen_rl.settings.load_settings,
    "grpo_exports_trainer": "GRPOTrainer" in dir(grpo),
}))
"""

# The packages whose public names load on first use (a module-level __getattr__).
LAZY_PACKAGES = [
    "aspen_rl",
    "aspen_rl.reward",
    "aspen_rl.algorithms",
    "aspen_rl.algorithms.prompt_opt",
    "aspen_rl.algorithms.grpo",
    "aspen_rl.llm",
    "aspen_rl.llm.engine",
]


def test_each_layer_leaves_the_heavier_ones_out() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(STAGES)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    for (code, _), heavy in zip(STAGES, seen["heavy"], strict=True):
        assert heavy == [], f"{code!r} loaded {heavy}"
    assert seen["load_settings"] and seen["grpo_exports_trainer"]


def test_every_lazily_exported_name_resolves() -> None:
    """In this process (what the subprocess above must not load may be loaded here): each name of each lazy
    package's ``__all__`` resolves, so a stale entry in a lazy table fails here, not in a user's import."""
    import importlib

    for name in LAZY_PACKAGES:
        package = importlib.import_module(name)
        missing = [n for n in package.__all__ if getattr(package, n, None) is None]
        assert missing == [], f"{name} exports {missing} but they do not resolve"
    from aspen_rl.algorithms import RolloutRecord, publish, register_algorithm, run_tasks

    assert all(callable(x) for x in (RolloutRecord, publish, register_algorithm, run_tasks))

"""How the CLI runs supervised fine-tuning (``--algorithm sft``): no store, services or rollouts."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from aspen_rl.algorithms.base import AlgorithmSpec, BuildContext, usage_errors
from aspen_rl.errors import UsageError

if TYPE_CHECKING:
    from agentlightning import Algorithm
    from rich.console import Console

    from aspen_rl.algorithms.sft.config import SFTConfig


def sft_config_from_args(args: argparse.Namespace) -> SFTConfig:
    """The run's config: ``--config`` (default configs/sft.yaml), overridden by --model, --seed, --output-dir.

    Raises:
        SFTConfigError: invalid values or keys (a ``ValueError``).
        FileNotFoundError: the config file is missing.
    """
    from aspen_rl.algorithms.sft.config import DEFAULT_CONFIG_PATH, load_sft_config

    overrides: dict[str, Any] = {"seed": args.seed}
    if args.model:
        overrides["model"] = args.model
    if args.output_dir:
        overrides.update(output_dir=str(args.output_dir.parent), run_name=args.output_dir.name)
    return load_sft_config(args.config or DEFAULT_CONFIG_PATH, **overrides)


def run_sft_cli(args: argparse.Namespace, console: Console) -> int:
    """Check before any work, train, save; says where the checkpoint went and how GRPO starts from it."""
    from aspen_rl.algorithms.sft.algorithm import run_sft

    with usage_errors("--algorithm sft: "):  # SFTConfigError, SFTPreflightError are ValueErrors
        path = run_sft(sft_config_from_args(args), resume=args.resume, console=console, log_file=True)
    console.print(f"SFT checkpoint written to {path} (start GRPO from it: --algorithm grpo --model {path})")
    return 0


def _not_in_a_rollout_loop(ctx: BuildContext) -> Algorithm:
    raise UsageError(
        "--algorithm sft runs on its own (python -m aspen_rl.train --algorithm sft), not in a rollout loop"
    )


SFT = AlgorithmSpec(
    "sft",
    _not_in_a_rollout_loop,
    help="supervised fine-tuning on recorded demonstrations (configs/sft.yaml), no rollouts",
    trains_weights=True,
    standalone=True,
    run=run_sft_cli,
)

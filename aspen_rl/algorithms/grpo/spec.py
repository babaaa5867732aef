"""How the CLI checks and builds GRPO (``--algorithm grpo``): the spec in the registry's table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl.algorithms.base import AlgorithmSpec, BuildContext, usage_errors
from aspen_rl.algorithms.grpo.preflight import preflight_grpo
from aspen_rl.errors import UsageError

if TYPE_CHECKING:
    from aspen_rl.algorithms.grpo.algorithm import GRPOAlgorithm


def build_grpo(ctx: BuildContext) -> GRPOAlgorithm:
    """:class:`GRPOAlgorithm` from the settings and flags (the config the preflight checked)."""
    if ctx.report is None:
        raise UsageError("--algorithm grpo writes checkpoints beside a run report, and this run has none")
    from aspen_rl.algorithms.grpo.algorithm import GRPOAlgorithm

    with usage_errors("--algorithm grpo: "):  # GRPOConfigError is a ValueError
        algorithm = GRPOAlgorithm.from_settings(
            ctx.settings,
            ctx.resources,
            ctx.report,
            model=ctx.args.model,
            group_size=ctx.args.repeats,
            seed=ctx.args.seed,
            resume=ctx.args.resume,
            test_dataset=ctx.splits.test if ctx.splits is not None else None,
        )
    return algorithm


GRPO = AlgorithmSpec(
    "grpo",
    build_grpo,
    help="GRPO weight training of a local model (configs/grpo.yaml)",
    trains_weights=True,
    min_repeats=2,
    preflight=preflight_grpo,
)

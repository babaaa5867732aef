"""How the CLI checks and builds Agent Lightning's VERL trainer (``--algorithm verl``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl.algorithms.base import AlgorithmSpec, BuildContext, usage_errors

if TYPE_CHECKING:
    from agentlightning import Algorithm


def preflight_verl(ctx: BuildContext) -> None:
    """verl, Ray, Hydra and a CUDA GPU are here and the config (the one the build uses) is valid, or the run
    stops before any service starts."""
    from aspen_rl.algorithms.verl.config import VerlUnavailableError, ensure_verl_available

    with usage_errors(kinds=(VerlUnavailableError,)):
        ensure_verl_available()
    from aspen_rl.algorithms.verl.algorithm import verl_config_from_settings

    with usage_errors():  # VerlConfigError is a ValueError
        verl_config_from_settings(ctx.settings, model=ctx.args.model, group_size=ctx.args.repeats)


def build_verl(ctx: BuildContext) -> Algorithm:
    """``configs/verl.yaml`` + the ``algorithms.verl`` section + ``--model`` / ``--repeats``, checked."""
    from aspen_rl.algorithms.verl.algorithm import build_verl as build
    from aspen_rl.algorithms.verl.config import VerlUnavailableError

    refused = (VerlUnavailableError, ValueError, FileNotFoundError)  # VerlConfigError is a ValueError
    with usage_errors(kinds=refused):
        algorithm = build(
            ctx.settings, model=ctx.args.model, group_size=ctx.args.repeats, run_name=ctx.run_name or "verl"
        )
    return algorithm


VERL = AlgorithmSpec(
    "verl",
    build_verl,
    help="Agent Lightning's VERL trainer (CUDA GPUs, the verl extra)",
    trains_weights=True,
    preflight=preflight_verl,
)

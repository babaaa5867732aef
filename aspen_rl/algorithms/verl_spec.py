"""How the CLI checks and builds Agent Lightning's VERL trainer (``--algorithm verl``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl.algorithms.base import AlgorithmSpec, BuildContext
from aspen_rl.errors import UsageError

if TYPE_CHECKING:
    from agentlightning import Algorithm


def preflight_verl(ctx: BuildContext) -> None:
    """verl, Ray, Hydra and a CUDA GPU are here, or the run stops before any service starts."""
    from aspen_rl.algorithms.verl_config import VerlUnavailableError, ensure_verl_available

    try:
        ensure_verl_available()
    except VerlUnavailableError as exc:
        raise UsageError(str(exc)) from exc


def build_verl(ctx: BuildContext) -> Algorithm:
    """``configs/verl.yaml`` + the ``algorithms.verl`` section + ``--model`` / ``--repeats``, checked."""
    from aspen_rl.algorithms.verl import build_verl as build
    from aspen_rl.algorithms.verl_config import VerlUnavailableError

    try:
        return build(
            ctx.settings, model=ctx.args.model, group_size=ctx.args.repeats, run_name=ctx.run_name or "verl"
        )
    except (VerlUnavailableError, ValueError, FileNotFoundError) as exc:  # VerlConfigError: ValueError
        raise UsageError(str(exc)) from exc


VERL = AlgorithmSpec(
    "verl",
    build_verl,
    help="Agent Lightning's VERL trainer (CUDA GPUs, the verl extra)",
    trains_weights=True,
    preflight=preflight_verl,
)

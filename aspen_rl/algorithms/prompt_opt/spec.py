"""How the CLI checks and builds the prompt optimizer (``--algorithm prompt_opt``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl.algorithms.base import AlgorithmSpec, BuildContext, usage_errors
from aspen_rl.errors import UsageError

if TYPE_CHECKING:
    from aspen_rl.algorithms.prompt_opt.algorithm import PromptOptAlgorithm

INVALID = "invalid algorithms.prompt_opt settings: "


def preflight_prompt_opt(ctx: BuildContext) -> None:
    """The ``algorithms.prompt_opt`` section validates, before any service starts."""
    from aspen_rl.algorithms.prompt_opt.config import prompt_opt_config

    with usage_errors(INVALID, (ValueError,)):
        prompt_opt_config(ctx.settings)


def build_prompt_opt(ctx: BuildContext) -> PromptOptAlgorithm:
    """The beam search, chosen on the validation split (loaded for it before the offline policy starts)."""
    if ctx.splits is None or not ctx.splits.val:
        raise UsageError("--algorithm prompt_opt chooses its beam on the validation split, which is empty")
    if ctx.report is None:
        raise UsageError(
            "--algorithm prompt_opt writes its prompts beside a run report, and this run has none"
        )
    from aspen_rl.algorithms.prompt_opt.algorithm import PromptOptAlgorithm

    with usage_errors(INVALID, (ValueError,)):  # a bad section (pydantic) or critic setting
        algorithm = PromptOptAlgorithm.from_settings(
            ctx.settings,
            ctx.resources,
            ctx.report,
            tasks=ctx.splits.all(),
            repeats=ctx.args.repeats,
            seed=ctx.args.seed,
            test_dataset=ctx.splits.test,
        )
    return algorithm


PROMPT_OPT = AlgorithmSpec(
    "prompt_opt",
    build_prompt_opt,
    help="beam search over system-prompt edits, chosen on validation",
    needs_validation=True,
    preflight=preflight_prompt_opt,
)

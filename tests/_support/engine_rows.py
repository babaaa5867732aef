"""Training rows of engine generations: the prompt unmasked, the completion masked in with its logprobs."""

from __future__ import annotations

from aspen_rl.llm.types import Generation, TrajectoryRow


def rows_of(generations: list[Generation]) -> list[TrajectoryRow]:
    """One row per generation, as the trainer recomputes it."""
    return [
        TrajectoryRow(
            g.prompt_ids + g.completion_ids,
            [0] * len(g.prompt_ids) + [1] * len(g.completion_ids),
            [0.0] * len(g.prompt_ids) + g.logprobs,
        )
        for g in generations
    ]

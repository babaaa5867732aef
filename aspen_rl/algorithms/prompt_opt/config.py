"""Every knob of the prompt optimizer, as one typed object (YAML section ``algorithms.prompt_opt``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from aspen_rl.settings import Settings


class PromptOptConfig(BaseModel):
    """Beam search over system prompts: sizes, batches, the critic and the outputs.

    Cost per round: ``len(beam) * branch_factor`` new candidates, each scored on
    ``train_batch_size`` train tasks and the validation batch, ``repeats`` times each.
    """

    model_config = ConfigDict(extra="forbid")

    beam_width: int = Field(default=2, ge=1, description="Candidates kept after each round (chosen on val).")
    branch_factor: int = Field(default=2, ge=1, description="New candidates proposed from each beam member.")
    rounds: int = Field(default=2, ge=0, description="Expansion rounds after scoring the seed prompt.")
    train_batch_size: int = Field(
        default=4,
        ge=0,
        description="Train tasks per round (a seeded rotation over the train set); 0 = every train task.",
    )
    val_batch_size: int = Field(
        default=0,
        ge=0,
        description="Validation tasks (one seeded subset, fixed for the run so scores compare); 0 = all.",
    )
    repeats: int = Field(default=1, ge=1, description="Rollouts per task and candidate (--repeats wins).")
    critique_sample_size: int = Field(
        default=3, ge=1, description="Lowest-reward train rollouts of a parent shown to the critic."
    )
    critic: Literal["auto", "llm", "offline"] = Field(
        default="auto",
        description=(
            "Where new candidates come from. auto: the LLM critic when a model endpoint is configured "
            "(MODEL_API_URL), else the offline edit operators; llm: always the critic; offline: always "
            "the edit operators."
        ),
    )
    critic_model: str | None = Field(
        default=None, description="Model of the critique and edit calls; None = the agent's model (MODEL)."
    )
    critic_temperature: float = Field(default=0.7, ge=0.0, le=2.0, description="Sampling temperature.")
    critic_timeout_s: float = Field(default=60.0, gt=0, description="Timeout of one critic request.")
    critic_retries: int = Field(default=2, ge=0, description="Extra attempts on 429/5xx/timeouts (backoff).")
    max_prompt_chars: int = Field(
        default=12000, ge=200, description="An edited prompt longer than this is rejected."
    )
    seed: int | None = Field(default=None, description="Seed of batches and operator order; None = --seed.")
    output_dir: Path | None = Field(
        default=None,
        description="Where <run>/best_prompt.md and <run>/history.json go; None = <models_dir>/prompts.",
    )
    deadline_s: float = Field(default=3600.0, gt=0, description="Give-up time of one scoring batch.")


def prompt_opt_config(settings: Settings) -> PromptOptConfig:
    """The run's config: the ``algorithms.prompt_opt`` section, validated (the one place that reads it).

    Raises:
        pydantic.ValidationError: an unknown key or an invalid value (a ``ValueError``).
    """
    return PromptOptConfig.model_validate(settings.algorithms.section("prompt_opt"))

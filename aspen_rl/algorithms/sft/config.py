"""Every knob of supervised fine-tuning in one typed config, loaded from ``configs/sft.yaml``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from aspen_rl.llm.settings import DType, LoRASettings
from aspen_rl.yaml_files import load_typed_config

DEFAULT_CONFIG_PATH = Path("configs/sft.yaml")
"""Where ``load_sft_config`` looks by default (relative to the working directory, then the repository)."""


class SFTConfigError(ValueError):
    """An SFT config file or override that cannot be used, with the offending key named."""


TINY_MODEL = "tiny"
"""``model: tiny``: a small Qwen2 built from :class:`TinyModelSettings` with a BPE tokenizer learnt from the
run's demonstrations (nothing downloaded; the CPU recipe ``configs/sft_tiny_cpu.yaml``)."""


class TinyModelSettings(BaseModel):
    """What ``model: tiny`` builds: a Qwen2 of this size, random weights, a BPE tokenizer of this size."""

    model_config = ConfigDict(extra="forbid")

    vocab_size: int = Field(2000, ge=300, description="BPE vocabulary learnt from the demonstrations.")
    hidden_size: int = Field(128, gt=0, description="Width.")
    num_layers: int = Field(2, gt=0, description="Depth.")
    num_heads: int = Field(4, gt=0, description="Attention heads (divide the width).")


class SFTConfig(BaseModel):
    """Supervised warm start on simulator-verified demonstrations.

    Field names follow TRL's ``SFTConfig`` / ``GRPOConfig`` where the meaning is the same. The trainer reads
    only from this object.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # ---- model
    model: str = Field(
        "Qwen/Qwen2.5-0.5B-Instruct",
        description="Base model: a local directory, a hub id (checked before any work), or 'tiny' (built "
        "from `tiny`, tokenizer learnt from the demonstrations).",
    )
    tiny: TinyModelSettings = Field(
        default_factory=TinyModelSettings, description="Size of the model `model: tiny` builds."
    )
    tokenizer: str | None = Field(None, description="Tokenizer path or id; None uses the model's.")
    chat_template: str | None = Field(
        None,
        description="Chat template the demonstrations are rendered with (saved with the checkpoint, so GRPO "
        "renders the same): a Jinja file, or 'chatml-tools' (built in); None: the tokenizer's own. It must "
        "render the agent's tools.",
    )
    dtype: DType = Field(
        "auto", description="Weights dtype; 'auto' is bfloat16 on a GPU that supports it, else float32."
    )
    device: str = Field("auto", description="Torch device ('auto': cuda if available, else cpu).")
    gradient_checkpointing: bool = Field(False, description="Trade compute for memory.")
    mixed_precision: Literal["no", "bf16"] = Field(
        "no",
        description="'bf16': forward and backward under torch.autocast(bfloat16) while the weights and "
        "AdamW state stay in `dtype` (as TRL's and transformers' bf16=True): for float32 weights on a GPU, "
        "where float32 attention over long rows is slow. 'no': everything in `dtype`.",
    )
    lora: LoRASettings = Field(
        default_factory=LoRASettings,
        description="LoRA adapters (merged into the weights at save) or full weights (enabled: false).",
    )

    # ---- data
    demonstrations: str | None = Field(
        None,
        description="Transcripts (python -m aspen_rl.datagen demos); recorded from `tasks` when the file is "
        "missing. None: recorded into the run folder (<output_dir>/<run_name>-run/demos.jsonl).",
    )
    tasks: str | None = Field(
        "data/generated/train.jsonl",
        description="Task file whose expert transcripts are recorded (in-process mock) when `demonstrations` "
        "does not exist; None: the transcripts must exist.",
    )
    system_prompt: str | None = Field(
        None,
        description="Replace every transcript's system message with this file's text (None: keep the "
        "recorded one, the agent's default prompt).",
    )
    include_tools: bool = Field(
        True,
        description="Render the tools in the prompt as the agent sends them (the chat template's block).",
    )
    max_assistant_turns: int | None = Field(
        None,
        ge=1,
        description="Learn only the first k assistant turns of each transcript (1: the first tool call); "
        "None: all turns.",
    )
    max_length: int = Field(8192, gt=0, description="Longest training row in tokens; longer rows are cut.")

    # ---- optimisation
    epochs: float = Field(3.0, gt=0, description="Passes over the demonstrations (fractions allowed).")
    batch_size: int = Field(4, gt=0, description="Rows per optimiser update.")
    micro_batch_size: int = Field(2, gt=0, description="Rows per forward/backward (gradients accumulated).")
    learning_rate: float = Field(1.0e-4, gt=0, description="AdamW learning rate.")
    weight_decay: float = Field(0.0, ge=0, description="AdamW weight decay.")
    adam_beta1: float = Field(0.9, ge=0, lt=1, description="AdamW beta1.")
    adam_beta2: float = Field(0.999, ge=0, lt=1, description="AdamW beta2.")
    warmup_steps: int = Field(0, ge=0, description="Linear learning-rate warm-up (optimiser updates).")
    lr_schedule: Literal["constant", "linear"] = Field(
        "linear", description="After warm-up: constant, or linear decay to 0 at the last update."
    )
    max_grad_norm: float = Field(1.0, gt=0, description="Gradient clipping by global norm.")
    loss_average: Literal["token", "turn"] = Field(
        "token",
        description="Average the NLL over every assistant token of an update ('token'), or over each "
        "assistant turn then over the turns ('turn': a 27-token first call weighs as much as a 420-token "
        "config).",
    )
    value_weight: float = Field(
        1.0,
        gt=0,
        description="Weight of the tokens that spell a tool call's argument values (names, numbers, ids; "
        "each distinct value's first occurrence in the turn, inside a JSON-text argument too) against 1 for "
        "every other assistant token; each turn still weighs 1 under 'turn', and 'token' divides by the "
        "weights' sum. 1: no weighting.",
    )
    seed: int = Field(0, description="Seed of torch, python and the shuffling.")

    # ---- output
    output_dir: str = Field("models/sft", description="Root of checkpoints: <output_dir>/<run_name>/.")
    run_name: str = Field("sft", description="Name of the run.")
    log_every: int = Field(10, gt=0, description="Log the loss every k optimiser updates.")
    save_every: int = Field(
        50,
        ge=0,
        description="Write a resumable checkpoint to <output_dir>/<run_name>-checkpoints/step_<n>/ every k "
        "updates (0: only when a signal stops the run); --resume continues from one.",
    )
    keep_checkpoints: int = Field(2, ge=1, description="Resumable checkpoints kept (the newest).")
    epoch_checkpoints: bool = Field(
        False,
        description="Also save the model after every epoch into the run folder (<run>-run/epoch_<k>/), to "
        "evaluate how it learns.",
    )

    @property
    def run_dir(self) -> Path:
        """The run folder: train.log, metrics.jsonl (one line per update), recorded demos, epoch models."""
        return Path(self.output_dir) / f"{self.run_name}-run"


def _describe(error: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())


def load_sft_config(path: str | Path | None = DEFAULT_CONFIG_PATH, **overrides: Any) -> SFTConfig:
    """Load an ``SFTConfig`` from YAML, then apply keyword overrides (``lora={"r": 8}`` for sections).

    Raises:
        SFTConfigError: malformed YAML, unknown keys or invalid values.
        FileNotFoundError: the file does not exist.
    """
    return load_typed_config(SFTConfig, path, overrides, kind="SFT", error=SFTConfigError, describe=_describe)

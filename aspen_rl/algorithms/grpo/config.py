"""Every knob of multi-turn GRPO in one typed config, loaded from ``configs/grpo.yaml``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from aspen_rl.llm.settings import DType, LoRASettings, VLLMSettings
from aspen_rl.yaml_files import deep_merge, load_typed_config

if TYPE_CHECKING:
    from aspen_rl.settings import Settings

DEFAULT_CONFIG_PATH = Path("configs/grpo.yaml")
"""Where ``load_grpo_config`` looks by default (relative to the working directory, then the repository)."""


class GRPOConfigError(ValueError):
    """A GRPO config file or override that cannot be used, with the offending key or line named."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class GRPOConfig(_Section):
    """Multi-turn GRPO: model, rollout engine, sampling, group advantages, clipped loss, optimiser, I/O.

    Field names follow TRL's ``GRPOConfig`` where the meaning is the same.
    """

    # model
    model: str = Field(
        "Qwen/Qwen2.5-0.5B-Instruct",
        description="Policy: a local directory or a hub id (fetched only in real runs).",
    )
    tokenizer: str | None = Field(None, description="Tokenizer path or id; None uses the model's.")
    chat_template: str | None = Field(
        None,
        description="Chat template of the policy's prompts: a Jinja file, or 'chatml-tools' (built in: "
        "ChatML with Hermes <tool_call> blocks); None: the tokenizer's own. It must render the agent's "
        "tools, or the run is refused.",
    )
    dtype: DType = Field(
        "auto", description="Weights dtype; 'auto' is bfloat16 on a GPU that supports it, else float32."
    )
    device: str = Field(
        "auto", description="Torch device of the trainer ('auto': cuda if available, else cpu)."
    )
    gradient_checkpointing: bool = Field(
        True, description="Recompute activations in the backward pass: less memory, more compute (as TRL)."
    )
    cpu_threads: int = Field(
        0,
        ge=0,
        description="torch CPU threads of the engine and the update; 0: the cores this process may use "
        "minus one (at least 1), leaving one to the simulator and the runners.",
    )
    lora: LoRASettings = Field(default_factory=LoRASettings, description="LoRA settings (or full weights).")

    # rollout engine and sampling
    engine: Literal["transformers", "vllm"] = Field(
        "transformers", description="Rollout engine: plain transformers generate (CPU/GPU) or vLLM (GPU)."
    )
    vllm: VLLMSettings = Field(default_factory=VLLMSettings, description="vLLM engine options.")
    decode: Literal["eager", "static", "compiled"] = Field(
        "eager",
        description="The transformers engine's KV cache: 'eager' (dynamic), 'static' (pre-allocated), "
        "'compiled' (static plus torch.compile of the decode step, CUDA only). Not read by vLLM.",
    )
    temperature: float = Field(
        1.0,
        ge=0.0,
        description="Sampling temperature; the update divides logits by it too (0 = greedy, ratio at T=1).",
    )
    top_p: float = Field(
        1.0, gt=0.0, le=1.0, description="Nucleus sampling; < 1 makes engine and trainer differ."
    )
    top_k: int = Field(
        0, ge=0, description="Top-k sampling, 0 disables; > 0 makes engine and trainer differ."
    )
    max_prompt_tokens: int = Field(
        6144, gt=0, description="Longest rendered prompt of one call; longer calls are refused with an error."
    )
    max_response_tokens: int = Field(1024, gt=0, description="Most tokens sampled per chat-completion call.")
    max_trajectory_tokens: int = Field(
        8192,
        gt=0,
        description="Longest merged training row; longer rows are cut (tail tokens dropped, counted).",
    )
    served_model_name: str = Field(
        "aspen-policy", description="Model name the local OpenAI endpoint answers as."
    )
    server_host: str = Field("127.0.0.1", description="Interface of the local chat-completions endpoint.")
    server_port: int = Field(0, ge=0, le=65535, description="Port of the endpoint; 0 picks a free one.")
    server_max_batch: int = Field(
        64, gt=0, description="Concurrent calls the endpoint batches into one generate."
    )
    server_batch_wait_ms: float = Field(
        5.0, ge=0.0, description="How long the endpoint waits to fill a batch."
    )

    # GRPO
    steps: int = Field(
        100,
        gt=0,
        description="Training steps in all, those of a resumed checkpoint included.",
    )
    tasks_per_step: int = Field(8, gt=0, description="Tasks (groups) per step.")
    group_size: int = Field(
        8, ge=2, description="Rollouts per task (G); advantages are relative within a group."
    )
    scale_rewards: Literal["std", "none"] = Field(
        "std", description="'std': (R - mean) / (std + eps) as GRPO; 'none': R - mean as Dr. GRPO."
    )
    advantage_epsilon: float = Field(1e-4, gt=0.0, description="eps in the advantage denominator.")
    zero_variance_tolerance: float = Field(
        1e-6,
        ge=0.0,
        description="Groups whose reward std is at most this are flagged and skipped (no signal).",
    )
    epsilon_low: float = Field(0.2, gt=0.0, lt=1.0, description="Lower clip: ratio >= 1 - epsilon_low.")
    epsilon_high: float = Field(
        0.28, gt=0.0, description="Upper clip: ratio <= 1 + epsilon_high (clip-higher)."
    )
    beta: float = Field(
        0.0, ge=0.0, description="KL coefficient to the reference policy (k3 estimator); 0 = off."
    )
    loss_aggregation: Literal["rollout_mean", "token_mean", "sequence_mean"] = Field(
        "rollout_mean",
        description="'rollout_mean': mean over a rollout's tokens, then over rollouts; 'token_mean': over "
        "all tokens of the step; 'sequence_mean': mean per row, then over rows.",
    )
    importance_sampling_correction: bool = Field(
        True,
        description="Weight each token by exp(old - engine logprob), truncated (engine/trainer mismatch).",
    )
    importance_sampling_cap: float = Field(2.0, gt=0.0, description="Truncation cap of that weight.")
    num_iterations: int = Field(1, gt=0, description="Passes over one step's batch (mu in the GRPO paper).")
    minibatches_per_step: int = Field(
        1,
        gt=0,
        description="Optimiser updates per pass; > 1 makes later updates off-policy (clipping matters).",
    )
    micro_batch_size: int = Field(
        4, gt=0, description="Rows per forward/backward; gradients are accumulated over the micro-batches."
    )
    logprob_chunk_tokens: int = Field(
        256,
        ge=0,
        description="Memory-lean update: only sampled tokens are scored, this many positions' vocabulary "
        "logits at a time (recomputed in backward); 0: full logits of every position (more memory).",
    )

    # optimiser
    learning_rate: float = Field(2e-5, gt=0.0, description="AdamW learning rate.")
    adam_beta1: float = Field(0.9, ge=0.0, lt=1.0, description="AdamW beta1.")
    adam_beta2: float = Field(0.99, ge=0.0, lt=1.0, description="AdamW beta2.")
    adam_epsilon: float = Field(1e-8, gt=0.0, description="AdamW epsilon.")
    weight_decay: float = Field(0.0, ge=0.0, description="AdamW weight decay.")
    warmup_steps: int = Field(0, ge=0, description="Linear learning-rate warm-up (optimiser updates).")
    max_grad_norm: float = Field(1.0, gt=0.0, description="Gradient clipping by global norm.")

    # evaluation, checkpoints, metrics
    eval_every: int = Field(
        10, ge=0, description="Evaluate on the validation tasks every k steps and after the last (0: never)."
    )
    eval_repeats: int = Field(
        1, gt=0, description="Rollouts per validation task in each evaluation (sampled at temperature)."
    )
    save_every: int = Field(10, ge=0, description="Checkpoint every k steps (0: only at the end).")
    run_name: str = Field(
        "grpo", min_length=1, description="Name of the run: checkpoints go to <checkpoint_dir>/<run>."
    )
    checkpoint_dir: str = Field("models/grpo", description="Root of checkpoints: <dir>/<run>/step_<n>/.")
    tensorboard: bool = Field(
        True, description="Also write TensorBoard events when tensorboard is installed."
    )
    seed: int = Field(0, description="Seed of torch, python and the rollout engine.")

    @model_validator(mode="after")
    def _check(self) -> GRPOConfig:
        if "/" in self.run_name or self.run_name in {".", ".."}:
            raise ValueError(f"run_name must be a plain directory name, got {self.run_name!r}")
        return self

    def replace(self, **overrides: Any) -> GRPOConfig:
        """A validated copy with some fields changed (nested sections as dicts, merged)."""
        try:
            return GRPOConfig.model_validate(deep_merge(self.model_dump(), overrides))
        except ValidationError as exc:
            raise GRPOConfigError(f"invalid GRPO config: {_describe(exc)}") from exc

    def run_dir(self) -> Path:
        """Directory of this run's checkpoints: ``<checkpoint_dir>/<run_name>``."""
        return Path(self.checkpoint_dir) / self.run_name

    def checkpoint_path(self, step: int) -> Path:
        """Checkpoint directory of one step: ``<checkpoint_dir>/<run_name>/step_<n>``."""
        return self.run_dir() / f"step_{step}"


RESUME_FIELDS: tuple[str, ...] = (
    "model",
    "tokenizer",
    "dtype",
    "lora.enabled",
    "lora.r",
    "lora.alpha",
    "lora.dropout",
    "lora.target_modules",
    "temperature",
    "top_p",
    "top_k",
    "tasks_per_step",
    "group_size",
    "scale_rewards",
    "advantage_epsilon",
    "zero_variance_tolerance",
    "epsilon_low",
    "epsilon_high",
    "beta",
    "loss_aggregation",
    "importance_sampling_correction",
    "importance_sampling_cap",
    "num_iterations",
    "minibatches_per_step",
    "learning_rate",
    "adam_beta1",
    "adam_beta2",
    "adam_epsilon",
    "weight_decay",
    "warmup_steps",
    "max_grad_norm",
    "seed",
)
"""Fields that define the optimisation: a resumed run must keep them, or it is a different run.

The others (steps, device, engine, server, limits of one call, evaluation, checkpoint cadence, micro-batch
size, which only changes gradient accumulation) may change between sessions.
"""


def resume_differences(saved: dict[str, Any], current: GRPOConfig) -> list[str]:
    """The ``RESUME_FIELDS`` on which a checkpoint's saved config and the current one differ.

    Args:
        saved: The ``config`` of a checkpoint's ``trainer_state.json``; fields it lacks (a checkpoint from
            before the field existed) count as their defaults.
        current: The config of the resuming run.

    Returns:
        One ``"field: saved -> current"`` line per difference, in ``RESUME_FIELDS`` order.
    """
    before = deep_merge(GRPOConfig().model_dump(mode="json"), saved)
    after = current.model_dump(mode="json")
    lines = []
    for name in RESUME_FIELDS:
        old, new = _lookup(before, name), _lookup(after, name)
        if old != new:
            lines.append(f"{name}: {old!r} -> {new!r}")
    return lines


def resume_refusal(checkpoint: str | Path, differences: list[str]) -> str:
    """The error message refusing to resume a checkpoint under a config that differs from its own."""
    listed = "\n  ".join(differences)
    return (
        f"cannot resume {checkpoint}: the GRPO config differs from the checkpoint's on fields that define "
        f"the optimisation (saved -> current):\n  {listed}\n"
        "Resume with the checkpoint's values, or start a new run."
    )


def _lookup(data: dict[str, Any], dotted: str) -> Any:
    value: Any = data
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _describe(error: ValidationError) -> str:
    lines = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "<root>"
        if item["type"] == "extra_forbidden":
            lines.append(f"unknown key '{where}'")
        else:
            lines.append(f"'{where}': {item['msg']}")
    return "; ".join(lines)


def load_grpo_config(path: str | Path | None = DEFAULT_CONFIG_PATH, **overrides: Any) -> GRPOConfig:
    """Load a ``GRPOConfig`` from YAML, then apply keyword overrides (nested sections as dicts).

    Args:
        path: YAML file (a mapping of GRPOConfig fields); None uses the defaults only. A relative path is
            looked up in the working directory, then in the repository.
        **overrides: Field values that win over the file, e.g. ``group_size=4, lora={"r": 8}``.

    Returns:
        The validated config.

    Raises:
        GRPOConfigError: malformed YAML, a non-mapping document, unknown keys or invalid values.
        FileNotFoundError: the file does not exist.
    """
    return load_typed_config(
        GRPOConfig, path, overrides, kind="GRPO", error=GRPOConfigError, describe=_describe
    )


def grpo_config_from_settings(
    settings: Settings,
    *,
    model: str | None = None,
    group_size: int | None = None,
    seed: int = 0,
    checkpoint: Path | None = None,
    run_name: str | None = None,
) -> GRPOConfig:
    """The run's config: ``configs/grpo.yaml`` + the ``algorithms.grpo`` section + the flags, resolved once.

    The CLI's preflight and the build both call this, so they check the same config. The section holds
    GRPOConfig fields (they win over the YAML) and optionally ``config_file`` (another YAML). Checkpoints
    go to ``<models_dir>/grpo/<run>/step_<n>/`` (``checkpoint_dir`` in the section wins); a resumed run keeps
    writing into its checkpoint's run directory unless the section names ``checkpoint_dir``/``run_name``.

    Args:
        settings: Run settings (``models_dir``, ``algorithms.grpo``).
        model: ``--model``: the policy (wins over the config).
        group_size: ``--repeats``: G (wins over the config).
        seed: ``--seed`` (the section's ``seed`` wins when set).
        checkpoint: The resolved ``--resume`` checkpoint, if any.
        run_name: The run's folder name (``None``: the config's ``run_name``).

    Raises:
        GRPOConfigError: invalid config values or keys.
        FileNotFoundError: a config file is missing.
    """
    section = settings.algorithms.section("grpo")
    config_file = section.pop("config_file", DEFAULT_CONFIG_PATH)
    if section.get("seed") is None:
        section.pop("seed", None)
    overrides: dict[str, Any] = {"seed": seed, **section}
    if model:
        overrides["model"] = model
    if group_size:
        overrides["group_size"] = group_size
    if checkpoint is not None:
        overrides.setdefault("checkpoint_dir", str(checkpoint.parent.parent))
        overrides.setdefault("run_name", checkpoint.parent.name)
    overrides.setdefault("checkpoint_dir", str(settings.models_dir / "grpo"))
    if run_name is not None:
        overrides.setdefault("run_name", run_name)
    return load_grpo_config(config_file, **overrides)

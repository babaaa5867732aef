"""Scale-out through Agent Lightning's ``VERL`` algorithm: its config from ``configs/verl.yaml``, checked.

Building the config needs nothing beyond PyYAML; building the algorithm needs the ``verl`` extra
(verl, Ray, Hydra) and a CUDA GPU, and fails fast with a clear message otherwise.
"""

from __future__ import annotations

import copy
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aspen_rl.yaml_files import read_config_file

if TYPE_CHECKING:
    from aspen_rl.algorithms.grpo.config import GRPOConfig

DEFAULT_VERL_CONFIG = Path("configs/verl.yaml")

KNOWN_SECTIONS = frozenset(
    {
        "algorithm",
        "data",
        "actor_rollout_ref",
        "critic",
        "reward_model",
        "custom_reward_function",
        "trainer",
        "agentlightning",
        "ray_init",
        "ray_kwargs",
        "global_profiler",
    }
)
"""Top-level sections of verl's ppo_trainer config plus Agent Lightning's own."""

REQUIRED_KEYS = (
    "actor_rollout_ref.model.path",
    "actor_rollout_ref.rollout.n",
    "data.train_batch_size",
    "trainer.n_gpus_per_node",
    "trainer.nnodes",
)

_LOSS_AGG = {
    "token_mean": "token-mean",
    "sequence_mean": "seq-mean-token-mean",
    "rollout_mean": "seq-mean-token-mean",
}
"""GRPOConfig.loss_aggregation -> verl's loss_agg_mode (with trajectory aggregation a rollout is one row)."""

INSTALL_HINT = (
    "--algorithm verl runs verl on Ray and needs CUDA GPUs: install the extra on a GPU machine with "
    "pip install 'aspen_rl[verl]'"
)


class VerlConfigError(ValueError):
    """A VERL config that cannot be used, with the offending key named."""


class VerlUnavailableError(RuntimeError):
    """verl (or Ray/Hydra, or a CUDA GPU) is missing."""


def _get(config: Mapping[str, Any], dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(dotted)
        node = node[part]
    return node


def _set(config: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = config
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[parts[-1]] = value


def validate_verl_config(config: Mapping[str, Any], source: str = "VERL config") -> None:
    """Check the sections, the required keys and the GRPO group size.

    Raises:
        VerlConfigError: unknown section, missing key, or a value verl would reject late.
    """
    unknown = sorted(set(config) - KNOWN_SECTIONS)
    if unknown:
        raise VerlConfigError(f"{source}: unknown section(s) {unknown}; known: {sorted(KNOWN_SECTIONS)}")
    for key in REQUIRED_KEYS:
        try:
            _get(config, key)
        except KeyError:
            raise VerlConfigError(f"{source}: missing required key '{key}'") from None
    n = _get(config, "actor_rollout_ref.rollout.n")
    estimator = config.get("algorithm", {}).get("adv_estimator", "grpo")
    if not isinstance(n, int) or (estimator == "grpo" and n < 2):
        raise VerlConfigError(
            f"{source}: 'actor_rollout_ref.rollout.n' must be an int >= 2 for GRPO, got {n!r}"
        )
    for key in ("data.train_batch_size", "trainer.n_gpus_per_node", "trainer.nnodes"):
        value = _get(config, key)
        if not isinstance(value, int) or value < 1:
            raise VerlConfigError(f"{source}: '{key}' must be a positive int, got {value!r}")


def load_verl_config(
    path: str | Path | None = DEFAULT_VERL_CONFIG, overrides: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Load the VERL overrides dict from YAML, apply dotted-key overrides, validate.

    Args:
        path: YAML file (relative: working directory, then the repository); None starts empty.
        overrides: e.g. ``{"trainer.nnodes": 2, "actor_rollout_ref.model.path": "/models/qwen"}``.

    Returns:
        The dict Agent Lightning's ``VERL(config=...)`` expects.

    Raises:
        VerlConfigError: malformed YAML or an invalid config.
        FileNotFoundError: the file does not exist.
    """
    config: dict[str, Any] = {}
    source = "VERL overrides"
    if path is not None:
        config, resolved = read_config_file(path, kind="VERL", what="verl sections", error=VerlConfigError)
        source = str(resolved)
    config = copy.deepcopy(config)
    for key, value in (overrides or {}).items():
        _set(config, key, value)
    validate_verl_config(config, source)
    return config


def verl_overrides_from_grpo(grpo: GRPOConfig) -> dict[str, Any]:
    """The knobs ``--algorithm grpo`` and ``--algorithm verl`` share, as dotted verl keys.

    Apply with ``load_verl_config(overrides=verl_overrides_from_grpo(cfg))`` to run the same
    hyper-parameters at scale.
    """
    return {
        "actor_rollout_ref.model.path": grpo.model,
        "actor_rollout_ref.rollout.n": grpo.group_size,
        "actor_rollout_ref.rollout.temperature": grpo.temperature,
        "actor_rollout_ref.rollout.top_p": grpo.top_p,
        "actor_rollout_ref.actor.optim.lr": grpo.learning_rate,
        "actor_rollout_ref.actor.clip_ratio_low": grpo.epsilon_low,
        "actor_rollout_ref.actor.clip_ratio_high": grpo.epsilon_high,
        "actor_rollout_ref.actor.use_kl_loss": grpo.beta > 0,
        "actor_rollout_ref.actor.kl_loss_coef": grpo.beta,
        "actor_rollout_ref.actor.kl_loss_type": "low_var_kl",
        "actor_rollout_ref.actor.loss_agg_mode": _LOSS_AGG[grpo.loss_aggregation],
        "actor_rollout_ref.actor.grad_clip": grpo.max_grad_norm,
        "actor_rollout_ref.model.lora_rank": grpo.lora.r if grpo.lora.enabled else 0,
        "actor_rollout_ref.model.lora_alpha": grpo.lora.alpha,
        "algorithm.norm_adv_by_std_in_grpo": grpo.scale_rewards == "std",
        "data.train_batch_size": grpo.tasks_per_step,
        "data.max_prompt_length": grpo.max_prompt_tokens,
        "data.max_response_length": grpo.max_response_tokens,
        "agentlightning.trace_aggregator.trajectory_max_prompt_length": grpo.max_prompt_tokens,
        "agentlightning.trace_aggregator.trajectory_max_response_length": grpo.max_trajectory_tokens,
        "trainer.save_freq": grpo.save_every,
        "trainer.test_freq": grpo.eval_every,
        "trainer.total_training_steps": grpo.steps,
    }


def missing_verl_requirements() -> list[str]:
    """What ``--algorithm verl`` lacks here: missing modules and/or 'a CUDA GPU' (empty when ready)."""
    missing = [
        name for name in ("verl", "ray", "hydra", "omegaconf") if importlib.util.find_spec(name) is None
    ]
    if missing:  # refused anyway: look for a GPU without importing torch (1-3 s), so the error is instant
        if not _nvidia_device_present():
            missing.append("a CUDA GPU")
        return missing
    try:
        import torch

        if not torch.cuda.is_available():
            missing.append("a CUDA GPU")
    except ImportError:  # pragma: no cover - torch is a core dependency
        missing.append("torch")
    return missing


def _nvidia_device_present() -> bool:
    """An NVIDIA driver with at least one device (``/proc/driver/nvidia/gpus`` or ``/dev/nvidia0``)."""
    from pathlib import Path

    gpus = Path("/proc/driver/nvidia/gpus")
    return (gpus.is_dir() and any(gpus.iterdir())) or Path("/dev/nvidia0").exists()


def ensure_verl_available() -> None:
    """Fail fast when verl cannot run here.

    Raises:
        VerlUnavailableError: naming what is missing and how to install it.
    """
    missing = missing_verl_requirements()
    if missing:
        raise VerlUnavailableError(f"{INSTALL_HINT} (missing here: {', '.join(missing)})")


def build_verl_algorithm(config: Mapping[str, Any]) -> Any:
    """Agent Lightning's ``VERL`` algorithm for this config (checked first).

    Raises:
        VerlConfigError: invalid config.
        VerlUnavailableError: verl, Ray, Hydra or a CUDA GPU missing.
    """
    validate_verl_config(config)
    ensure_verl_available()
    from agentlightning.algorithm.verl import VERL

    return VERL(config=copy.deepcopy(dict(config)))

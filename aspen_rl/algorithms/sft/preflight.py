"""Checks an SFT run makes before any work: the model can be loaded, the data files exist."""

from __future__ import annotations

import os
from pathlib import Path

from aspen_rl.algorithms.sft.config import TINY_MODEL, SFTConfig

HUB_TIMEOUT_S = 5.0
"""Seconds the hub may take to answer whether a model exists."""


class SFTPreflightError(ValueError):
    """A run that cannot work, found before anything was written or loaded."""


def _looks_like_path(name: str) -> bool:
    """Hub ids are ``name`` or ``owner/name``; anything else was meant as a path."""
    return name.startswith((".", "/", "~")) or name.count("/") > 1 or "\\" in name


def check_model_source(name: str, *, what: str = "model") -> None:
    """``name`` is a local model folder, a hub id in the local cache, or a hub id the hub answers for.

    Raises:
        SFTPreflightError: a folder without ``config.json``/tokenizer files, a path that does not exist,
            or a hub id that is not cached while the hub is offline, unreachable or does not know it.
    """
    path = Path(name).expanduser()
    if path.is_dir():
        return
    if path.exists() or _looks_like_path(name):
        raise SFTPreflightError(f"{what} {name!r} is not a folder (give a model folder or a hub id)")
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(name, "config.json")
    if isinstance(cached, str):
        return
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes"}:
        raise SFTPreflightError(f"{what} {name!r} is not in the hub cache and HF_HUB_OFFLINE is set")
    import httpx

    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")
    try:
        answer = httpx.get(f"{endpoint}/api/models/{name}", timeout=HUB_TIMEOUT_S)
    except httpx.HTTPError as exc:
        raise SFTPreflightError(
            f"{what} {name!r} is not in the hub cache and the hub ({endpoint}) is unreachable "
            f"({type(exc).__name__}); use a local folder or `model: tiny` (configs/sft_tiny_cpu.yaml)"
        ) from exc
    if answer.status_code != 200:
        raise SFTPreflightError(f"{what} {name!r}: the hub ({endpoint}) answered HTTP {answer.status_code}")


def check_bf16(device: str) -> None:
    """``mixed_precision: bf16`` needs a device with bfloat16 arithmetic: a CPU, or a CUDA GPU that has it.

    Raises:
        SFTPreflightError: the run's GPU has no bfloat16 (before Ampere).
    """
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and torch.cuda.is_available() and not torch.cuda.is_bf16_supported():
        name = torch.cuda.get_device_name(torch.device(device))
        raise SFTPreflightError(f"mixed_precision: bf16, but {name} has no bfloat16: use mixed_precision: no")


def preflight(config: SFTConfig) -> None:
    """Every check that can run before demonstrations are recorded or a model is loaded.

    Raises:
        SFTPreflightError: the first problem found, in one sentence.
    """
    if config.model != TINY_MODEL:
        check_model_source(config.model)
    if config.tokenizer:
        check_model_source(config.tokenizer, what="tokenizer")
    if config.mixed_precision == "bf16":
        check_bf16(config.device)
    if config.system_prompt and not Path(config.system_prompt).is_file():
        raise SFTPreflightError(f"system_prompt {config.system_prompt!r} is not a file")
    demos = Path(config.demonstrations) if config.demonstrations else None
    if demos is not None and demos.is_file():
        return
    if config.tasks is None:
        raise SFTPreflightError(f"no demonstrations at {demos} and no `tasks` to record them from")
    if not Path(config.tasks).is_file():
        raise SFTPreflightError(f"tasks file {config.tasks!r} (to record demonstrations from) does not exist")

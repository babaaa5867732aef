"""Checks a GRPO run makes before any service starts: config, policy model, chat template, ``--resume``.

Torch- and Agent-Lightning-free (torch is imported only to resolve ``device: auto`` for
``decode: compiled``); the CLI runs them through :mod:`aspen_rl.algorithms.grpo.spec`.
"""

from __future__ import annotations

import os
from pathlib import Path

from aspen_rl.algorithms.base import BuildContext, usage_errors
from aspen_rl.errors import UsageError

HUB_TIMEOUT_S = 2.0
"""Seconds the hub may take to answer, when a hub id is neither a local folder nor cached."""

TINY_HINT = "python -m aspen_rl.llm.tiny_bytes models/tiny-chat"


def preflight_grpo(ctx: BuildContext) -> None:
    """The run's config (the one the build will use), its model folder or hub id, chat template and resume.

    Raises:
        UsageError: the first problem found, naming ``--algorithm grpo``.
    """
    from aspen_rl.algorithms.grpo.config import grpo_config_from_settings
    from aspen_rl.algorithms.grpo.resume import check_resumable, resolve_checkpoint

    args = ctx.args
    with usage_errors("--algorithm grpo: "):
        config = grpo_config_from_settings(
            ctx.settings, model=args.model, group_size=args.repeats, seed=args.seed
        )
    if config.engine == "transformers" and config.decode == "compiled" and not _cuda(config.device):
        raise UsageError(
            f"--algorithm grpo: decode 'compiled' needs a CUDA GPU and the trainer's device is "
            f"{config.device!r} (no GPU visible); use decode: static or eager"
        )
    local = Path(config.model).expanduser()
    if looks_local(config.model) and not local.is_dir():
        raise UsageError(
            f"--algorithm grpo: policy model directory not found: {config.model} "
            f"(build a tiny CPU model with: {TINY_HINT})"
        )
    if not local.exists():
        check_hub_model(config.model)
    if config.chat_template is not None and not Path(config.chat_template).expanduser().is_file():
        raise UsageError(f"--algorithm grpo: chat template not found: {config.chat_template}")
    if args.resume is not None:
        with usage_errors():  # not found, or a ResumeRefused (a ValueError)
            check_resumable(resolve_checkpoint(args.resume), config, named="--resume")


def _cuda(device: str) -> bool:
    """Whether ``device`` (as GRPO's config names it) is a CUDA GPU here; imports torch only when asked."""
    if device.startswith("cuda"):
        return True
    if device != "auto":
        return False
    import torch

    return torch.cuda.is_available()


def looks_local(model: str) -> bool:
    """A path rather than a hub id (``org/name``): absolute, ``./``/``~``, deeper, or under a local folder."""
    path = Path(model).expanduser()
    if path.exists() or path.is_absolute() or model.startswith((".", "~")) or model.count("/") > 1:
        return True
    return Path(model.split("/", 1)[0]).is_dir()


def check_hub_model(model_id: str) -> None:
    """A hub id must be in the local cache or the hub must answer (2 s), else a usage error now."""
    try:
        from huggingface_hub import try_to_load_from_cache

        if isinstance(try_to_load_from_cache(model_id, "config.json"), str):
            return
    except Exception:
        pass
    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes")
    reachable = False
    if not offline:
        import httpx

        endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
        try:
            httpx.head(endpoint, timeout=HUB_TIMEOUT_S)
            reachable = True
        except httpx.HTTPError:
            reachable = False
    if not reachable:
        raise UsageError(
            f"--algorithm grpo: model {model_id!r} is not a local folder, not in the Hugging Face cache, "
            f"and the hub cannot be reached; pass --model DIR (a tiny CPU model: {TINY_HINT}, "
            "then --model models/tiny-chat)"
        )

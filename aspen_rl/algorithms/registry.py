"""The algorithm registry: name -> how the CLI checks, builds and runs one algorithm.

``python -m aspen_rl.train --algorithm NAME`` looks the name up here; nothing else lists algorithms.
Adding one is a :func:`register_algorithm` call (for a user's own algorithm too, before ``main``)::

    from aspen_rl.algorithms.registry import AlgorithmSpec, register_algorithm

    register_algorithm(AlgorithmSpec("mine", build=lambda ctx: MyAlgorithm(ctx.resources)))

This module imports nothing heavy (no Agent Lightning, no torch): each builder imports its algorithm
when it runs, and each ``preflight`` check runs before any service starts.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aspen_rl.algorithms.names import add_name
from aspen_rl.errors import UsageError


@dataclass
class BuildContext:
    """What a builder gets: the parsed flags, the settings, the run's resources and tasks.

    Attributes:
        args: Parsed command line (``argparse.Namespace``).
        settings: The run's :class:`~aspen_rl.settings.Settings`.
        resources: Resources of every rollout (``main_llm``, optionally ``system_prompt``).
        report: The run's report (an optional observer; ``None`` when the run has none).
        splits: The run's tasks (``train``, ``val``, ``test``).
        repeats: Rollouts per task.
    """

    args: Any
    settings: Any
    resources: dict[str, Any] = field(default_factory=dict)
    report: Any = None
    splits: Any = None
    repeats: int = 1


@dataclass(frozen=True)
class AlgorithmSpec:
    """One registered algorithm.

    Attributes:
        name: The ``--algorithm`` value.
        build: ``BuildContext -> algorithm`` (an Agent Lightning ``Algorithm``); raise ``ValueError``
            or ``FileNotFoundError`` for bad settings (shown as a usage error).
        help: One line for ``--help``.
        trains_weights: Runs through ``Trainer.fit`` and serves its own policy (default mode ``train``,
            ``--mode dev`` refused).
        needs_validation: Selects on the validation split (loaded without ``--use-validation``).
        min_repeats: Smallest ``--repeats`` it accepts.
        preflight: ``BuildContext -> None`` without resources or report, run before any service starts
            (arguments, paths, models, environment); raise :class:`UsageError`.
        settings_model: The pydantic model of its ``algorithms.<name>`` section, if it has one.
        standalone: Runs on its own, without the store, services or rollouts (``sft``: the CLI hands it
            over before any of them starts; ``build`` is not used).
    """

    name: str
    build: Callable[[BuildContext], Any]
    help: str = ""
    trains_weights: bool = False
    needs_validation: bool = False
    min_repeats: int = 1
    preflight: Callable[[BuildContext], None] | None = None
    settings_model: Callable[[], type] | None = None
    standalone: bool = False

    @property
    def default_mode(self) -> str:
        """``train`` for weight-training algorithms, else ``dev``."""
        return "train" if self.trains_weights else "dev"


_REGISTRY: dict[str, AlgorithmSpec] = {}


def register_algorithm(spec: AlgorithmSpec, *, replace: bool = False) -> AlgorithmSpec:
    """Add ``spec`` to the registry (``replace=True`` to override a registered name)."""
    if spec.name in _REGISTRY and not replace:
        raise ValueError(f"algorithm {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    add_name(spec.name)
    return spec


def algorithm_names() -> tuple[str, ...]:
    """Registered names, in registration order."""
    return tuple(_REGISTRY)


def get_algorithm(name: str) -> AlgorithmSpec:
    """The spec registered as ``name``.

    Raises:
        UsageError: no such algorithm (the message lists the known ones).
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UsageError(f"unknown algorithm {name!r}; known: {', '.join(algorithm_names())}") from None


# ---- the shipped algorithms ----------------------------------------------------------------------


def _build_baseline(ctx: BuildContext) -> Any:
    from aspen_rl.algorithms.baseline import BaselineAlgorithm

    rollouts = len(ctx.splits.all()) * ctx.repeats
    # Give up on a split only after every rollout could have used its whole wall-time cap.
    deadline_s = ctx.settings.rollout_timeout_s * math.ceil(rollouts / ctx.args.n_runners) + 120.0
    return BaselineAlgorithm(
        ctx.resources, ctx.report, repeats=ctx.repeats, test_dataset=ctx.splits.test, deadline_s=deadline_s
    )


def _preflight_prompt_opt(ctx: BuildContext) -> None:
    from aspen_rl.algorithms.prompt_opt.config import PromptOptConfig

    section = getattr(ctx.settings.algorithms, "prompt_opt", None) or {}
    try:
        PromptOptConfig.model_validate(section)
    except ValueError as exc:
        raise UsageError(f"invalid algorithms.prompt_opt settings: {exc}") from exc


def _build_prompt_opt(ctx: BuildContext) -> Any:
    # The beam is chosen on validation, loaded for prompt_opt before the offline policy starts (which
    # knows only the tasks it was started with).
    if not ctx.splits.val:
        raise UsageError("--algorithm prompt_opt chooses its beam on the validation split, which is empty")
    from aspen_rl.algorithms.prompt_opt import PromptOptAlgorithm

    try:
        return PromptOptAlgorithm.from_settings(
            ctx.settings,
            ctx.resources,
            ctx.report,
            tasks=ctx.splits.all(),
            repeats=ctx.args.repeats,
            seed=ctx.args.seed,
            test_dataset=ctx.splits.test,
        )
    except ValueError as exc:  # a bad algorithms.prompt_opt section (pydantic) or critic setting
        raise UsageError(f"invalid algorithms.prompt_opt settings: {exc}") from exc


def _preflight_grpo(ctx: BuildContext) -> None:
    """Config, model folder, chat template and ``--resume`` checked without torch or Agent Lightning."""
    from aspen_rl.algorithms.grpo.config import DEFAULT_CONFIG_PATH, load_grpo_config

    args = ctx.args
    section = dict(getattr(ctx.settings.algorithms, "grpo", None) or {})
    config_file = section.pop("config_file", DEFAULT_CONFIG_PATH)
    section.pop("seed", None)
    overrides: dict[str, Any] = {"seed": args.seed, **section}
    if args.model:
        overrides["model"] = args.model
    if args.repeats:
        overrides["group_size"] = args.repeats
    try:
        config = load_grpo_config(config_file, **overrides)
    except (ValueError, FileNotFoundError) as exc:
        raise UsageError(f"--algorithm grpo: {exc}") from exc
    local = Path(config.model).expanduser()
    if _looks_local(config.model) and not local.is_dir():
        raise UsageError(
            f"--algorithm grpo: policy model directory not found: {config.model} "
            "(build a tiny CPU model with: python -m aspen_rl.llm.tiny_bytes models/tiny-chat)"
        )
    if not local.exists():
        _check_hub_model(config.model)
    if config.chat_template is not None and not Path(config.chat_template).expanduser().is_file():
        raise UsageError(f"--algorithm grpo: chat template not found: {config.chat_template}")
    if args.resume is None:
        return
    from aspen_rl.algorithms.grpo.resume import ResumeRefused, check_resumable, resolve_checkpoint

    try:
        check_resumable(resolve_checkpoint(args.resume), config, named="--resume")
    except (FileNotFoundError, ResumeRefused) as exc:
        raise UsageError(str(exc)) from exc


def _looks_local(model: str) -> bool:
    """A path rather than a hub id (``org/name``): absolute, ``./``/``~``, deeper, or under a local folder."""
    path = Path(model).expanduser()
    if path.exists() or path.is_absolute() or model.startswith((".", "~")) or model.count("/") > 1:
        return True
    return Path(model.split("/", 1)[0]).is_dir()


def _check_hub_model(model_id: str) -> None:
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
            httpx.head(endpoint, timeout=2.0)
            reachable = True
        except httpx.HTTPError:
            reachable = False
    if not reachable:
        raise UsageError(
            f"--algorithm grpo: model {model_id!r} is not a local folder, not in the Hugging Face cache, "
            "and the hub cannot be reached; pass --model DIR (a tiny CPU model: "
            "python -m aspen_rl.llm.tiny_bytes models/tiny-chat, then --model models/tiny-chat)"
        )


def _build_grpo(ctx: BuildContext) -> Any:
    from aspen_rl.algorithms.grpo.algorithm import GRPOAlgorithm

    try:
        return GRPOAlgorithm.from_settings(
            ctx.settings,
            ctx.resources,
            ctx.report,
            model=ctx.args.model,
            group_size=ctx.args.repeats,
            seed=ctx.args.seed,
            resume=ctx.args.resume,
            test_dataset=ctx.splits.test,
        )
    except (ValueError, FileNotFoundError) as exc:  # GRPOConfigError is a ValueError
        raise UsageError(f"--algorithm grpo: {exc}") from exc


def _preflight_verl(ctx: BuildContext) -> None:
    from aspen_rl.algorithms.verl.config import VerlUnavailableError, ensure_verl_available

    try:
        ensure_verl_available()
    except VerlUnavailableError as exc:
        raise UsageError(str(exc)) from exc


def _build_verl(ctx: BuildContext) -> Any:
    from aspen_rl.algorithms.verl.algorithm import build_verl
    from aspen_rl.algorithms.verl.config import VerlUnavailableError

    run_name = ctx.report.output_dir.name if ctx.report is not None else "verl"
    try:
        return build_verl(ctx.settings, model=ctx.args.model, group_size=ctx.args.repeats, run_name=run_name)
    except (VerlUnavailableError, ValueError, FileNotFoundError) as exc:  # VerlConfigError: ValueError
        raise UsageError(str(exc)) from exc


register_algorithm(AlgorithmSpec("baseline", _build_baseline, help="evaluate the policy on every task"))
register_algorithm(
    AlgorithmSpec(
        "prompt_opt",
        _build_prompt_opt,
        help="beam search over system-prompt edits, chosen on validation",
        needs_validation=True,
        preflight=_preflight_prompt_opt,
    )
)
register_algorithm(
    AlgorithmSpec(
        "grpo",
        _build_grpo,
        help="GRPO weight training of a local model (configs/grpo.yaml)",
        trains_weights=True,
        min_repeats=2,
        preflight=_preflight_grpo,
    )
)
register_algorithm(
    AlgorithmSpec(
        "verl",
        _build_verl,
        help="Agent Lightning's VERL trainer (CUDA GPUs, the verl extra)",
        trains_weights=True,
        preflight=_preflight_verl,
    )
)


def _build_sft(ctx: BuildContext) -> Any:
    raise UsageError(
        "--algorithm sft runs on its own (python -m aspen_rl.train --algorithm sft), not in a rollout loop"
    )


register_algorithm(
    AlgorithmSpec(
        "sft",
        _build_sft,
        help="supervised fine-tuning on recorded demonstrations (configs/sft.yaml), no rollouts",
        trains_weights=True,
        standalone=True,
    )
)

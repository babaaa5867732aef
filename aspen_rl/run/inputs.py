"""A run's inputs, checked before any service starts: settings, tasks, prompt, reward function, endpoint."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from aspen_rl.algorithms.base import AlgorithmSpec
from aspen_rl.algorithms.registry import check_algorithm_sections
from aspen_rl.errors import UsageError
from aspen_rl.settings import Settings, load_settings
from aspen_rl.tasks import load_split, load_tasks
from aspen_rl.tasks.datasets import TaskFileError
from aspen_rl.tasks.splits import TaskSplits

logger = logging.getLogger("aspen_rl")


def load_run_settings(args: argparse.Namespace) -> Settings:
    """Settings from every source, the flags winning; every ``algorithms.<name>`` section names an algorithm.

    Raises:
        UsageError: a missing config file, an invalid value (each named), an unknown algorithm section.
    """
    overrides = {
        "model": args.model,
        "model_api_key": args.api_key,
        "model_api_url": args.api_url,
        "aspen_simulator_url": args.simulator_url,
        "temperature": args.temperature,
    }
    try:
        settings = load_settings(args.config, **overrides)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from exc
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise UsageError(f"invalid settings: {problems}") from exc
    except ValueError as exc:  # malformed YAML and friends
        raise UsageError(f"invalid settings: {exc}") from exc
    check_algorithm_sections(settings)
    return settings


def load_task_splits(args: argparse.Namespace, settings: Settings, spec: AlgorithmSpec) -> TaskSplits:
    """The run's tasks: curated train (``--limit``), ``--tasks`` files, val and test when asked or needed.

    Raises:
        UsageError: a missing or invalid task file, no task at all, duplicate ids, stale expected outputs.
    """
    if "data_dir" in settings.model_fields_set and not settings.data_dir.is_dir():
        raise UsageError(f"data_dir {settings.data_dir} is not a directory")
    data_dir = settings.data_dir if settings.data_dir.is_dir() else None
    use_val = args.use_validation or spec.needs_validation
    try:
        train = load_split("train", data_dir)
        if args.limit is not None:
            train = train[: args.limit]
        for path in args.tasks:
            if not path.is_file():
                raise UsageError(f"task file not found: {path}")
            train += [t if t.split else t.model_copy(update={"split": "custom"}) for t in load_tasks(path)]
        val = load_split("val", data_dir) if use_val else []
        test = load_split("test", data_dir) if args.use_test else []
    except (TaskFileError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from exc
    if not (train or val or test):
        raise UsageError(
            "no task to run: --limit 0 keeps no curated train task; name your own with --tasks FILE"
        )
    ids = [t.task_id for t in [*train, *val, *test]]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise UsageError(f"duplicate task ids across task files: {', '.join(duplicates)}")
    from aspen_rl.tasks.checks import unregenerated_message

    stale = unregenerated_message([*train, *val, *test], [str(p) for p in args.tasks])
    if stale:
        raise UsageError(stale)
    return TaskSplits(train, val, test)


def read_prompt(path: Path | None) -> str | None:
    """The ``--prompt`` file's text (``None`` when none is named); a missing or empty file is refused."""
    if path is None:
        return None
    if not path.is_file():
        raise UsageError(f"prompt file not found: {path}")
    text = path.read_text(encoding="utf-8").strip()
    if not text:
        raise UsageError(f"prompt file is empty: {path}")
    return text


def warn_on_endpoint_credentials(settings: Settings, console: Console) -> None:
    """A key without a URL is unused; a URL without a key sends none: said on the console and in the log."""
    warning = None
    if settings.model_api_key is not None and not settings.model_api_url:
        warning = (
            "an API key is set (--api-key / MODEL_API_KEY) but no model URL (--api-url / MODEL_API_URL): "
            "the key is not used"
        )
    if settings.model_api_url and settings.model_api_key is None:
        warning = (
            f"a model URL is set (--api-url / MODEL_API_URL: {settings.model_api_url}) but no API key "
            "(--api-key / MODEL_API_KEY): requests carry none (fine for a local server; a hosted API "
            "answers 401)"
        )
    if warning is not None:
        logger.warning(warning)
        console.print(f"[yellow]warning:[/] {escape(warning)}")


def check_reward_fn(settings: Settings) -> None:
    """A reward function the user named (``reward_fn`` / ``ASPEN_RL_REWARD_FN``) loads here, or the run stops.

    The runners load it again for each rollout; loading it once now turns a misspelt module into an
    ``error:`` line before any service starts, instead of a traceback in every rollout.
    """
    if settings.reward_fn is None:
        return
    from aspen_rl.reward import load_reward_fn

    try:
        load_reward_fn(settings.reward_fn)
    except (ImportError, ValueError) as exc:
        raise UsageError(
            f"reward function {settings.reward_fn!r} (reward_fn / ASPEN_RL_REWARD_FN) cannot be loaded: "
            f"{type(exc).__name__}: {exc}"
        ) from exc


def reward_description(settings: Settings) -> str:
    """The reward in use, as the console and summary.json state it: the function and its weights."""
    weights = settings.reward
    function = settings.reward_fn or "aspen_rl.reward:AspenReward (built-in)"
    return (
        f"{function}; weights completion {weights.completion:g}, "
        f"tool efficiency {weights.tool_efficiency:g}, response quality {weights.response_quality:g}"
    )


def shown_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The parsed arguments for the log, with the API key masked."""
    return {k: ("**********" if k == "api_key" and v else v) for k, v in vars(args).items()}

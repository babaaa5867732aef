"""``--algorithm verl``: the chemistry agent under Agent Lightning's ``VERL`` (verl on Ray), from settings.

verl feeds the tasks through a Hugging Face ``Dataset`` (Arrow columns) and adds its own keys to each
rollout input, so every task travels as one JSON string (``verl_rows``) and ``VerlTaskAgent`` turns it
back into an ``AspenTask`` before the unchanged ``AspenLitAgent`` runs it. The LiteLLM proxy in front
of verl's vLLM servers refuses to start without a master key: ``local_llm_proxy`` gives it a random
one, binds it to loopback, and the agent sends that key.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from aspen_rl.agent import AspenLitAgent
from aspen_rl.algorithms.verl.config import (
    DEFAULT_VERL_CONFIG,
    VerlConfigError,
    build_verl_algorithm,
    load_verl_config,
)
from aspen_rl.settings import Settings
from aspen_rl.tasks import AspenTask

TASK_KEY = "aspen_task"
"""Column of a verl row holding the task as JSON."""

SECTION_KEYS = frozenset({"config_file", "overrides"})
"""Keys of the ``algorithms.verl`` settings section."""


def verl_config_from_settings(
    settings: Settings, *, model: str | None = None, group_size: int | None = None, run_name: str = "verl"
) -> dict[str, Any]:
    """The ``VERL`` config of a CLI run: ``configs/verl.yaml`` + the ``algorithms.verl`` section + flags.

    The section may hold ``config_file`` (another YAML) and ``overrides`` (dotted keys, e.g.
    ``{"trainer.nnodes": 2}``). Checkpoints go to ``<models_dir>/verl/<run_name>`` unless the overrides
    name ``trainer.default_local_dir``.

    Args:
        settings: Run settings.
        model: ``--model``: ``actor_rollout_ref.model.path`` (a local directory or a hub id).
        group_size: ``--repeats``: ``actor_rollout_ref.rollout.n`` (G).
        run_name: Name of the checkpoint folder (the run's report folder).

    Raises:
        VerlConfigError: an unknown section key, malformed YAML or an invalid config.
        FileNotFoundError: the config file is missing.
    """
    section = settings.algorithms.section("verl")
    unknown = sorted(set(section) - SECTION_KEYS)
    if unknown:
        raise VerlConfigError(f"algorithms.verl: unknown key(s) {unknown}; known: {sorted(SECTION_KEYS)}")
    given = section.get("overrides") or {}
    if not isinstance(given, Mapping):
        raise VerlConfigError("algorithms.verl.overrides must be a mapping of dotted keys to values")
    overrides = dict(given)
    if model:
        overrides["actor_rollout_ref.model.path"] = model
    if group_size:
        overrides["actor_rollout_ref.rollout.n"] = group_size
    overrides.setdefault("trainer.default_local_dir", str(settings.models_dir / "verl" / run_name))
    return load_verl_config(section.get("config_file") or DEFAULT_VERL_CONFIG, overrides)


def build_verl(
    settings: Settings, *, model: str | None = None, group_size: int | None = None, run_name: str = "verl"
) -> Any:
    """Agent Lightning's ``VERL`` algorithm for a CLI run (config checked first).

    Raises:
        VerlConfigError: invalid config.
        VerlUnavailableError: verl, Ray, Hydra or a CUDA GPU missing (fails before anything starts).
    """
    config = verl_config_from_settings(settings, model=model, group_size=group_size, run_name=run_name)
    return build_verl_algorithm(config)


def verl_rows(tasks: Sequence[AspenTask]) -> list[dict[str, str]]:
    """Tasks as verl dataset rows: ``{"task_id": ..., "aspen_task": <task JSON>}``."""
    return [{"task_id": t.task_id, TASK_KEY: t.model_dump_json()} for t in tasks]


class VerlTaskAgent(AspenLitAgent):
    """``AspenLitAgent`` reading its task from a verl row (keys verl adds, e.g. ``data_id``, are ignored)."""

    async def rollout_async(self, task: Any, resources: Any, rollout: Any) -> float:
        """Unpack the row's task, then run the chemistry agent's rollout."""
        if isinstance(task, Mapping) and TASK_KEY in task:
            task = AspenTask.model_validate_json(task[TASK_KEY])
        return await super().rollout_async(task, resources, rollout)


def local_llm_proxy(port: int, *, host: str = "127.0.0.1") -> tuple[Any, str]:
    """Agent Lightning's ``LLMProxy`` for VERL, on loopback, with a fresh random master key.

    Hand it to ``Trainer(llm_proxy=...)`` (VERL's daemon reuses it and fills in the vLLM servers) and
    give the agent the key (``Settings.model_api_key``). Its liveness probe needs no key.

    Returns:
        The proxy (not started) and its master key.
    """
    from agentlightning import LLMProxy
    from agentlightning.utils.server_launcher import PythonServerLauncherArgs

    key = "sk-" + secrets.token_hex(24)
    launcher = PythonServerLauncherArgs(
        port=port, host=host, launch_mode="mp", healthcheck_url="/health/liveliness", startup_timeout=60.0
    )
    proxy = LLMProxy(
        model_list=[], launcher_args=launcher, litellm_config={"general_settings": {"master_key": key}}
    )
    return proxy, key

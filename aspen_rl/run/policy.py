"""What drives a run's rollouts: a local model (``--model PATH``), an endpoint, or the scripted policy."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from aspen_rl.algorithms.base import AlgorithmSpec
from aspen_rl.errors import UsageError
from aspen_rl.settings import Settings
from aspen_rl.tasks.datasets import save_tasks
from aspen_rl.tasks.splits import TaskSplits

if TYPE_CHECKING:
    from agentlightning import LLM

DEFAULT_ERROR_RATE = 0.25
"""The scripted policy's error rate when ``--error-rate`` is not given."""


def local_model_path(args: argparse.Namespace, settings: Settings, spec: AlgorithmSpec) -> Path | None:
    """``--model PATH`` naming a local model, adapter or GRPO checkpoint for baseline / prompt_opt.

    Checked before any service starts (no torch import): a path that is none of these is a usage error.
    A model *name* (no such path) keeps its meaning: the model of the configured endpoint.
    """
    if spec.trains_weights or not args.model or settings.model_api_url:
        return None
    path = Path(args.model).expanduser()
    looks_like_path = path.exists() or args.model.startswith((".", "/", "~")) or args.model.endswith("/")
    if not looks_like_path:
        return None
    from aspen_rl.llm.serve import resolve_model

    try:
        resolve_model(path)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from exc
    return path


def start_policy(
    args: argparse.Namespace,
    settings: Settings,
    spec: AlgorithmSpec,
    splits: TaskSplits,
    stack: ExitStack,
    output_dir: Path,
    local_model: Path | None = None,
) -> tuple[LLM | None, str]:
    """The ``LLM`` resource that drives rollouts and a description of it for logs and the summary.

    Weight-training algorithms publish their own policy endpoint (``None`` here); otherwise a local
    model (``--model PATH``, served on a loopback OpenAI-compatible endpoint for the run), the
    configured model endpoint, else the offline scripted policy started for the run (both stopped by
    ``stack``).
    """
    if spec.trains_weights:
        return None, f"the policy being trained by {spec.name}"
    if local_model is not None:
        from aspen_rl.llm.serve import start_local_model_server

        grpo = settings.algorithms.section("grpo")  # the local server shares GRPO's knobs
        url, stop = start_local_model_server(
            local_model,
            chat_template=grpo.get("chat_template"),
            threads=int(grpo.get("cpu_threads", 0)),
            model_name="local-model",
        )
        stack.callback(stop)
        return llm_resource(
            url, "local-model", proxy=False, temperature=settings.temperature
        ), f"local model {local_model} served at {url}"
    if settings.model_api_url:
        return (
            llm_resource(
                settings.model_api_url, settings.model, proxy=False, temperature=settings.temperature
            ),
            f"model {settings.model} at {settings.model_api_url}",
        )
    from aspen_rl.policy.openai_app import SCRIPTED_MODEL_NAME
    from aspen_rl.subprocesses import scripted_policy

    task_file = output_dir / "tasks.jsonl"
    save_tasks(splits.all(), task_file)
    error_rate = args.error_rate if args.error_rate is not None else DEFAULT_ERROR_RATE
    service = stack.enter_context(
        scripted_policy(
            [task_file], error_rate=error_rate, seed=args.seed, log_path=output_dir / "policy.log"
        )
    )
    description = (
        f"OFFLINE SCRIPTED POLICY (a stand-in, not a model; error rate {error_rate:g}, seed {args.seed})"
    )
    return llm_resource(
        service.url + "/v1", SCRIPTED_MODEL_NAME, proxy=True, temperature=settings.temperature
    ), description


def llm_resource(endpoint: str, model: str, *, proxy: bool, temperature: float) -> LLM:
    """The ``LLM`` resource (no API key inside: runners read it from settings, so it never travels)."""
    from agentlightning import LLM, ProxyLLM

    cls = ProxyLLM if proxy else LLM
    return cls(endpoint=endpoint, model=model, sampling_parameters={"temperature": temperature})

"""``python -m aspen_rl.train``: wire settings, tasks, services, the agent and an algorithm, then run.

Only the wiring is here; each piece is in a module named for it: the algorithm's spec
(:mod:`aspen_rl.algorithms.registry`), the run's inputs (:mod:`aspen_rl.run.inputs`), its simulator
(:mod:`aspen_rl.run.simulator`), its policy (:mod:`aspen_rl.run.policy`), the Agent Lightning trainer
(:mod:`aspen_rl.run.trainer`) and the summary of an interrupted run (:mod:`aspen_rl.run.summary`).
"""

from __future__ import annotations

import argparse
import gc
import logging
import random
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from aspen_rl.algorithms.base import AlgorithmSpec, BuildContext
from aspen_rl.algorithms.registry import get_algorithm
from aspen_rl.cli import build_parser
from aspen_rl.errors import UsageError
from aspen_rl.failures import infrastructure_verdict
from aspen_rl.run.inputs import (
    check_reward_fn,
    load_run_settings,
    load_task_splits,
    read_prompt,
    reward_description,
    shown_arguments,
    warn_on_endpoint_credentials,
)
from aspen_rl.run.policy import local_model_path, start_policy
from aspen_rl.run.simulator import record_simulator_shares, start_simulator
from aspen_rl.run.summary import requested_rollouts, write_interrupted
from aspen_rl.run.trainer import run_trainer
from aspen_rl.run_logging import log_to_file
from aspen_rl.settings import Settings
from aspen_rl.stack_import import StackImport
from aspen_rl.subprocesses import ServiceError

if TYPE_CHECKING:
    from agentlightning import Algorithm
    from agentlightning.types import ResourceUnion

    from aspen_rl.lifecycle import Lifecycle
    from aspen_rl.reporting import RunReport

logger = logging.getLogger("aspen_rl")

LOG_FILE = "training.log"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the process exit code.

    Exit codes: 0 done; 1 every rollout failed, more than ``max_infrastructure_share`` of them failed by the
    infrastructure's fault, or a service could not start; 2 usage error;
    130 stopped by SIGINT (Ctrl-C), 143 stopped by SIGTERM (``kill``): then every process of the run
    has been stopped and ``summary.json`` is marked ``interrupted`` (see :mod:`aspen_rl.lifecycle`).
    """
    from aspen_rl.lifecycle import Lifecycle, descendant_pids, reap_descendants

    before = descendant_pids()
    args = build_parser().parse_args(argv)
    # Wide enough for the reward table when the output goes to a file or a CI log.
    console = Console(stderr=True, width=None if sys.stderr.isatty() else 120)
    lifecycle = Lifecycle()
    lifecycle.keep = before
    try:
        with lifecycle.installed():
            try:
                return _run(args, console, lifecycle)
            except KeyboardInterrupt:  # before the run could write its own summary
                lifecycle.note_keyboard_interrupt()
                console.print(f"[yellow]interrupted by {lifecycle.signal_name}[/]")
                return lifecycle.exit_code
    except UsageError as exc:
        console.print(f"[bold red]error:[/] {escape(str(exc))}")
        return 2
    except ServiceError as exc:
        console.print(f"[bold red]error:[/] {escape(str(exc))}")
        return lifecycle.exit_code or 1
    finally:
        reap_descendants(keep=before)  # the net under every exit path: nothing the run started outlives it


def _run(args: argparse.Namespace, console: Console, lifecycle: Lifecycle) -> int:
    """Check every input, then start the services, build the algorithm and run it; returns the exit code."""
    spec = get_algorithm(args.algorithm)
    if spec.standalone and spec.run is not None:  # sft: no store, services or rollouts
        return spec.run(args, console)
    args.mode = resolve_mode(args, spec)
    settings = load_run_settings(args)
    output_dir = args.output_dir or settings.output_dir / datetime.now().strftime("%Y%m%d-%H%M%S")
    output_dir.mkdir(parents=True, exist_ok=True)
    log_to_file(output_dir / LOG_FILE)
    logger.info("aspen_rl.train arguments: %s", shown_arguments(args))
    logger.info("settings: %s", settings.redacted())
    random.seed(args.seed)
    splits = load_task_splits(args, settings, spec)
    repeats = args.repeats or settings.algorithms.baseline.repeats
    prompt = read_prompt(args.prompt)
    local_model = local_model_path(args, settings, spec)
    warn_on_endpoint_credentials(settings, console)
    _preflight(args, settings, spec)

    stack_import = StackImport()  # overlaps the slow imports with the services' start-up
    run_info: dict[str, Any] = {
        "algorithm": args.algorithm,
        "mode": args.mode,
        "policy": None,
        "simulator": {"url": settings.aspen_simulator_url},
        "n_runners": args.n_runners,
        "repeats": repeats,
        "seed": args.seed,
        "prompt": str(args.prompt) if args.prompt else "default (aspen_rl/agent/default_system_prompt.md)",
        "reward_weights": settings.reward.model_dump(),
        "reward_fn": settings.reward_fn or "aspen_rl.reward:AspenReward",
        "temperature": settings.temperature,
    }
    console.print(f"Reward: {escape(reward_description(settings))}")
    requested = requested_rollouts(args.algorithm, splits, repeats)
    report: RunReport | None = None
    lifecycle.on_timeout = lambda: write_interrupted(report, output_dir, run_info, requested, lifecycle)
    try:
        with ExitStack() as stack:
            settings, run_info["simulator"] = start_simulator(settings, stack, output_dir, console)
            stack_import.wait(console)
            llm, policy = start_policy(args, settings, spec, splits, stack, output_dir, local_model)
            run_info["policy"] = policy
            console.print(f"Rollouts driven by: {policy}")
            logger.info("policy: %s; simulator: %s", policy, settings.aspen_simulator_url)
            resources: dict[str, ResourceUnion] = {"main_llm": llm} if llm is not None else {}
            if prompt is not None:
                from agentlightning import PromptTemplate

                resources["system_prompt"] = PromptTemplate(template=prompt, engine="f-string")
                logger.info("system prompt from %s (%d characters)", args.prompt, len(prompt))

            from aspen_rl.reporting import RunReport

            report = RunReport(output_dir, console)
            algorithm = build_algorithm(BuildContext(args, settings, resources, report, splits, repeats))
            run_trainer(args, settings, algorithm, splits)
    except KeyboardInterrupt:
        lifecycle.note_keyboard_interrupt()  # our handler already set the signal; a bare Ctrl-C is SIGINT
    record_simulator_shares(run_info["simulator"], output_dir, console)
    if lifecycle.interrupted:
        # Every service of the run is stopped by now (the ExitStack above has unwound).
        logger.info("services stopped; writing the interrupted run's summary")
        write_interrupted(report, output_dir, run_info, requested, lifecycle)
        logger.info("interrupted by %s; exit %d", lifecycle.signal_name, lifecycle.exit_code)
        console.print(
            f"[yellow]interrupted by {lifecycle.signal_name}:[/] partial run written to {output_dir} "
            f"(summary.json marked interrupted); exit {lifecycle.exit_code}"
        )
        return lifecycle.exit_code
    assert report is not None  # the ExitStack above ran to its end
    return _finish(report, settings, run_info, requested, output_dir, console)


def _finish(
    report: RunReport,
    settings: Settings,
    run_info: dict[str, Any],
    requested: dict[str, int | None],
    output_dir: Path,
    console: Console,
) -> int:
    """Write the summary; exit 1 when every rollout failed or the infrastructure failed too many of them."""
    verdict = infrastructure_verdict([r.failure for r in report.records], settings.max_infrastructure_share)
    summary = report.finish(requested=requested, failure=verdict, **run_info)
    console.print(f"Run written to {output_dir} ({summary['rollouts']} rollouts)")
    if report.records and all(r.status != "ok" for r in report.records):
        console.print(
            f"[bold red]error:[/] every rollout failed, e.g. {escape(str(report.records[0].error))}"
        )
        return 1
    if verdict:
        logger.error(verdict)
        console.print(f"[bold red]error:[/] {escape(verdict)}")
        return 1
    return 0


def resolve_mode(args: argparse.Namespace, spec: AlgorithmSpec) -> str:
    """``--mode``, defaulting to dev for the fast algorithms and train for the weight-training ones."""
    if args.mode is None:
        return spec.default_mode
    if args.mode == "dev" and spec.trains_weights:
        raise UsageError(
            f"--algorithm {spec.name} trains through Trainer.fit: use --mode train "
            "(--mode dev runs only the fast algorithms)"
        )
    return str(args.mode)


def _check_repeats(args: argparse.Namespace, spec: AlgorithmSpec) -> None:
    if args.repeats is not None and args.repeats < spec.min_repeats:
        raise UsageError(
            f"--algorithm {spec.name} compares rollouts within a group: "
            f"--repeats (G) must be >= {spec.min_repeats}"
        )


def _preflight(args: argparse.Namespace, settings: Settings, spec: AlgorithmSpec) -> None:
    """The algorithm's own argument, path, model and environment checks, before any service starts."""
    _check_repeats(args, spec)
    check_reward_fn(settings)
    if spec.preflight is not None:
        spec.preflight(BuildContext(args=args, settings=settings))


def build_algorithm(context: BuildContext) -> Algorithm:
    """The registered algorithm's builder (its spec in :mod:`aspen_rl.algorithms.registry`)."""
    spec = get_algorithm(context.args.algorithm)
    _check_repeats(context.args, spec)
    return spec.build(context)


def run_cli() -> None:
    """Entry point: run :func:`main` and exit with its code, skipping the interpreter's final full GC.

    The run has stopped everything it started and flushed its files by then; a last collection of
    the agent stack's large heap only delays the exit by seconds (``gc.freeze`` exempts it).
    """
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run_cli()

"""``python -m aspen_rl.train``: wire settings, tasks, services, the agent and an algorithm, then run."""

from __future__ import annotations

import gc
import logging
import multiprocessing
import random
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from aspen_rl.algorithms.registry import BuildContext, get_algorithm
from aspen_rl.cli import build_parser
from aspen_rl.errors import UsageError
from aspen_rl.failures import infrastructure_verdict
from aspen_rl.run_logging import log_to_file
from aspen_rl.settings import Settings, load_settings
from aspen_rl.stack_import import StackImport
from aspen_rl.subprocesses import ServiceError
from aspen_rl.tasks import AspenTask, load_split, load_tasks
from aspen_rl.tasks.datasets import TaskFileError, save_tasks

logger = logging.getLogger("aspen_rl")

LOG_FILE = "training.log"
DISPATCH_LOG = "simulator_dispatch.jsonl"
DEFAULT_ERROR_RATE = 0.25


@dataclass
class TaskSplits:
    """The tasks of one run, by split (custom tasks join train)."""

    train: list[AspenTask]
    val: list[AspenTask] = field(default_factory=list)
    test: list[AspenTask] = field(default_factory=list)

    def all(self) -> list[AspenTask]:
        """Every task of the run."""
        return [*self.train, *self.val, *self.test]


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


def _run(args: Any, console: Console, lifecycle: Any) -> int:
    if get_algorithm(args.algorithm).standalone:  # sft: no store, services or rollouts
        return _run_sft(args, console)
    args.mode = _resolve_mode(args)
    settings = _load_settings(args)
    output_dir = args.output_dir or settings.output_dir / datetime.now().strftime("%Y%m%d-%H%M%S")
    output_dir.mkdir(parents=True, exist_ok=True)
    log_to_file(output_dir / LOG_FILE)
    logger.info("aspen_rl.train arguments: %s", _shown_arguments(args))
    logger.info("settings: %s", settings.redacted())
    random.seed(args.seed)
    splits = _load_tasks(args, settings)
    repeats = args.repeats or settings.algorithms.baseline.repeats
    prompt = _read_prompt(args.prompt)
    local_model = _local_model(args, settings)
    if settings.model_api_key is not None and not settings.model_api_url:
        warning = (
            "an API key is set (--api-key / MODEL_API_KEY) but no model URL (--api-url / MODEL_API_URL): "
            "the key is not used"
        )
        logger.warning(warning)
        console.print(f"[yellow]warning:[/] {warning}")
    if settings.model_api_url and settings.model_api_key is None:
        warning = (
            f"a model URL is set (--api-url / MODEL_API_URL: {settings.model_api_url}) but no API key "
            "(--api-key / MODEL_API_KEY): requests carry none (fine for a local server; a hosted API "
            "answers 401)"
        )
        logger.warning(warning)
        console.print(f"[yellow]warning:[/] {escape(warning)}")
    _preflight(args, settings)

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
    requested = _requested_splits(args, splits, repeats)
    report: Any = None
    lifecycle.on_timeout = lambda: _write_interrupted(report, output_dir, run_info, requested, lifecycle)
    try:
        with ExitStack() as stack:
            settings, run_info["simulator"] = _simulator(settings, stack, output_dir, console)
            stack_import.wait(console)
            llm, policy = _policy(args, settings, splits, stack, output_dir, local_model)
            run_info["policy"] = policy
            console.print(f"Rollouts driven by: {policy}")
            logger.info("policy: %s; simulator: %s", policy, settings.aspen_simulator_url)

            resources: dict[str, Any] = {"main_llm": llm} if llm is not None else {}
            if prompt is not None:
                from agentlightning import PromptTemplate

                resources["system_prompt"] = PromptTemplate(template=prompt, engine="f-string")
                logger.info("system prompt from %s (%d characters)", args.prompt, len(prompt))

            from aspen_rl.reporting import RunReport

            report = RunReport(output_dir, console)
            algorithm = _build_algorithm(args, settings, resources, report, splits, repeats)
            _train(args, settings, algorithm, splits)
    except KeyboardInterrupt:
        lifecycle.note_keyboard_interrupt()  # our handler already set the signal; a bare Ctrl-C is SIGINT
    _record_simulator_shares(run_info["simulator"], output_dir, console)
    if lifecycle.interrupted:
        # Every service of the run is stopped by now (the ExitStack above has unwound).
        logger.info("services stopped; writing the interrupted run's summary")
        _write_interrupted(report, output_dir, run_info, requested, lifecycle)
        logger.info("interrupted by %s; exit %d", lifecycle.signal_name, lifecycle.exit_code)
        console.print(
            f"[yellow]interrupted by {lifecycle.signal_name}:[/] partial run written to {output_dir} "
            f"(summary.json marked interrupted); exit {lifecycle.exit_code}"
        )
        return lifecycle.exit_code
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


def _simulator(
    settings: Settings, stack: ExitStack, output_dir: Path, console: Console
) -> tuple[Settings, dict[str, Any]]:
    """The run's simulator: the named one, used only if it passes the check, or a mock started for the run.

    A URL named anywhere (environment, .env, YAML, ``--simulator-url``) is never replaced: a certificate
    that is not trusted, nothing listening, or a service that does not speak the contract stops the run
    here, before any rollout. Only when no URL is named does the run start its own mock.

    Returns:
        The settings pointing at the simulator, and what ``summary.json`` records of it.

    Raises:
        UsageError: the named simulator cannot be used (the message says why and how to fix it).
    """
    from aspen_rl.simulator.probe import check_simulator
    from aspen_rl.subprocesses import mock_simulator, timeout_problem

    url = settings.aspen_simulator_url
    tls = _tls_note(settings)
    if settings.simulator_named:
        token = settings.simulator_token.get_secret_value() if settings.simulator_token else None
        checks = [
            check_simulator(
                one,
                verify_tls=settings.simulator_verify_tls,
                ca_bundle=settings.simulator_ca_bundle,
                token=token,
            )
            for one in settings.simulator_urls
        ]
        for check in checks:
            if not check.ok:
                raise UsageError(
                    f"simulator {check.url}: {check.problem}. A named simulator is used or the run stops "
                    "(never replaced by the mock); leave ASPEN_SIMULATOR_URL unset to start a mock instead"
                )
        services = {c.url: "the mock (simulator_mock)" if c.is_mock else "an Aspen service" for c in checks}
        info: dict[str, Any] = {"url": url, "source": "external", "services": services, "tls": tls}
        shown = ", ".join(f"{one} ({kind})" for one, kind in services.items())
        console.print(f"Simulator: {shown}, external" + (f", TLS {tls}" if tls else ""))
        for check in checks:
            problem = timeout_problem(settings.simulator_timeout_s, check.health)
            if problem:
                logger.warning(problem)
                console.print(f"[yellow]warning:[/] {escape(problem)}")
    else:
        service = stack.enter_context(
            mock_simulator(
                output_dir / "simulator_results",
                log_path=output_dir / "simulator.log",
                client_timeout_s=settings.simulator_timeout_s,
            )
        )
        settings = settings.model_copy(update={"aspen_simulator_url": service.url})
        info = {
            "url": service.url,
            "source": "started mock",
            "services": {service.url: "the mock (simulator_mock)"},
        }
        info["schemas"] = "packaged"
        console.print(
            f"Simulator: started the mock for this run at {service.url} (no ASPEN_SIMULATOR_URL named)"
        )
    limit = settings.simulator_max_runs_per_service
    info["max_runs_per_service"] = (
        limit
        if limit is not None
        else "1 per Aspen service, no limit on the mock (simulator_max_runs_per_service)"
    )
    settings = settings.model_copy(update={"simulator_dispatch_log": output_dir / DISPATCH_LOG})
    logger.info("simulator: %s", info)
    return settings, info


def _record_simulator_shares(info: dict[str, Any], output_dir: Path, console: Console) -> None:
    """Each simulator service's share of the run's simulations (from the pool's dispatch log), into the
    summary's ``simulator`` record; printed when the run used more than one service."""
    from aspen_rl.simulator.pool import pool_report

    services = info.get("services") or {}
    if not services:
        return
    info["runs_per_service"] = shares = pool_report(output_dir / DISPATCH_LOG, list(services))
    if len(shares) > 1:
        parts = []
        for url, share in shares.items():
            out = f", out {share['unreachable']}x" if share["unreachable"] else ""
            parts.append(f"{url} {share['runs']} ({share['share']:.0%}{out})")
        console.print(f"Simulations per service: {', '.join(parts)}")


def _tls_note(settings: Settings) -> str | None:
    """How the simulator's certificate is checked, for an https URL (None for http)."""
    if not any(url.startswith("https://") for url in settings.simulator_urls):
        return None
    if not settings.simulator_verify_tls:
        return "certificate not verified (simulator_verify_tls false)"
    if settings.simulator_ca_bundle is not None:
        return f"verified against the CA bundle {settings.simulator_ca_bundle}"
    return "verified against the default CA bundle"


def _requested_splits(args: Any, splits: TaskSplits, repeats: int) -> dict[str, int | None]:
    """``{split: expected rollouts}`` of the run; the count is known for the baseline only."""
    counts: dict[str, int] = {}
    for default, tasks in (("train", splits.train), ("val", splits.val), ("test", splits.test)):
        for task in tasks:
            key = task.split or default
            counts[key] = counts.get(key, 0) + 1
    if args.algorithm == "baseline":
        return {split: n * repeats for split, n in counts.items()}
    return dict.fromkeys(counts)


def _write_interrupted(
    report: Any, output_dir: Path, run_info: dict[str, Any], requested: dict[str, int | None], lifecycle: Any
) -> None:
    """``summary.json`` of an interrupted run: what completed, what is missing, the signal."""
    from aspen_rl.reporting import completion, write_summary

    if report is not None:
        report.finish(requested=requested, interrupted_by=lifecycle.signal_name, **run_info)
        return
    summary = {  # stopped before any rollout could run
        "status": "interrupted",
        "interrupted": True,
        "signal": lifecycle.signal_name,
        "rollouts": 0,
        **run_info,
        **completion([], requested),
        "splits": {},
    }
    write_summary(output_dir, summary)


def _run_sft(args: Any, console: Console) -> int:
    """``--algorithm sft``: ``--config`` (default configs/sft.yaml), overridden by --model, --seed and
    --output-dir; checks before any work; no rollouts."""
    from aspen_rl.algorithms.sft.algorithm import run_sft
    from aspen_rl.algorithms.sft.config import DEFAULT_CONFIG_PATH, load_sft_config

    overrides: dict[str, Any] = {"seed": args.seed}
    if args.model:
        overrides["model"] = args.model
    if args.output_dir:
        overrides.update(output_dir=str(args.output_dir.parent), run_name=args.output_dir.name)
    try:
        config = load_sft_config(args.config or DEFAULT_CONFIG_PATH, **overrides)
        path = run_sft(config, resume=args.resume, console=console, log_file=True)
    except (ValueError, FileNotFoundError) as exc:  # SFTConfigError, SFTPreflightError are ValueErrors
        raise UsageError(f"--algorithm sft: {exc}") from exc
    console.print(f"SFT checkpoint written to {path} (start GRPO from it: --algorithm grpo --model {path})")
    return 0


def _resolve_mode(args: Any) -> str:
    """``--mode``, defaulting to dev for the fast algorithms and train for the weight-training ones."""
    spec = get_algorithm(args.algorithm)
    if args.mode is None:
        return spec.default_mode
    if args.mode == "dev" and spec.trains_weights:
        raise UsageError(
            f"--algorithm {args.algorithm} trains through Trainer.fit: use --mode train "
            "(--mode dev runs only the fast algorithms)"
        )
    return args.mode


def _check_repeats(args: Any) -> None:
    minimum = get_algorithm(args.algorithm).min_repeats
    if args.repeats is not None and args.repeats < minimum:
        raise UsageError(
            f"--algorithm {args.algorithm} compares rollouts within a group: "
            f"--repeats (G) must be >= {minimum}"
        )


def _preflight(args: Any, settings: Settings) -> None:
    """The algorithm's own argument, path, model and environment checks, before any service starts."""
    spec = get_algorithm(args.algorithm)
    _check_repeats(args)
    _check_reward_fn(settings)
    if spec.preflight is not None:
        spec.preflight(BuildContext(args=args, settings=settings))


def _check_reward_fn(settings: Settings) -> None:
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


def _local_model(args: Any, settings: Settings) -> Path | None:
    """``--model PATH`` naming a local model, adapter or GRPO checkpoint for baseline / prompt_opt.

    Checked before any service starts (no torch import): a path that is none of these is a usage error.
    A model *name* (no such path) keeps its meaning: the model of the configured endpoint.
    """
    if get_algorithm(args.algorithm).trains_weights or not args.model or settings.model_api_url:
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


def _policy(
    args: Any,
    settings: Settings,
    splits: TaskSplits,
    stack: ExitStack,
    output_dir: Path,
    local_model: Path | None = None,
) -> tuple[Any, str]:
    """The ``LLM`` resource that drives rollouts and a description of it for logs and the summary.

    Weight-training algorithms publish their own policy endpoint (``None`` here); otherwise a local
    model (``--model PATH``, served on a loopback OpenAI-compatible endpoint for the run), the
    configured model endpoint, else the offline scripted policy started for the run.
    """
    if get_algorithm(args.algorithm).trains_weights:
        return None, f"the policy being trained by {args.algorithm}"
    if local_model is not None:
        from aspen_rl.llm.serve import start_local_model_server

        grpo = getattr(settings.algorithms, "grpo", None) or {}  # the local server shares GRPO's knobs
        url, stop = start_local_model_server(
            local_model,
            chat_template=grpo.get("chat_template"),
            threads=int(grpo.get("cpu_threads", 0)),
            model_name="local-model",
        )
        stack.callback(stop)
        return _llm_resource(
            url, "local-model", proxy=False, temperature=settings.temperature
        ), f"local model {local_model} served at {url}"
    if settings.model_api_url:
        return (
            _llm_resource(
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
    return _llm_resource(
        service.url + "/v1", SCRIPTED_MODEL_NAME, proxy=True, temperature=settings.temperature
    ), description


def _shown_arguments(args: Any) -> dict[str, Any]:
    """The parsed arguments for the log, with the API key masked."""
    return {k: ("**********" if k == "api_key" and v else v) for k, v in vars(args).items()}


def _load_settings(args: Any) -> Settings:
    overrides = {
        "model": args.model,
        "model_api_key": args.api_key,
        "model_api_url": args.api_url,
        "aspen_simulator_url": args.simulator_url,
        "temperature": args.temperature,
    }
    try:
        return load_settings(args.config, **overrides)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from exc
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise UsageError(f"invalid settings: {problems}") from exc
    except ValueError as exc:  # malformed YAML and friends
        raise UsageError(f"invalid settings: {exc}") from exc


def _load_tasks(args: Any, settings: Settings) -> TaskSplits:
    if "data_dir" in settings.model_fields_set and not settings.data_dir.is_dir():
        raise UsageError(f"data_dir {settings.data_dir} is not a directory")
    data_dir = settings.data_dir if settings.data_dir.is_dir() else None
    use_val = args.use_validation or get_algorithm(args.algorithm).needs_validation
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


def _read_prompt(path: Path | None) -> str | None:
    if path is None:
        return None
    if not path.is_file():
        raise UsageError(f"prompt file not found: {path}")
    text = path.read_text(encoding="utf-8").strip()
    if not text:
        raise UsageError(f"prompt file is empty: {path}")
    return text


def _llm_resource(endpoint: str, model: str, *, proxy: bool, temperature: float) -> Any:
    """The ``LLM`` resource (no API key inside: runners read it from settings, so it never travels)."""
    from agentlightning import LLM, ProxyLLM

    cls = ProxyLLM if proxy else LLM
    return cls(endpoint=endpoint, model=model, sampling_parameters={"temperature": temperature})


def _build_algorithm(
    args: Any, settings: Settings, resources: dict[str, Any], report: Any, splits: TaskSplits, repeats: int
) -> Any:
    """The registered algorithm's builder (:mod:`aspen_rl.algorithms.registry`)."""
    _check_repeats(args)
    context = BuildContext(args, settings, resources, report, splits, repeats)
    return get_algorithm(args.algorithm).build(context)


def _train(args: Any, settings: Settings, algorithm: Any, splits: TaskSplits) -> None:
    """Run the algorithm with ``n_runners`` forked runners on a store bound to a free loopback port."""
    from agentlightning import LitAgentRunner, Trainer
    from agentlightning.algorithm import FastAlgorithm
    from agentlightning.execution.client_server import ClientServerExecutionStrategy
    from agentlightning.tracer.otel import OtelTracer

    from aspen_rl.agent import AspenLitAgent
    from aspen_rl.subprocesses import free_port

    multiprocessing.set_start_method("fork", force=True)  # Agent Lightning forks its runners
    agent = AspenLitAgent(settings)
    train, val, llm_proxy = splits.train, splits.val or None, None
    if args.algorithm == "verl":  # tasks as JSON rows; the agent holds the key of VERL's LLM proxy
        from pydantic import SecretStr

        from aspen_rl.algorithms.verl.algorithm import VerlTaskAgent, local_llm_proxy, verl_rows

        llm_proxy, key = local_llm_proxy(free_port())
        agent = VerlTaskAgent(settings.model_copy(update={"model_api_key": SecretStr(key)}))
        train, val = verl_rows(splits.train), verl_rows(splits.val) or None
    tracer = OtelTracer()
    trainer = Trainer(
        algorithm=algorithm,
        n_runners=args.n_runners,
        tracer=tracer,
        runner=LitAgentRunner(tracer=tracer, poll_interval=0.1, interval_jitter=0.05),
        strategy=ClientServerExecutionStrategy(
            n_runners=args.n_runners,
            server_host="127.0.0.1",
            server_port=free_port(),
            # Runners ignore SIGINT (aspen_rl.lifecycle): after the cooperative wait they get SIGTERM.
            graceful_timeout=5.0,
            terminate_timeout=3.0,
        ),
        llm_proxy=llm_proxy,
    )
    if args.mode == "dev":
        if not isinstance(algorithm, FastAlgorithm):
            raise UsageError(
                f"--mode dev needs a fast algorithm; run --algorithm {args.algorithm} with --mode train"
            )
        trainer.dev(agent, splits.train, val_dataset=splits.val or None)
    else:
        trainer.fit(agent, train, val_dataset=val)


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

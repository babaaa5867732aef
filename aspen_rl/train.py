"""``python -m aspen_rl.train``: wire settings, tasks, services, the agent and an algorithm, then run."""

from __future__ import annotations

import gc
import logging
import multiprocessing
import random
import sys
import time
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
from aspen_rl.services import ServiceError
from aspen_rl.settings import Settings, load_settings
from aspen_rl.tasks import AspenTask, load_split, load_tasks
from aspen_rl.tasks.datasets import TaskFileError, save_tasks

logger = logging.getLogger("aspen_rl")

LOG_FILE = "training.log"
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
    _configure_logging(output_dir / LOG_FILE)
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
    _preflight(args, settings)

    stack_import = _StackImport()  # overlaps the slow imports with the services' start-up
    from aspen_rl.services import is_healthy, is_loopback, mock_simulator

    run_info: dict[str, Any] = {
        "algorithm": args.algorithm,
        "mode": args.mode,
        "policy": None,
        "simulator": settings.aspen_simulator_url,
        "n_runners": args.n_runners,
        "repeats": repeats,
        "seed": args.seed,
        "prompt": str(args.prompt) if args.prompt else "default (aspen_rl/agent/default_system_prompt.md)",
        "reward_weights": settings.reward.model_dump(),
    }
    requested = _requested_splits(args, splits, repeats)
    report: Any = None
    lifecycle.on_timeout = lambda: _write_interrupted(report, output_dir, run_info, requested, lifecycle)
    try:
        with ExitStack() as stack:
            if not is_healthy(
                settings.aspen_simulator_url + "/health", timeout_s=2.0, verify=settings.simulator_verify_tls
            ):
                if not is_loopback(settings.aspen_simulator_url):
                    raise ServiceError(
                        f"no simulator answers GET /health at {settings.aspen_simulator_url} "
                        "(checked for 2 s); the mock stands in only for a loopback URL: a remote "
                        "service is never replaced silently"
                    )
                service = stack.enter_context(
                    mock_simulator(
                        output_dir / "simulator_results",
                        log_path=output_dir / "simulator.log",
                        client_timeout_s=settings.simulator_timeout_s,
                    )
                )
                console.print(
                    f"No simulator at {settings.aspen_simulator_url}; started the mock: {service.url}"
                )
                settings = settings.model_copy(update={"aspen_simulator_url": service.url})
                run_info["simulator"] = service.url
            _warn_on_timeouts(settings, console)
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


def _warn_on_timeouts(settings: Settings, console: Console) -> None:
    """Warn when the simulator's run budget + queue wait (its /health) is not below the client's timeout."""
    import httpx

    from aspen_rl.services import timeout_problem

    try:
        health = httpx.get(
            settings.aspen_simulator_url + "/health", timeout=2.0, verify=settings.simulator_verify_tls
        ).json()
    except (httpx.HTTPError, ValueError):
        return
    problem = timeout_problem(settings.simulator_timeout_s, health if isinstance(health, dict) else {})
    if problem:
        logger.warning(problem)
        console.print(f"[yellow]warning:[/] {escape(problem)}")


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
    """``--algorithm sft``: configs/sft.yaml, overridden by --model, --seed and --output-dir; no rollouts."""
    from aspen_rl.algorithms.sft.algorithm import run_sft
    from aspen_rl.algorithms.sft.config import load_sft_config

    overrides: dict[str, Any] = {"seed": args.seed}
    if args.model:
        overrides["model"] = args.model
    if args.output_dir:
        overrides.update(output_dir=str(args.output_dir.parent), run_name=args.output_dir.name)
    try:
        config = load_sft_config(**overrides)
        path = run_sft(config, resume=args.resume)
    except (ValueError, FileNotFoundError) as exc:  # SFTConfigError is a ValueError
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
    if spec.preflight is not None:
        spec.preflight(BuildContext(args=args, settings=settings))


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
    from aspen_rl.serve import resolve_model

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
        from aspen_rl.serve import start_local_model_server

        grpo = getattr(settings.algorithms, "grpo", None) or {}  # the local server shares GRPO's knobs
        url, stop = start_local_model_server(
            local_model,
            chat_template=grpo.get("chat_template"),
            threads=int(grpo.get("cpu_threads", 0)),
            model_name="local-model",
        )
        stack.callback(stop)
        return _llm_resource(url, "local-model", proxy=False), f"local model {local_model} served at {url}"
    if settings.model_api_url:
        return (
            _llm_resource(settings.model_api_url, settings.model, proxy=False),
            f"model {settings.model} at {settings.model_api_url}",
        )
    from aspen_rl.policy.server import SCRIPTED_MODEL_NAME
    from aspen_rl.services import scripted_policy

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
    return _llm_resource(service.url + "/v1", SCRIPTED_MODEL_NAME, proxy=True), description


def _shown_arguments(args: Any) -> dict[str, Any]:
    """The parsed arguments for the log, with the API key masked."""
    return {k: ("**********" if k == "api_key" and v else v) for k, v in vars(args).items()}


def _load_settings(args: Any) -> Settings:
    overrides = {
        "model": args.model,
        "model_api_key": args.api_key,
        "model_api_url": args.api_url,
        "aspen_simulator_url": args.simulator_url,
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
        if args.limit:
            train = train[: args.limit]
        for path in args.tasks:
            if not path.is_file():
                raise UsageError(f"task file not found: {path}")
            train += [t if t.split else t.model_copy(update={"split": "custom"}) for t in load_tasks(path)]
        val = load_split("val", data_dir) if use_val else []
        test = load_split("test", data_dir) if args.use_test else []
    except (TaskFileError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from exc
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


def _llm_resource(endpoint: str, model: str, *, proxy: bool) -> Any:
    """The ``LLM`` resource (no API key inside: runners read it from settings, so it never travels)."""
    from agentlightning import LLM, ProxyLLM

    cls = ProxyLLM if proxy else LLM
    return cls(endpoint=endpoint, model=model, sampling_parameters={"temperature": 0.7})


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
    from aspen_rl.services import free_port

    multiprocessing.set_start_method("fork", force=True)  # Agent Lightning forks its runners
    agent = AspenLitAgent(settings)
    train, val, llm_proxy = splits.train, splits.val or None, None
    if args.algorithm == "verl":  # tasks as JSON rows; the agent holds the key of VERL's LLM proxy
        from pydantic import SecretStr

        from aspen_rl.algorithms.verl import VerlTaskAgent, local_llm_proxy, verl_rows

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


def _configure_logging(log_file: Path) -> None:
    """Everything at INFO into the run's ``training.log``; the console keeps the progress bar and tables.

    Agent Lightning's store server starts uvicorn with its default logging config, which would print
    INFO lines on the console: that config is pointed at this file instead.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    file_handler = logging.FileHandler(log_file, encoding="utf-8")
    file_handler.setFormatter(
        logging.Formatter("%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s")
    )
    file_handler.addFilter(_StoreRaceFilter())
    # The store's polls would write an access line every 0.1 s: only their warnings are kept.
    file_handler.addFilter(lambda r: r.name != "uvicorn.access" or r.levelno >= logging.WARNING)
    root.addHandler(file_handler)
    root.setLevel(logging.INFO)
    _uvicorn_into_the_log()
    for noisy in (
        "httpx",
        "httpcore",
        "autogen_core",
        "autogen_agentchat",
        "openai",
        "LiteLLM",
        "uvicorn.access",
    ):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _uvicorn_into_the_log() -> None:
    """Make uvicorn's default logging config (used by every ``uvicorn.Config`` of this process and its
    forks, e.g. the Agent Lightning store server) hand its records to the root logger, not the console."""
    from uvicorn.config import LOGGING_CONFIG

    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        entry = LOGGING_CONFIG["loggers"].setdefault(name, {})
        entry["handlers"] = []
        entry["propagate"] = True


AGENT_STACK = ("agentlightning", "aspen_rl.agent")
"""The slow imports of a run (Agent Lightning, AutoGen, LiteLLM, OpenTelemetry): 5-90 s on a cold cache."""


class _StackImport:
    """Imports the agent stack in a thread while the services start; :meth:`wait` shows a spinner."""

    def __init__(self) -> None:
        import threading

        self.error: BaseException | None = None
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._load, name="aspen_rl-import", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        import importlib

        try:
            for name in AGENT_STACK:
                importlib.import_module(name)
        except BaseException as exc:  # re-raised in the main thread by wait()
            self.error = exc

    def wait(self, console: Console) -> None:
        """Block until the imports are done, with a spinner naming them and the seconds spent."""
        if self._thread.is_alive() and not console.is_terminal:  # a log or a pipe: one line, no spinner
            console.print("Loading Agent Lightning, AutoGen and LiteLLM (first run: up to 90 s)...")
            self._thread.join()
        elif self._thread.is_alive():
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            with Progress(
                SpinnerColumn(),
                TextColumn("Loading Agent Lightning, AutoGen and LiteLLM (first run: up to 90 s)"),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            ) as progress:
                task = progress.add_task("import", total=None)
                progress.tasks[task].start_time = self.started  # count from the import's start
                while self._thread.is_alive():
                    self._thread.join(0.1)
        seconds = time.monotonic() - self.started
        logger.info("agent stack imported in %.1f s", seconds)
        console.print(f"Loaded Agent Lightning, AutoGen and LiteLLM ({seconds:.0f} s)")
        if self.error is not None:
            raise self.error


class _StoreRaceFilter(logging.Filter):
    """One line instead of a traceback for a runner that polled the store before it was up.

    Agent Lightning forks the runners before it starts the store server; on a loaded machine a runner's
    first heartbeat can come before the server answers, and Agent Lightning logs that (then retries and
    carries on) with a full traceback. The line and the exception's text are kept.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.name.startswith("agentlightning.runner") and "Heartbeat" in str(
            record.msg
        ):
            record.msg = f"{record.getMessage()} ({record.exc_info[1]!r}; retried)"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


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

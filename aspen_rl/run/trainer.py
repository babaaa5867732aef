"""Running a built algorithm through Agent Lightning's ``Trainer``: forked runners, a loopback store."""

from __future__ import annotations

import argparse
import multiprocessing
from typing import TYPE_CHECKING, Any

from aspen_rl.errors import UsageError
from aspen_rl.settings import Settings
from aspen_rl.tasks.splits import TaskSplits

if TYPE_CHECKING:
    from agentlightning import Algorithm


def run_trainer(
    args: argparse.Namespace, settings: Settings, algorithm: Algorithm, splits: TaskSplits
) -> None:
    """Run ``algorithm`` with ``n_runners`` forked runners on a store bound to a free loopback port.

    ``--mode dev`` runs ``Trainer.dev`` (fast algorithms only), ``--mode train`` ``Trainer.fit``.
    """
    from agentlightning import LitAgentRunner, Trainer
    from agentlightning.algorithm import FastAlgorithm
    from agentlightning.execution.client_server import ClientServerExecutionStrategy
    from agentlightning.tracer.otel import OtelTracer

    from aspen_rl.agent import AspenLitAgent
    from aspen_rl.subprocesses import free_port

    multiprocessing.set_start_method("fork", force=True)  # Agent Lightning forks its runners
    agent = AspenLitAgent(settings)
    train: Any = splits.train
    val: Any = splits.val or None
    llm_proxy = None
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

"""``python -m aspen_rl.policy``: serve the offline scripted policy on a loopback port."""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

import uvicorn

from aspen_rl.policy.openai_app import create_policy_app
from aspen_rl.policy.scripted import ScriptedPolicy
from aspen_rl.tasks import load_tasks
from simulator_mock.service.parent_watch import die_with_parent


def main(argv: list[str] | None = None) -> None:
    """Parse arguments and serve until interrupted."""
    parser = argparse.ArgumentParser(
        prog="python -m aspen_rl.policy",
        description="Serve the OFFLINE SCRIPTED POLICY (a stand-in, not a language model) behind an "
        "OpenAI-compatible /v1/chat/completions endpoint. It replays each task's reference solution "
        "with seeded mistakes and ignores prompts.",
    )
    parser.add_argument(
        "--tasks", nargs="+", type=Path, required=True, help="JSONL task files it may be asked about"
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--error-rate", type=float, default=0.25, help="probability of each injected mistake")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--latency-ms", type=float, default=0.0, help="added wait per completion, to emulate a hosted model"
    )
    parser.add_argument("--log-level", default="warning", help="uvicorn log level (default warning)")
    parser.add_argument(
        "--parent-pid", type=int, default=None, help="stop when this process ends, however it ends"
    )
    args = parser.parse_args(argv)
    if args.parent_pid is not None:
        die_with_parent(signal.SIGTERM, parent_pid=args.parent_pid)
    tasks = [task for path in args.tasks for task in load_tasks(path)]
    policy = ScriptedPolicy(tasks, error_rate=args.error_rate, seed=args.seed)
    app = create_policy_app(policy, latency_s=args.latency_ms / 1000.0)
    print(
        f"offline scripted policy: {len(tasks)} task(s), error rate {args.error_rate:g}, seed {args.seed}",
        flush=True,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()

"""Rollout throughput of the offline stack for 1, 2 and 4 runners, and where a rollout's time goes.

Runs ``python -m aspen_rl.train`` (scripted policy, auto-started mock simulator) once per runner
count and reads back its ``summary.json`` and ``rollouts.jsonl``. Prints rollouts/s, the speed-up
over one runner, and per rollout: wall time, time in the model endpoint, time in the simulator,
and the framework overhead (the rest: AutoGen, tools, reward, store, scheduling). Also times the
README's dev command end to end (cold start included).

The instant scripted policy makes every rollout pure CPU, so on a 2-core machine the runners
compete for the cores with the store, the policy and the simulator. A second table repeats the
measurement with ``--latency-ms`` added to every model answer (a hosted LLM takes 0.3-3 s), which
is the regime real runs are in: runners then overlap their waiting.

Usage: python benchmarks/rollout_bench.py [--runners 1 2 4] [--repeats 3] [--latency-ms 200]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import fmean, median

from rich.console import Console
from rich.table import Table

from aspen_rl.policy.openai_app import SCRIPTED_MODEL_NAME
from aspen_rl.reporting import load_records
from aspen_rl.subprocesses import free_port, scripted_policy

REPO = Path(__file__).resolve().parents[1]


def run(args: list[str], workdir: Path) -> tuple[float, Path]:
    """Run the CLI offline in ``workdir``; returns (wall seconds, output dir)."""
    out = workdir / f"run-{len(list(workdir.iterdir()))}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL", "ASPEN_"))}
    env["ASPEN_SIMULATOR_URL"] = f"http://127.0.0.1:{free_port()}"
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "aspen_rl.train", "--output-dir", str(out), *args],
        cwd=workdir,
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start, out


def measure(
    console: Console, workdir: Path, title: str, runners: list[int], extra: list[str], repeats: int
) -> None:
    """One table: a run per runner count."""
    table = Table(title=title)
    columns = ("runners", "rollouts", "phase s", "rollouts/s", "speed-up", "wall/rollout s", "model s")
    for column in (*columns, "simulator s", "framework s", "command s"):
        table.add_column(column, justify="right")
    base = None
    for n in runners:
        command_s, out = run(
            ["--n-runners", str(n), "--repeats", str(repeats), "--seed", "0", *extra], workdir
        )
        summary = json.loads((out / "summary.json").read_text())
        records = load_records(out / "rollouts.jsonl")
        phase = sum(summary["phases_s"].values())
        rate = len(records) / phase
        base = base or rate
        table.add_row(
            str(n),
            str(len(records)),
            f"{phase:.2f}",
            f"{rate:.2f}",
            f"{rate / base:.2f}x",
            f"{median(r.timing.wall_s for r in records):.3f}",
            f"{median(r.timing.llm_s for r in records):.3f}",
            f"{median(r.timing.simulator_s for r in records):.3f}",
            f"{fmean(r.timing.overhead_s for r in records):.3f}",
            f"{command_s:.1f}",
        )
    console.print(table)


def main() -> None:
    """Measure and print the tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeats", type=int, default=3, help="rollouts per train task (10 tasks)")
    parser.add_argument("--latency-ms", type=float, default=200.0, help="model latency of the second table")
    args = parser.parse_args()
    console = Console(width=140)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        cold_s, _ = run(["--mode", "dev", "--n-runners", "2"], workdir)
        console.print(f"README dev command (10 rollouts, 2 runners), cold, end to end: {cold_s:.1f} s")
        n_rollouts = f"{args.repeats} x 10 train tasks"
        measure(console, workdir, f"Instant scripted policy ({n_rollouts})", args.runners, [], args.repeats)
        policy = scripted_policy(
            [REPO / "data" / "train.jsonl"], error_rate=0.25, seed=0, latency_ms=args.latency_ms
        )
        with policy:
            extra = ["--api-url", policy.url + "/v1", "--model", SCRIPTED_MODEL_NAME]
            title = f"Scripted policy answering in {args.latency_ms:g} ms, like a hosted model ({n_rollouts})"
            measure(console, workdir, title, args.runners, extra, args.repeats)
        console.print(
            "Per rollout: medians (framework: mean) of wall, model and simulator time; framework = the rest "
            "(AutoGen, tools, reward, spans). Phase = first enqueue to last record."
        )


if __name__ == "__main__":
    main()

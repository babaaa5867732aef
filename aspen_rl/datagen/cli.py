"""``python -m aspen_rl.datagen``: generate, regenerate, stats, demos, baseline (build task files)."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aspen_rl.progress import Advance, progress
from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.simulator.errors import SimulatorError
from aspen_rl.tasks.datasets import (
    TaskFileError,
    load_split,
    load_tasks,
    save_tasks,
)
from aspen_rl.tasks.file_args import add_task_file_arguments, task_file_paths
from aspen_rl.tasks.model import AspenTask


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m aspen_rl.datagen", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="draw tasks from families, each verified on the in-process mock")
    gen.add_argument("--n", type=int, required=True, help="number of tasks")
    gen.add_argument("--families", default="", help="comma-separated family names (default: all)")
    gen.add_argument("--seed", type=int, default=0, help="seed of the set")
    gen.add_argument("--out", required=True, help="JSONL file to write")
    gen.add_argument("--prefix", default="gen", help="task id prefix and split name (default: gen)")
    gen.add_argument(
        "--exclude", nargs="*", default=[], help="task files whose near-duplicates are not drawn (e.g. train)"
    )
    gen.add_argument("--data-dir", help="folder of the shipped val/test splits held out (default: data/)")
    text = "run every reference config and rewrite expected values (tolerances kept)"
    regen = sub.add_parser("regenerate", help=text, description=text)
    add_task_file_arguments(regen)
    regen.add_argument(
        "--url", help="simulator service URL (e.g. $ASPEN_SIMULATOR_URL); default: the mock, in-process"
    )
    regen.add_argument("--insecure", action="store_true", help="do not verify the service's TLS certificate")
    regen.add_argument(
        "--ca-bundle",
        type=Path,
        help="PEM certificate(s) to trust for the service (e.g. the real service's self-signed one)",
    )
    regen.add_argument("--timeout", type=float, default=300.0, help="seconds per request (default 300)")
    regen.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if any stored value is out of date"
    )
    st = sub.add_parser("stats", help="tasks per family, difficulty and language of task files")
    st.add_argument("files", nargs="+")
    demo = sub.add_parser("demos", help="record expert transcripts (scored 1.0 only) of a task file")
    demo.add_argument("file", help="JSONL task file")
    demo.add_argument("--out", required=True, help="JSONL transcripts to write")
    demo.add_argument("--system-prompt", help="file with the system prompt (default: the agent's)")
    demo.add_argument(
        "--seed", type=int, default=0, help="seed of the runs' time stamps (spread over 2020-2035)"
    )
    base = sub.add_parser("baseline", help="scripted policy's reward per family through the real tools")
    base.add_argument("file", help="JSONL task file")
    base.add_argument("--error-rate", type=float, default=0.25, help="scripted policy's mistake rate")
    base.add_argument("--repeats", type=int, default=1, help="rollouts per task")
    base.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    from aspen_rl.datagen.regenerate import RegenerationError

    args = _parser().parse_args(argv)
    command = {
        "generate": _generate,
        "regenerate": _regenerate,
        "stats": _stats,
        "demos": _demos,
        "baseline": _baseline,
    }[args.command]
    try:
        return command(args)
    except (TaskFileError, RegenerationError, SimulatorError, ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _regenerate(args: argparse.Namespace) -> int:
    paths = task_file_paths(args)
    if args.ca_bundle is not None and not args.ca_bundle.is_file():
        print(f"error: --ca-bundle {args.ca_bundle}: no such file (PEM certificates)", file=sys.stderr)
        return 2
    return asyncio.run(_regenerate_files(args, paths))


async def _regenerate_files(args: argparse.Namespace, paths: list[Path]) -> int:
    from aspen_rl.datagen.regenerate import in_process_client, regenerate_files

    if args.url:
        client = SimulatorClient(
            args.url, timeout_s=args.timeout, verify_tls=not args.insecure, ca_bundle=args.ca_bundle
        )
    else:
        client = in_process_client()

    def progress(task: AspenTask, index: int, total: int) -> None:
        print(f"  [{index}/{total}] {task.task_id}", file=sys.stderr, flush=True)

    async with client:
        report = await regenerate_files(paths, client, write=not args.check, on_task=progress)
    stale = 0
    for path, changes in report.items():
        print(f"{path}: {len(changes)} value(s) {'out of date' if args.check else 'updated'}")
        for change in changes:
            print(f"  {change.task_id} / {change.target}: {change.old:g} -> {change.new:g}")
        stale += len(changes)
    return 1 if args.check and stale else 0


def _generate(args: argparse.Namespace) -> int:
    from aspen_rl.datagen.build import GenerationStats, generate_tasks
    from aspen_rl.datagen.regenerate import in_process_client

    families = [f.strip() for f in args.families.split(",") if f.strip()] or None
    held_out = load_split("val", args.data_dir) + load_split("test", args.data_dir)
    exclude = [t for path in args.exclude for t in load_tasks(path)]
    stats = GenerationStats()

    async def go(advance: Advance) -> list[AspenTask]:
        async with in_process_client() as client:
            return await generate_tasks(
                args.n,
                client,
                families=families,
                seed=args.seed,
                held_out=held_out,
                exclude=exclude,
                prefix=args.prefix,
                stats=stats,
                on_task=advance,
            )

    with progress(f"generating {args.out} (each task run on the mock)", args.n) as advance:
        tasks = asyncio.run(go(advance))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    save_tasks(tasks, args.out)
    print(
        f"{args.out}: {len(tasks)} task(s); redrawn: {stats.unsolvable} unsolvable, {stats.degenerate} "
        f"degenerate, {stats.held_out} held out (val/test), {stats.duplicates} near-duplicate"
    )
    return 0


def table(tasks: list[AspenTask]) -> str:
    """Markdown table: tasks per family, difficulty and language."""
    from aspen_rl.datagen.build import family_of, language_of

    rows: dict[str, Counter[str]] = defaultdict(Counter)
    for task in tasks:
        row = rows[family_of(task) or "?"]
        row[task.difficulty.value] += 1
        row[language_of(task)] += 1
        row["n"] += 1
    lines = ["| family | tasks | easy | medium | hard | en | zh |", "|---|---|---|---|---|---|---|"]
    total: Counter[str] = Counter()
    for name, row in rows.items():
        total.update(row)
        cells = [row[k] for k in ("n", "easy", "medium", "hard", "en", "zh")]
        lines.append(f"| {name} | " + " | ".join(str(c) for c in cells) + " |")
    cells = [total[k] for k in ("n", "easy", "medium", "hard", "en", "zh")]
    lines.append("| **all** | " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def _stats(args: argparse.Namespace) -> int:
    for path in args.files:
        print(f"## {path}\n\n{table(load_tasks(path))}\n")
    return 0


def _demos(args: argparse.Namespace) -> int:
    from aspen_rl.datagen.demos import record_demos, save_demos
    from aspen_rl.datagen.regenerate import in_process_client
    from aspen_rl.datagen.run_stamps import spread_run_ids

    prompt = Path(args.system_prompt).read_text(encoding="utf-8") if args.system_prompt else None
    tasks = load_tasks(args.file)

    async def go(advance: Advance) -> tuple[list[dict[str, Any]], list[str]]:
        with spread_run_ids(args.seed):  # result paths to copy, not a morning's stamps to learn
            async with in_process_client() as client:
                return await record_demos(tasks, client, system_prompt=prompt, on_task=advance)

    with progress(f"recording demonstrations of {args.file}", len(tasks)) as advance:
        kept, dropped = asyncio.run(go(advance))
    save_demos(kept, args.out)
    print(f"{args.out}: {len(kept)} transcript(s) scoring 1.0; dropped {len(dropped)}: {dropped[:10]}")
    return 0


def _baseline(args: argparse.Namespace) -> int:
    from aspen_rl.datagen.build import family_of
    from aspen_rl.datagen.demos import play
    from aspen_rl.datagen.regenerate import in_process_client
    from aspen_rl.policy.scripted import ScriptedPolicy

    tasks = load_tasks(args.file)
    policy = ScriptedPolicy(tasks, error_rate=args.error_rate, seed=args.seed)

    async def go() -> dict[str, list[float]]:
        scores: dict[str, list[float]] = defaultdict(list)
        async with in_process_client() as client:
            for task in tasks:
                for r in range(args.repeats):
                    _, total, _ = await play(task, client, policy, rollout_key=f"{task.task_id}:{r}")
                    scores[family_of(task) or "?"].append(total)
        return scores

    scores = asyncio.run(go())
    print(f"scripted policy (error_rate={args.error_rate}, seed={args.seed}) on {args.file}\n")
    print("| family | rollouts | mean reward | share scoring 1.0 |\n|---|---|---|---|")
    every = []
    for name, values in scores.items():
        every.extend(values)
        share = sum(v >= 1.0 for v in values) / len(values)
        print(f"| {name} | {len(values)} | {statistics.fmean(values):.3f} | {share:.2f} |")
    share = sum(v >= 1.0 for v in every) / len(every)
    print(f"| **all** | {len(every)} | {statistics.fmean(every):.3f} | {share:.2f} |")
    print(json.dumps({"mean": statistics.fmean(every)}))
    return 0

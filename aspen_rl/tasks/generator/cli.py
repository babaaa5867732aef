"""Sub-commands of ``python -m aspen_rl.tasks``: generate, stats, demos, baseline."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from aspen_rl.progress import Advance, progress
from aspen_rl.tasks.datasets import load_split, load_tasks, save_tasks
from aspen_rl.tasks.model import AspenTask


def add_parsers(sub: Any) -> None:
    """Register the generator's sub-commands on ``sub`` (an argparse sub-parsers object)."""
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
    st = sub.add_parser("stats", help="tasks per family, difficulty and language of task files")
    st.add_argument("files", nargs="+")
    demo = sub.add_parser("demos", help="record expert transcripts (scored 1.0 only) of a task file")
    demo.add_argument("file", help="JSONL task file")
    demo.add_argument("--out", required=True, help="JSONL transcripts to write")
    demo.add_argument("--system-prompt", help="file with the system prompt (default: the agent's)")
    base = sub.add_parser("baseline", help="scripted policy's reward per family through the real tools")
    base.add_argument("file", help="JSONL task file")
    base.add_argument("--error-rate", type=float, default=0.25, help="scripted policy's mistake rate")
    base.add_argument("--repeats", type=int, default=1, help="rollouts per task")
    base.add_argument("--seed", type=int, default=0)


def family_names() -> list[str]:
    """Registered family names."""
    from aspen_rl.tasks.generator.base import FAMILIES
    from aspen_rl.tasks.generator.build import generate_tasks  # noqa: F401  (registers the families)

    return list(FAMILIES)


def run(args: argparse.Namespace) -> int:
    """Run one generator sub-command."""
    return {"generate": _generate, "stats": _stats, "demos": _demos, "baseline": _baseline}[args.command](
        args
    )


def _generate(args: argparse.Namespace) -> int:
    from aspen_rl.tasks.generator.build import GenerationStats, generate_tasks
    from aspen_rl.tasks.regenerate import in_process_client

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
    from aspen_rl.tasks.generator.build import family_of, language_of

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
    from aspen_rl.tasks.generator.demos import record_demos, save_demos
    from aspen_rl.tasks.regenerate import in_process_client

    prompt = Path(args.system_prompt).read_text(encoding="utf-8") if args.system_prompt else None
    tasks = load_tasks(args.file)

    async def go(advance: Advance) -> tuple[list[dict[str, Any]], list[str]]:
        async with in_process_client() as client:
            return await record_demos(tasks, client, system_prompt=prompt, on_task=advance)

    with progress(f"recording demonstrations of {args.file}", len(tasks)) as advance:
        kept, dropped = asyncio.run(go(advance))
    save_demos(kept, args.out)
    print(f"{args.out}: {len(kept)} transcript(s) scoring 1.0; dropped {len(dropped)}: {dropped[:10]}")
    return 0


def _baseline(args: argparse.Namespace) -> int:
    from aspen_rl.policy.scripted import ScriptedPolicy
    from aspen_rl.tasks.generator.build import family_of
    from aspen_rl.tasks.generator.demos import play
    from aspen_rl.tasks.regenerate import in_process_client

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

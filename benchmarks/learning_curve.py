"""Learning curve: held-out per-turn and full-episode success of a tiny model before SFT, after SFT and
during GRPO from the SFT checkpoint.

Held-out tasks of the chosen families come from the shipped generated eval set
(``data/generated/eval.jsonl``); train tasks from the shipped train set, or (``--generate-train N``) N fresh
draws of the generator, each verified on the mock, none sharing a held-out task's block types and
components. Each seed builds a Qwen2 from a config and a BPE tokenizer learnt from the train demonstrations
(digits split, nothing downloaded), then SFT on the verified demonstrations, each turn rendered in the
context the agent shows the model, then GRPO: groups of sampled episodes on train tasks through the real
tools, mock and shipped reward, GRPO's rows and loss. Evaluated on held-out tasks before SFT, every
``--eval-every`` SFT epochs and every ``--grpo-eval-every`` GRPO steps:

- **ladder** (per turn, each turn given the reference's earlier turns, greedy): the first call right
  (get_schema with exactly the task's parts); the config turn's JSON valid and run by the real
  ``run_simulation`` on the mock; the get_result call right; the answer's reward on the reference trace;
- **episode** (the model's own turns, greedy and sampled): the agent's loop (its model view, its three
  tools over the in-process mock), scored by the shipped reward: mean reward, the funnel stages (schema,
  attempted, json, faithful, accepted, simulated, read), targets met and success (reward >= 0.9).

JSON and a PNG go to ``docs/benchmarks/`` after every evaluation; progress lines throughout.

    nice -n 10 python benchmarks/learning_curve.py --families heater --generate-train 400 --epochs 6 \
        --grpo-steps 20 --seeds 0,1,2
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import os
import random
import statistics
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch
import yaml

from aspen_rl.algorithms.sft.config import SFTConfig
from aspen_rl.algorithms.sft.copy_warmup import CopyRehearsal, copy_accuracy, copy_warmup, ordinary_token_ids
from aspen_rl.algorithms.sft.data import transcript_rows
from aspen_rl.algorithms.sft.drills import DRILLS
from aspen_rl.algorithms.sft.lookup_warmup import LookupRehearsal, LookupTask, lookup_accuracy
from aspen_rl.algorithms.sft.trainer import SFTTrainer
from aspen_rl.datagen import family_of, generate_tasks
from aspen_rl.datagen.demos import record_demos
from aspen_rl.datagen.rename import renamed
from aspen_rl.datagen.run_stamps import spread_run_ids
from aspen_rl.llm.settings import LoRASettings
from aspen_rl.llm.tiny_bpe import build_tiny_bpe_model
from aspen_rl.rollout_seed import derive_seed
from aspen_rl.tasks import AspenTask, load_tasks
from aspen_rl.tasks.datasets import load_split

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules, run from anywhere
from learning_compare import describe, paired_gain
from learning_episodes import (
    SUCCESS_REWARD,
    grpo_step,
    ladder,
    learning_mock,
    mean_scores,
    run_episodes,
)
from learning_setup import SetupFileError, check_writable, load_setup, save_setup, setup_settings

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "data" / "generated"
SPLITS = ("combination", "draw")
"""How train draws are kept apart from the held-out tasks (``--split``)."""


def number_is_stated(value: float, request: str) -> bool:
    """Whether the request states a config number as the config writes it (or a fraction as mol%): a copy,
    where any other number is a conversion (°F to °C, psia to bar, mol/s to kmol/hr)."""
    return f"{value:g}" in request or f"{value * 100:g} mol%" in request


#: How a request writes the units a config states (a °F, psia or mol/s request converts to one of these).
WRITTEN_UNITS = {
    "C": "°C",
    "K": "K",
    "bar": "bar",
    "atm": "atm",
    "kPa": "kPa",
    "MPa": "MPa",
    "kmol/hr": "kmol/h",
}


def _numbers(node: Any) -> Iterator[tuple[float, str | None]]:
    """Every number of a config with the unit it is stated in (``X_VALUE`` beside ``X_UNITS``), if any."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, dict | list):
                yield from _numbers(value)
            elif isinstance(value, int | float) and not isinstance(value, bool):
                units = node.get(key.removesuffix("_VALUE") + "_UNITS") if key.endswith("_VALUE") else None
                yield float(value), units if isinstance(units, str) and units else None
    elif isinstance(node, list):
        for value in node:
            yield from _numbers(value)


def in_stated_units(task: AspenTask) -> bool:
    """Whether the request states every number of the task's reference config in the config's own unit
    (a fraction as mol%): a task that needs no unit conversion."""
    config = {k: v for k, v in (task.reference_config or {}).items() if k != "metadata"}
    request = task.user_requirement
    for value, units in _numbers(config):
        if units is None:
            if not number_is_stated(value, request):
                return False
        elif f"{value:g} {WRITTEN_UNITS.get(units, units)}" not in request:
            return False
    return True


def pick(
    path: Path, families: list[str], n: int, seed: int, keep: Callable[[AspenTask], bool] | None = None
) -> list[AspenTask]:
    """``n`` tasks of ``families`` from ``path`` (those ``keep`` accepts), as even across families as the
    file allows."""
    rng = random.Random(seed)
    pool = [t for t in load_tasks(path) if keep is None or keep(t)]
    by_family = {f: [t for t in pool if family_of(t) == f] for f in families}
    for name, tasks in by_family.items():
        if not tasks:
            kept = "" if keep is None else f" that {keep.__name__} keeps"
            raise SystemExit(f"error: no task of family {name!r}{kept} in {path}")
        rng.shuffle(tasks)
    chosen: list[AspenTask] = []
    while len(chosen) < n and any(by_family.values()):
        for tasks in by_family.values():
            if tasks and len(chosen) < n:
                chosen.append(tasks.pop())
    return chosen


async def demonstrations(tasks: list[AspenTask]) -> list[dict[str, Any]]:
    async with learning_mock() as client:
        kept, dropped = await record_demos(tasks, client)
    if dropped:
        print(f"  {len(dropped)} reference solutions did not score 1.0 and were left out")
    return kept


async def generated(
    families: list[str],
    n: int,
    seed: int,
    held_out: list[AspenTask],
    keep: Callable[[AspenTask], bool] | None = None,
    split: str = "combination",
) -> list[AspenTask]:
    """``n`` fresh generator draws of ``families`` (verified on the mock), none sharing the block types and
    components of a shipped val/test task, none a near-duplicate of ``held_out``; with ``split``
    "combination", none sharing the block types and components of ``held_out`` either ("draw": they may,
    in other numbers, ids and wording); with ``keep``, the first ``n`` it accepts of ``3 n`` draws."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    shipped = load_split("val") + load_split("test")
    blocked = shipped + (held_out if split == "combination" else [])
    async with learning_mock() as client:
        tasks = await generate_tasks(
            n if keep is None else 3 * n,
            client,
            families=families,
            seed=seed,
            held_out=blocked,
            exclude=held_out,
            prefix="lctrain",
        )
    kept = [t for t in tasks if keep is None or keep(t)][:n]
    if len(kept) < n:
        print(f"  only {len(kept)} of {len(tasks)} draws were accepted (asked for {n})", flush=True)
    return kept


EVAL_RUN_IDS = 2026
"""Seed of the stamps of every held-out evaluation's runs (:mod:`aspen_rl.datagen.run_stamps`)."""


async def evaluate(
    model: Any, tokenizer: Any, eval_demos: list, eval_tasks: list, args: Any
) -> dict[str, Any]:
    """Held-out ladder (greedy) and full episodes, greedy (``--eval-repeats`` times, averaged; each
    repeat's mean reward in ``episode_repeats``, each task's in ``episode_tasks`` and each task's repeats
    in ``episode_task_repeats``, for ``learning_compare.py``) and sampled at ``--eval-temperature``."""
    by_id = {t.task_id: t for t in eval_tasks}
    with spread_run_ids(EVAL_RUN_IDS):  # every evaluation sees the same stream of stamps (the hex is new)
        rungs = [await ladder(model, tokenizer, d, by_id[d["task_id"]]) for d in eval_demos[: args.n_ladder]]
        tasks = eval_tasks[: args.n_episodes]
        repeats = []  # greedy decoding, yet each repeat differs: every run gets a new result path to copy
        for _ in range(args.eval_repeats):
            episodes = await run_episodes(
                model,
                tokenizer,
                tasks,
                temperature=0.0,
                max_turns=args.max_turns,
                max_new=args.max_new_tokens,
            )
            repeats.append([e.score() for e in episodes])
        sampled = await run_episodes(
            model,
            tokenizer,
            [t for t in tasks for _ in range(args.eval_samples)],
            temperature=args.eval_temperature,
            max_turns=args.max_turns,
            max_new=args.max_new_tokens,
            seed=EVAL_RUN_IDS,  # every evaluation draws the same stream: paired across checkpoints
        )
    return {
        "ladder": mean_scores(rungs),
        "episode": mean_scores([score for repeat in repeats for score in repeat]),
        "episode_repeats": [mean_scores(repeat)["reward"] for repeat in repeats],
        "episode_tasks": {
            task.task_id: round(statistics.fmean(repeat[i]["reward"] for repeat in repeats), 4)
            for i, task in enumerate(tasks)
        },
        "episode_task_repeats": {
            task.task_id: [round(repeat[i]["reward"], 4) for repeat in repeats]
            for i, task in enumerate(tasks)
        },
        "sampled": mean_scores([e.score() for e in sampled]),
    }


def _brief(result: dict[str, Any]) -> str:
    e, s, lad = result["episode"], result["sampled"], result["ladder"]
    return (
        f"greedy success {e['success']:.2f} reward {e['reward']:.3f} ran {e['simulated']:.2f}"
        f" read {e['read']:.2f} faithful {e['faithful']:.3f} names {e.get('kept_names', 0):.2f}"
        f" | sampled success {s['success']:.2f} reward {s['reward']:.3f}"
        f" | ladder first {lad.get('first_call', 0):.2f} json {lad.get('config_json', 0):.2f}"
        f" faithful {lad.get('config_faithful', 0):.3f} ran {lad.get('config_ran', 0):.2f}"
        f" result {lad.get('result_call', 0):.2f}"
        f" answer {lad.get('answer_reward', 0):.3f}"
    )


def copying(model: Any, token_ids: torch.Tensor, max_gap: int) -> dict[str, float]:
    """How well ``model`` copies fresh random strings, back to back and across gaps (teacher-forced)."""
    return {
        f"len{length}_gap{gap}": round(copy_accuracy(model, token_ids, length=length, gap=gap), 3)
        for length, gap in ((24, 0), (64, 0), (200, 0), (24, 300), (24, max_gap))
    }


def warm_up(model: Any, token_ids: torch.Tensor, seed: int, args: Any) -> None:
    """The copy warm-up: ``--copy-steps`` on strings shown back to back, then ``--copy-gap-steps`` with up
    to ``--copy-max-gap`` random tokens between the showings."""
    common = {"learning_rate": args.copy_lr, "log_every": 100, "lengths": (8, 64)}
    t0 = time.monotonic()
    copy_warmup(model, token_ids, steps=args.copy_steps, seed=seed, **common)
    copy_warmup(
        model,
        token_ids,
        steps=args.copy_gap_steps,
        tokens_per_step=4096,
        gaps=(0, args.copy_max_gap),
        seed=seed + 1,
        **common,
    )
    reached = copying(model, token_ids, args.copy_max_gap)
    print(f"  seed {seed}: copy warm-up in {time.monotonic() - t0:.0f} s, accuracy {reached}", flush=True)


def lookup_warm_up(model: Any, token_ids: torch.Tensor, seed: int, args: Any) -> LookupRehearsal:
    """``--lookup-steps`` of finding values by two-token keys named by partner tokens; returns the stepper
    (its pairing and optimiser), which the SFT rehearsal goes on with."""
    stepper = LookupRehearsal(
        model, LookupTask(token_ids, seed=seed + 3), learning_rate=args.copy_lr, seed=seed + 4
    )
    t0 = time.monotonic()
    model.train()
    losses: list[float] = []
    for step in range(1, args.lookup_steps + 1):
        losses.append(stepper.step())
        if step % 100 == 0:
            print(
                f"  lookup warm-up step {step}/{args.lookup_steps}: loss {sum(losses[-100:]) / 100:.3f}, "
                f"accuracy {lookup_accuracy(model, stepper.task)}",
                flush=True,
            )
    model.eval()
    reached = lookup_accuracy(model, stepper.task)
    print(f"  seed {seed}: lookup warm-up in {time.monotonic() - t0:.0f} s, accuracy {reached}", flush=True)
    return stepper


def run_seed(
    seed: int,
    demos: list,
    drills: list,
    train_tasks: list[AspenTask],
    eval_demos: list,
    eval_tasks: list,
    args: Any,
    points: list[dict[str, Any]],
    steps: list[dict[str, Any]],
    write: Any,
) -> None:
    """Build, evaluate untrained, SFT with an evaluation every ``--eval-every`` epochs, then GRPO from the
    SFT model with an evaluation every ``--grpo-eval-every`` steps (into ``points``; each GRPO step's train
    reward into ``steps``; ``write`` after each evaluation). ``drills`` (``--drills``) join SFT's rows."""
    torch.manual_seed(seed)
    done = grpo_steps_done(args, seed)  # a saved GRPO model's steps: numbering and task draws continue
    model: Any
    if args.init_model is not None:  # a model --save-model kept (a warm-up reused: 26 CPU minutes saved)
        from transformers import AutoModelForCausalLM

        from aspen_rl.llm.tokenizer_files import load_tokenizer

        where = args.init_model / f"seed{seed}" / args.init_stage
        model = AutoModelForCausalLM.from_pretrained(where, dtype=torch.float32)
        tokenizer = load_tokenizer(where)
        print(f"  seed {seed}: model and tokenizer from {where}", flush=True)
    else:
        model, tokenizer = build_tiny_bpe_model(
            demos,
            vocab_size=args.vocab,
            hidden_size=args.width,
            num_layers=args.layers,
            num_heads=args.heads,
            seed=seed,
            individual_digits=not args.merge_digits,
            word_boundaries=not args.merge_across_words,
            words_apart=args.words_apart,
        )
    model.to(args.device)
    started = time.monotonic()
    token_ids = ordinary_token_ids(tokenizer)
    if args.init_model is None and (args.copy_steps or args.copy_gap_steps):
        warm_up(model, token_ids, seed, args)
    holder = [model]

    def save(stage: str) -> None:
        if args.save_model is not None:
            where = args.save_model / f"seed{seed}" / stage
            holder[0].save_pretrained(where)
            tokenizer.save_pretrained(where)
            if stage == "grpo":
                drawn_by = {k: getattr(args, k) for k in DRAWN_BY}
                (where / GRPO_STEPS_FILE).write_text(
                    json.dumps({"steps": done + args.grpo_steps, **drawn_by, "grpo_kl": args.grpo_kl}) + "\n"
                )
            print(f"  seed {seed}: {stage} model saved to {where}", flush=True)

    if args.init_model is None:
        save("warmup" if args.copy_steps or args.copy_gap_steps else "init")
    lookup = lookup_warm_up(model, token_ids, seed, args) if args.lookup_steps else None

    def point(phase: str, x: float, loss: float | None) -> None:
        result = asyncio.run(evaluate(holder[0], tokenizer, eval_demos, eval_tasks, args))
        entry = {
            "seed": seed,
            "phase": phase,
            "x": x,
            "loss": loss,
            "elapsed_s": round(time.monotonic() - started),
            "copy_accuracy": copying(holder[0], token_ids, args.copy_max_gap),
        }
        if lookup is not None:
            entry["lookup_accuracy"] = lookup_accuracy(holder[0], lookup.task)
        # paired with the point this stage started from: GRPO's with the last point before GRPO, SFT's with
        # the run's first (learning_compare.py pairs any two points later)
        mine = [p for p in points if p["seed"] == seed]
        before = [p for p in mine if p["phase"] != "grpo"] if phase == "grpo" else mine[:1]
        base = before[-1] if before else (mine[0] if mine else None)
        versus = ""
        if base is not None and len(base.get("episode_tasks", ())) > 1 and "episode_tasks" in result:
            gain = paired_gain(  # the same held-out tasks; their repeats drawn again where both keep them
                base["episode_tasks"],
                result["episode_tasks"],
                before_repeats=base.get("episode_task_repeats"),
                after_repeats=result.get("episode_task_repeats"),
            )
            entry["paired_gain"] = {"vs": f"{base['phase']}:{base['x']:g}", **gain}
            versus = f" | vs {base['phase']} {base['x']:g}: {describe(gain)}"
        points.append({**entry, **result})
        write()
        print(
            f"  seed {seed} {phase} {x:g} ({entry['elapsed_s']} s): loss {loss} | {_brief(result)}"
            f" | copies {entry['copy_accuracy']}{versus}",
            flush=True,
        )

    trained_stage = args.init_model is not None and args.init_stage in ("sft", "grpo")
    point(args.init_stage if trained_stage else "init", done, None)
    config = SFTConfig(
        model="tiny",
        device=args.device,
        dtype="float32",
        lora=LoRASettings(enabled=False),
        max_length=args.max_length,
        mixed_precision=args.mixed_precision,
        epochs=args.eval_every,
        batch_size=args.batch_size,
        micro_batch_size=args.micro_batch_size,
        learning_rate=args.lr,
        warmup_steps=5,
        lr_schedule="constant",
        loss_average=args.loss_average,
        value_weight=args.value_weight,
        seed=seed,
        output_dir=str(args.scratch),
        run_name=f"seed{seed}",
        save_every=0,
        log_every=1,
    )
    trainer = SFTTrainer(config, model=model, tokenizer=tokenizer)
    sft_started = [time.monotonic()]

    rehearsals: list[Any] = []  # taken in turn, one step after every --copy-rehearse-every SFT updates
    if args.copy_rehearse_every:
        rehearsals.append(
            CopyRehearsal(
                trainer.model,
                token_ids,
                gaps=(0, args.copy_max_gap),
                learning_rate=args.copy_lr,
                seed=seed + 2,
            )
        )
        if lookup is not None:
            rehearsals.append(lookup)

    def progress(entry: dict[str, float]) -> None:  # an SFT stage runs for many minutes on CPU
        if rehearsals and entry["update"] % args.copy_rehearse_every == 0:
            rehearsals[int(entry["update"]) // args.copy_rehearse_every % len(rehearsals)].step()
        if entry["update"] % SFT_PROGRESS_EVERY == 0:
            minutes = (time.monotonic() - sft_started[0]) / 60
            print(
                f"  seed {seed}: SFT update {entry['update']:.0f}, loss {entry['loss']:.3f}, "
                f"{minutes:.1f} min into this stage",
                flush=True,
            )

    trainer.on_update = progress
    weight = config.value_weight
    rows = transcript_rows(demos, tokenizer, max_length=args.max_length, value_weight=weight)
    drill_rows = transcript_rows(drills, tokenizer, max_length=args.max_length, value_weight=weight)
    rows += drill_rows
    tokens = sum(len(r.input_ids) for r in rows)
    print(
        f"  seed {seed}: {len(demos)} demonstrations and {len(drills)} drills -> {len(rows)} rows "
        f"({len(drill_rows)} drills), {tokens:,} tokens an epoch",
        flush=True,
    )
    epoch = 0.0
    while epoch < args.epochs:
        epoch = min(args.epochs, epoch + args.eval_every)
        trainer.config.epochs = epoch
        t0 = sft_started[0] = time.monotonic()
        updates_before = trainer.updates  # not `done`: that counts the saved model's GRPO steps
        history = trainer.train(rows)
        spent = time.monotonic() - t0
        trained = (trainer.updates - updates_before) * args.batch_size / max(1, len(rows)) * tokens
        print(
            f"  seed {seed}: SFT to epoch {epoch:g} in {spent:.0f} s ({trained / spent:,.0f} tokens/s)",
            flush=True,
        )
        holder[0] = trainer.model
        point("sft", epoch, round(history[-1]["loss"], 4))
    model = trainer.model
    if args.epochs > 0 or args.init_stage == "sft":  # not a warm-up or GRPO model under the name sft
        save("sft")
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.grpo_lr, weight_decay=0.0)
    anchor = anchor_model(args, seed, model)
    rng = random.Random(seed)
    for _ in range(done if args.grpo_steps else 0):  # the draws the saved model's steps took
        rng.sample(train_tasks, args.grpo_tasks)
    last = done + args.grpo_steps
    for step in range(done + 1, last + 1):
        t0 = time.monotonic()
        chosen = rng.sample(train_tasks, args.grpo_tasks)
        with spread_run_ids(derive_seed(seed, "grpo runs", step)):  # not shifted by a cached set-up
            episodes = asyncio.run(
                run_episodes(
                    model,
                    tokenizer,
                    [t for t in chosen for _ in range(args.group)],
                    temperature=args.grpo_temperature,
                    max_turns=args.max_turns,
                    max_new=args.max_new_tokens,
                    seed=derive_seed(seed, "grpo", step),  # not shifted by what evaluation sampled before
                )
            )
        groups = [episodes[i : i + args.group] for i in range(0, len(episodes), args.group)]
        result = grpo_step(
            model,
            optimizer,
            groups,
            pad_token_id=tokenizer.pad_token_id,
            max_length=args.max_length,
            micro_batch=args.micro_batch_size,
            bf16=args.mixed_precision == "bf16",
            ref_model=anchor,
            beta=args.grpo_kl,
        )
        steps.append({"seed": seed, "step": step, **vars(result), "wall_s": round(time.monotonic() - t0, 1)})
        print(
            f"  seed {seed} GRPO step {step}: train reward {result.reward:.3f} success {result.success:.2f}, "
            f"{result.zero_variance_groups}/{len(groups)} groups without signal, {result.rows} rows, "
            f"{'' if result.kl is None else f'KL to the anchor before the update {result.kl:.4f}, '}"
            f"{time.monotonic() - t0:.0f} s; favours {result.pushes}",
            flush=True,
        )
        write()  # a run cut short keeps every step's train reward
        if step % args.grpo_eval_every == 0 or step == last:
            holder[0] = model
            point("grpo", step, None)
    if args.grpo_steps:
        save("grpo")


def plot(points: list[dict[str, Any]], steps: list[dict[str, Any]], path: Path, title: str) -> None:
    """Held-out episode success and reward (greedy, sampled), the ladder, and GRPO's train reward."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = {"init": 0, "sft": 1, "grpo": 2}
    labels = sorted({(p["phase"], p["x"]) for p in points}, key=lambda k: (order[k[0]], k[1]))
    index = {k: i for i, k in enumerate(labels)}
    names = [f"{ph} {x:g}" for ph, x in labels]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    panels = [
        (
            "held-out episodes",
            [
                ("episode", "success"),
                ("episode", "reward"),
                ("episode", "simulated"),
                ("sampled", "success"),
                ("sampled", "reward"),
            ],
        ),
        (
            "held-out ladder (greedy)",
            [
                ("ladder", k)
                for k in (
                    "first_call",
                    "config_json",
                    "config_faithful",
                    "config_ran",
                    "result_call",
                    "answer_reward",
                )
            ],
        ),
    ]
    for ax, (heading, keys) in zip(axes[:2], panels, strict=True):
        for colour, (kind, key) in enumerate(keys):
            for seed in sorted({p["seed"] for p in points}):
                mine = [p for p in points if p["seed"] == seed and key in p[kind]]
                xs = [index[(p["phase"], p["x"])] for p in mine]
                line = "-" if kind != "sampled" else "--"
                ax.plot(
                    xs,
                    [p[kind][key] for p in mine],
                    line,
                    marker="o",
                    ms=3,
                    color=f"C{colour}",
                    alpha=0.8,
                    label=f"{kind} {key}" if seed == min(p["seed"] for p in points) else None,
                )
        ax.set_title(heading + " (one line per seed)")
        ax.set_xticks(range(len(names)), names, rotation=60, fontsize=7)
        ax.set_ylim(-0.05, 1.05)
        ax.legend(fontsize=7)
    for seed in sorted({s["seed"] for s in steps}):
        mine = [s for s in steps if s["seed"] == seed]
        axes[2].plot([s["step"] for s in mine], [s["reward"] for s in mine], marker=".", label=f"seed {seed}")
    axes[2].set_title("GRPO: mean train reward per step (sampled groups)")
    axes[2].set_xlabel("GRPO step")
    axes[2].legend(fontsize=7)
    fig.suptitle("\n".join(textwrap.wrap(title, 190)), fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


SMOKE: dict[str, Any] = {
    "generate_train": 6,
    "n_eval": 2,
    "n_ladder": 1,
    "n_episodes": 2,
    "epochs": 1,
    "eval_every": 1,
    "max_new_tokens": 24,
    "max_turns": 2,
    "grpo_steps": 1,
    "grpo_tasks": 2,
    "group": 2,
}
"""What ``--smoke`` overrides (the model size stays as configured: a GPU recipe's model on CPU; the seeds stay
the user's, so several seeds' processes, as ``gpu_call.sh 0,1,2`` starts, stay distinct)."""


SFT_PROGRESS_EVERY = 25
"""SFT prints a progress line every this many updates."""

GRPO_STEPS_FILE = "grpo_steps.json"
"""Written beside a saved GRPO model: ``{"steps": N, ...}``, the GRPO steps it took and :data:`DRAWN_BY`."""

DRAWN_BY = (
    "grpo_tasks",
    "families",
    "generate_train",
    "n_train",
    "n_eval",
    "data_seed",
    "split",
    "stated_units",
    "rename",
)
"""The settings GRPO's train-task draws follow: a run continuing a saved model's steps must repeat them."""

GENERATED_ONLY = frozenset({"n_eval", "split"})
""":data:`DRAWN_BY` flags that shape the train set only when it is generated (``--generate-train``: the
held-out tasks a fresh draw must not repeat)."""
SHIPPED_ONLY = frozenset({"n_train"})
""":data:`DRAWN_BY` flags that shape it only when it is the shipped train file's tasks."""


def draws_changed(args: argparse.Namespace, seed: int) -> list[str]:
    """The :data:`DRAWN_BY` flags that shape this run's train set and that it sets otherwise than the saved
    GRPO model it continues (none for a file that records only its steps, as files before this check did,
    and none with ``--grpo-steps-done 0``, which starts the draws anew)."""
    saved = args.init_model / f"seed{seed}" / "grpo" / GRPO_STEPS_FILE
    if args.init_stage != "grpo" or args.grpo_steps_done == 0 or not saved.is_file():
        return []
    recorded = json.loads(saved.read_text())
    moot = SHIPPED_ONLY if args.generate_train else GENERATED_ONLY
    return [
        f"--{k.replace('_', '-')} {getattr(args, k)} (the saved model's steps drew with {recorded[k]})"
        for k in DRAWN_BY
        if k not in moot and k in recorded and recorded[k] != getattr(args, k)
    ]


def anchor_model(args: argparse.Namespace, seed: int, model: Any) -> Any | None:
    """The frozen reference of ``--grpo-kl`` (None without it or without GRPO steps): the SFT model saved
    beside a GRPO model this run continues, so a run made in pieces stays anchored to SFT; else a copy of
    the model GRPO starts from."""
    if not args.grpo_kl or not args.grpo_steps:
        return None
    sft = args.init_model / f"seed{seed}" / "sft" if args.init_model is not None else None
    if args.init_stage == "grpo" and sft is not None and (sft / "config.json").is_file():
        from transformers import AutoModelForCausalLM

        reference = AutoModelForCausalLM.from_pretrained(sft, dtype=torch.float32).to(args.device)
        source = str(sft)
    else:
        reference, source = copy.deepcopy(model), "the model GRPO starts from"
    print(f"  seed {seed}: GRPO anchored to {source} (k3 KL, beta {args.grpo_kl:g})", flush=True)
    return reference.eval().requires_grad_(False)


def grpo_steps_done(args: argparse.Namespace, seed: int) -> int:
    """GRPO steps the starting model already took: ``--grpo-steps-done``, else the saved GRPO model's
    ``grpo_steps.json``, else 0 (a model that is not a saved GRPO model)."""
    if args.init_model is None or args.init_stage != "grpo":
        return 0
    if args.grpo_steps_done is not None:
        return int(args.grpo_steps_done)
    saved = args.init_model / f"seed{seed}" / "grpo" / GRPO_STEPS_FILE
    return int(json.loads(saved.read_text())["steps"]) if saved.is_file() else 0


NON_NEGATIVE = (
    "drills",
    "copy_steps",
    "copy_gap_steps",
    "copy_max_gap",
    "copy_rehearse_every",
    "lookup_steps",
    "grpo_steps",
    "grpo_kl",
)
"""Flags that count or weigh something and are refused below 0, before any task is drawn."""


def cached_setup(
    args: argparse.Namespace,
) -> tuple[list[AspenTask], list[dict[str, Any]], list[dict[str, Any]]] | None:
    """The set-up read from ``--setup-cache`` when the file is there; else None, once the file is known
    to be writable. A file that cannot be used is refused with an error line."""
    if args.setup_cache is None:
        return None
    try:
        if args.setup_cache.is_file():
            return load_setup(args.setup_cache, setup_settings(args))
        check_writable(args.setup_cache)
    except SetupFileError as exc:
        raise SystemExit(f"error: --setup-cache {exc}") from exc
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--families", default="heater")
    parser.add_argument("--n-train", type=int, default=30, help="train tasks from data/generated/train.jsonl")
    parser.add_argument("--generate-train", type=int, default=0, help="N fresh generator draws instead")
    parser.add_argument("--data-seed", type=int, default=1, help="seed of the generated train set")
    parser.add_argument(
        "--drills",
        type=int,
        default=0,
        help="N more verified generator draws (seed --data-seed + 1), each trained in SFT as a drill (no"
        " tools block, no schema; --drill-kind)",
    )
    parser.add_argument(
        "--drill-kind",
        choices=tuple(DRILLS),
        default="config",
        help="config: system prompt, request and config turn (~1/7 of a whole row); episode: every turn from"
        " the config on (config, result call, answer) after the request (~1/3)",
    )
    parser.add_argument(
        "--rename",
        type=float,
        default=0.0,
        help="share of train tasks whose blocks and streams get random ids (held-out tasks keep theirs):"
        " names only the request states",
    )
    parser.add_argument(
        "--stated-units",
        action="store_true",
        help="a curriculum stage: only tasks whose request states every config number (no unit conversion),"
        " train and held-out",
    )
    parser.add_argument(
        "--split",
        choices=SPLITS,
        default="combination",
        help="combination: no train task or drill shares a held-out task's block types and components (a"
        " held-out task may name a component training never showed); draw: they may, and only"
        " near-duplicates of held-out tasks are left out (an i.i.d. split: new numbers, ids, wording)",
    )
    parser.add_argument(
        "--n-eval", type=int, default=16, help="held-out tasks from data/generated/eval.jsonl"
    )
    parser.add_argument("--n-ladder", type=int, default=8, help="held-out tasks scored turn by turn")
    parser.add_argument("--n-episodes", type=int, default=16, help="held-out tasks driven as full episodes")
    parser.add_argument("--eval-samples", type=int, default=1, help="sampled episodes per held-out task")
    parser.add_argument("--eval-temperature", type=float, default=0.7)
    parser.add_argument(
        "--eval-repeats",
        type=int,
        default=1,
        help="greedy held-out episodes this many times, averaged: each repeat's runs get new result paths,"
        " which moves a small model's reward by ~0.01-0.02 over 8 tasks",
    )
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--epochs", type=float, default=4)
    parser.add_argument("--eval-every", type=float, default=2)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=2000)
    parser.add_argument(
        "--merge-digits", action="store_true", help="let BPE merge digits (the old tokenizer)"
    )
    parser.add_argument(
        "--merge-across-words",
        action="store_true",
        help="BPE merges may span word and punctuation boundaries (a config's JSON glue: few tokens)",
    )
    parser.add_argument(
        "--words-apart",
        action="store_true",
        help="pieces are letter runs, single digits and runs of the rest (overrides the two above): a "
        "value is the same tokens in the request and in the config, and JSON glue still merges",
    )
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument(
        "--loss-average",
        choices=["token", "turn"],
        default="turn",
        help="SFT loss over assistant tokens, or over turns (default: the first call weighs as a config)",
    )
    parser.add_argument(
        "--value-weight",
        type=float,
        default=1.0,
        help="SFT weight of the tokens that spell a tool call's argument values (first occurrence in the"
        " turn) against 1 for the others (default 1: no weighting)",
    )
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--micro-batch-size", type=int, default=8)
    parser.add_argument("--max-length", type=int, default=4096)
    parser.add_argument("--max-turns", type=int, default=5)
    parser.add_argument("--max-new-tokens", type=int, default=400)
    parser.add_argument("--copy-steps", type=int, default=0, help="copy warm-up steps before SFT")
    parser.add_argument("--copy-gap-steps", type=int, default=0, help="then, steps with a gap")
    parser.add_argument("--copy-max-gap", type=int, default=768, help="random tokens between showings")
    parser.add_argument("--copy-lr", type=float, default=1e-3)
    parser.add_argument(
        "--copy-rehearse-every",
        type=int,
        default=0,
        help="one copy step (own optimiser) after every K SFT updates, so SFT keeps the copy; 0: off",
    )
    parser.add_argument(
        "--lookup-steps",
        type=int,
        default=0,
        help="after the copy warm-up, steps finding values by two-token keys named by partner tokens (as a "
        "config key names a request phrase); with --copy-rehearse-every the rehearsal takes copy and lookup "
        "steps in turn",
    )
    parser.add_argument("--grpo-steps", type=int, default=0)
    parser.add_argument("--grpo-tasks", type=int, default=4, help="train tasks (groups) per GRPO step")
    parser.add_argument("--group", type=int, default=4, help="sampled episodes per task")
    parser.add_argument("--grpo-lr", type=float, default=2e-4)
    parser.add_argument("--grpo-temperature", type=float, default=1.0)
    parser.add_argument(
        "--grpo-kl",
        type=float,
        default=0.0,
        help="beta of a k3 KL term to the SFT model (the one GRPO starts from, or the sft model saved beside "
        "a GRPO model it continues; else the model it starts from); 0: no anchor",
    )
    parser.add_argument("--grpo-eval-every", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks" / "learning_curve")
    parser.add_argument(
        "--save-model", type=Path, help="save model and tokenizer here (seedN/{init|warmup,sft,grpo})"
    )
    parser.add_argument(
        "--mixed-precision",
        choices=("no", "bf16"),
        default="no",
        help="bf16: SFT and GRPO updates under torch.autocast(bfloat16), float32 weights kept (for a GPU)",
    )
    parser.add_argument(
        "--wait-for",
        type=Path,
        help="after the CPU-only set-up (tasks, demonstrations), wait until this file exists before building"
        " the model: a benchmark sharing the machine times the GPU alone meanwhile",
    )
    parser.add_argument(
        "--init-model",
        type=Path,
        help="start each seed from DIR/seedN/STAGE (a --save-model of the same train set; STAGE is "
        "--init-stage) instead of building one and warming it up",
    )
    parser.add_argument(
        "--init-stage",
        choices=("warmup", "sft", "grpo"),
        default="warmup",
        help="which saved model --init-model starts from: sft (with --epochs 0) runs GRPO from a saved SFT"
        " model, its first point then the SFT model's; grpo (with --epochs 0) evaluates a saved GRPO"
        " model and, with --grpo-steps N, continues its GRPO (a fresh optimizer; --grpo-steps-done)",
    )
    parser.add_argument(
        "--grpo-steps-done",
        type=int,
        help="with --init-stage grpo: the GRPO steps the saved model already took (default: its folder's "
        f"{GRPO_STEPS_FILE}, else 0); --grpo-steps more continue their numbering and train-task draws",
    )
    parser.add_argument(
        "--setup-cache",
        type=Path,
        help="read the train tasks and the train and drill demonstrations from this file (xz JSON) if it"
        " exists, made with the same set-up flags (else refused, naming them); else make them and write it."
        " GRPO episodes then draw other run stamps than an uncached run's (the set-up's runs drew none)",
    )
    parser.add_argument(
        "--setup-only",
        action="store_true",
        help="make the --setup-cache file and stop (where CPU time is cheap, to carry it to a GPU call)",
    )
    parser.add_argument("--config", type=Path, help="YAML of these flags (names with _), as defaults")
    parser.add_argument("--smoke", action="store_true", help="a few tasks, steps and tokens: the plumbing")
    args = parser.parse_args()
    if args.config:
        defaults = yaml.safe_load(args.config.read_text()) or {}
        unknown = sorted(set(defaults) - set(vars(args)))
        if unknown:
            raise SystemExit(f"error: {args.config}: unknown setting(s) {', '.join(unknown)}")
        parser.set_defaults(**defaults)
        args = parser.parse_args()
    if args.smoke:
        for key, value in SMOKE.items():
            setattr(args, key, value)
        args.copy_steps, args.copy_gap_steps = min(args.copy_steps, 2), min(args.copy_gap_steps, 2)
        args.drills = min(args.drills, 4)
    negative = [f"--{k.replace('_', '-')}" for k in NON_NEGATIVE if getattr(args, k) < 0]
    if negative or args.copy_lr <= 0:
        bad = ", ".join(negative) if negative else "--copy-lr"
        raise SystemExit(f"error: {bad} must be {'>= 0' if negative else '> 0'}")
    if args.eval_repeats < 1:
        raise SystemExit(f"error: --eval-repeats must be >= 1 (got {args.eval_repeats})")
    if args.value_weight <= 0:
        raise SystemExit(f"error: --value-weight must be > 0 (got {args.value_weight:g})")
    if not 0 <= args.rename <= 1:
        raise SystemExit(f"error: --rename is a share of the train tasks, from 0 to 1 (got {args.rename:g})")
    if args.init_stage != "warmup" and args.init_model is None:
        raise SystemExit(f"error: --init-stage {args.init_stage} names a saved model: give --init-model DIR")
    if args.grpo_steps_done is not None and (args.grpo_steps_done < 0 or args.init_stage != "grpo"):
        raise SystemExit(
            f"error: --grpo-steps-done {args.grpo_steps_done} needs --init-stage grpo and must be >= 0"
        )
    evaluation_only = args.init_model is not None and args.epochs == 0 and args.grpo_steps == 0
    if args.setup_only and args.setup_cache is None:
        raise SystemExit("error: --setup-only writes the --setup-cache file: name one")
    if args.setup_cache is not None and evaluation_only:
        raise SystemExit(
            "error: --setup-cache: a saved model evaluated only (--epochs 0 --grpo-steps 0) uses no train"
            " task; leave --setup-cache out"
        )
    if args.init_model is not None:
        folders = [args.init_model / f"seed{int(s)}" / args.init_stage for s in args.seeds.split(",")]
        missing = [str(f) for f in folders if not (f / "config.json").is_file()]
        if missing:
            raise SystemExit(f"error: --init-model: no saved model in {', '.join(missing)}")
        changed = [c for s in args.seeds.split(",") for c in draws_changed(args, int(s))]
        if changed and args.grpo_steps:
            raise SystemExit(
                f"error: continuing GRPO would draw other train tasks: {'; '.join(changed)}; "
                "repeat the saved run's settings, or give --grpo-steps-done 0 to start the draws anew"
            )
    if args.device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise SystemExit(f"error: --device {args.device} but torch sees no CUDA device")
        torch.backends.cuda.matmul.allow_tf32 = True
    torch.set_num_threads(args.threads)
    args.scratch = Path("/tmp") / f"learning_curve_{os.getpid()}"
    families = args.families.split(",")
    # demonstrations and GRPO episodes: run ids stamped from --data-seed, not the clock
    with spread_run_ids(args.data_seed):
        started = time.monotonic()
        keep = in_stated_units if args.stated_units else None
        eval_tasks = pick(GENERATED / "eval.jsonl", families, args.n_eval, 0, keep)
        cached = cached_setup(args)
        if cached is not None:
            train_tasks, demos, drill_demos = cached
            print(f"set-up read from {args.setup_cache}", flush=True)
        else:
            if evaluation_only:
                only = "a saved model evaluated only (--epochs 0 --grpo-steps 0): no train task drawn"
                print(only, flush=True)
                train_tasks = []
            elif args.generate_train:
                train_tasks = asyncio.run(
                    generated(families, args.generate_train, args.data_seed, eval_tasks, keep, args.split)
                )
            else:
                train_tasks = pick(GENERATED / "train.jsonl", families, args.n_train, 0, keep)
            if args.rename:
                rng = random.Random(args.data_seed)
                train_tasks = [renamed(t, rng) if rng.random() < args.rename else t for t in train_tasks]
            drill_tasks = []
            if args.drills and train_tasks:
                drill_tasks = asyncio.run(
                    generated(families, args.drills, args.data_seed + 1, eval_tasks, keep, args.split)
                )
            demos = asyncio.run(demonstrations(train_tasks))
            drill_demos = asyncio.run(demonstrations(drill_tasks))
            if args.setup_cache is not None:
                save_setup(args.setup_cache, setup_settings(args), train_tasks, demos, drill_demos)
                print(f"set-up written to {args.setup_cache}", flush=True)
        counts = f"{len(train_tasks)} train / {len(eval_tasks)} held-out tasks"
        print(f"{counts} of {families}, {len(drill_demos)} drills", flush=True)
        if args.setup_only:
            print(f"--setup-only: stopping after the set-up ({time.monotonic() - started:.0f} s)", flush=True)
            return
        cut = DRILLS[args.drill_kind]
        drills = [d for d in map(cut, drill_demos) if d is not None]
        with spread_run_ids(EVAL_RUN_IDS):  # the ladder's contexts: the same whatever was recorded before
            eval_demos = asyncio.run(demonstrations(eval_tasks))
        points: list[dict[str, Any]] = []
        steps: list[dict[str, Any]] = []
        command = "python benchmarks/learning_curve.py " + " ".join(sys.argv[1:])

        def write() -> None:
            """JSON and PNG of what was measured so far (after every evaluation: a cut run keeps it)."""
            load = os.getloadavg()
            meta = {
                "command": command,
                "settings": {k: str(v) for k, v in vars(args).items() if k != "scratch"},
                "machine": f"{os.cpu_count()} CPUs, torch threads {args.threads}, device {args.device}",
                "load_average": [round(x, 2) for x in load],
                "wall_s": round(time.monotonic() - started),
                "success_reward": SUCCESS_REWARD,
            }
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.with_suffix(".json").write_text(
                json.dumps({"meta": meta, "points": points, "grpo_steps": steps}, indent=1) + "\n"
            )
            title = f"{command} | wall {meta['wall_s']} s, load {meta['load_average']}, {meta['machine']}"
            plot(points, steps, args.out.with_suffix(".png"), title)

        if args.wait_for is not None and not args.wait_for.exists():
            print(
                f"set-up done in {time.monotonic() - started:.0f} s; waiting for {args.wait_for}", flush=True
            )
            while not args.wait_for.exists():
                time.sleep(1)
            print(f"{args.wait_for} is there after {time.monotonic() - started:.0f} s: going on", flush=True)
        for seed in [int(s) for s in args.seeds.split(",")]:
            run_seed(seed, demos, drills, train_tasks, eval_demos, eval_tasks, args, points, steps, write)
        print(f"wrote {args.out.with_suffix('.json')} and .png; wall {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()

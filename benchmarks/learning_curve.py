"""Learning curve on CPU: held-out per-turn and full-episode success of a tiny model before and after SFT.

Train and held-out tasks of the chosen families come from the shipped generated sets (``data/generated/``:
train.jsonl and eval.jsonl are disjoint draws, eval's topologies held out); each seed builds a Qwen2 from a
config and a BPE tokenizer learnt from the train demonstrations (nothing downloaded), then SFT on those
verified demonstrations, each turn rendered in the context the agent shows the model (tools block, schema
cleared after a successful run, config acknowledged once read). Evaluated greedy, on held-out tasks, before
SFT and after every ``--eval-every`` epochs:

- **ladder** (per turn, each turn given the reference's earlier turns): the first call right (get_schema with
  exactly the task's parts); the config turn's JSON valid, and the config run by the real ``run_simulation``
  tool on the mock (accepted / ran); the get_result call right; the answer's reward on the reference trace;
- **episode** (the model's own turns): the agent's loop in process (its model view, its three tools over the
  in-process mock, at most ``--max-turns`` turns), scored by the shipped reward: mean reward, the funnel
  stages (schema, attempted, json, faithful, accepted, simulated, read) and success (reward >= 0.9).

The episode loop is the agent's logic without AutoGen (same tools, same view, same reward), so no model
server is needed. JSON and a PNG go to ``docs/benchmarks/``.

    nice -n 10 python benchmarks/learning_curve.py --families heater,pump --n-train 60 --n-eval 10 --epochs 6
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

import torch
from autogen_core.tools import FunctionTool

from aspen_rl.agent.context import openai_view
from aspen_rl.agent.prompts import default_system_prompt
from aspen_rl.algorithms.sft.config import SFTConfig
from aspen_rl.algorithms.sft.data import transcript_rows
from aspen_rl.algorithms.sft.evaluate import is_correct_first_call
from aspen_rl.algorithms.sft.trainer import SFTTrainer
from aspen_rl.datagen import family_of
from aspen_rl.datagen.demos import record_demos
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.llm.tiny_bpe import build_tiny_bpe_model
from aspen_rl.llm.tool_calls import parse_tool_calls
from aspen_rl.reward import compute_reward
from aspen_rl.reward.aspen import Facts
from aspen_rl.tasks import AspenTask, load_tasks
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "data" / "generated"
SUCCESS_REWARD = 0.9
STAGES = ("schema", "attempted", "json", "faithful", "accepted", "simulated", "read")


def pick(path: Path, families: list[str], n: int, seed: int) -> list[AspenTask]:
    """``n`` tasks of ``families`` from ``path``, as even across families as the file allows."""
    rng = random.Random(seed)
    by_family = {f: [t for t in load_tasks(path) if family_of(t) == f] for f in families}
    for name, tasks in by_family.items():
        if not tasks:
            raise SystemExit(f"error: no task of family {name!r} in {path}")
        rng.shuffle(tasks)
    chosen: list[AspenTask] = []
    while len(chosen) < n and any(by_family.values()):
        for tasks in by_family.values():
            if tasks and len(chosen) < n:
                chosen.append(tasks.pop())
    return chosen


async def demonstrations(tasks: list[AspenTask]) -> list[dict[str, Any]]:
    async with in_process_client() as client:
        kept, dropped = await record_demos(tasks, client)
    if dropped:
        print(f"  {len(dropped)} reference solutions did not score 1.0 and were left out")
    return kept


@torch.no_grad()
def generate(model: Any, tokenizer: Any, messages: list[dict[str, Any]], tools: Any, max_new: int) -> str:
    """The model's greedy next turn after ``messages`` (rendered as the SFT rows are)."""
    from aspen_rl.llm.chat_server import normalize_messages

    text = tokenizer.apply_chat_template(
        normalize_messages(messages), tools=tools, add_generation_prompt=True, tokenize=False
    )
    ids = torch.tensor([tokenizer.encode(text, add_special_tokens=False)])
    out = model.generate(
        input_ids=ids,
        attention_mask=torch.ones_like(ids),
        max_new_tokens=max_new,
        do_sample=False,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return str(tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=False)).split(
        tokenizer.eos_token
    )[0]


def _first_call(text: str) -> tuple[str, dict[str, Any] | None]:
    parsed = parse_tool_calls(text)
    if not parsed.tool_calls:
        return "", None
    call = parsed.tool_calls[0]
    try:
        arguments = json.loads(call.arguments)
    except json.JSONDecodeError:
        return call.name, None
    return call.name, arguments if isinstance(arguments, dict) else None


def _tool_specs(functions: list[Any]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": FunctionTool(fn, description=fn.__doc__ or "").schema}
        for fn in functions
    ]


async def ladder(model: Any, tokenizer: Any, demo: dict[str, Any], task: AspenTask) -> dict[str, float]:
    """Each assistant turn of the reference, generated by the model from the reference's earlier turns."""
    raw = demo["messages"]
    turns = [i for i, m in enumerate(raw) if m["role"] == "assistant"]
    tools = demo.get("tools")
    scores: dict[str, float] = {}
    async with in_process_client() as client:
        trace = RunTrace()
        by_name = {fn.__name__: fn for fn in build_tools(client, trace)}
        for i in turns:
            reference = raw[i]
            budget = len(tokenizer.encode(json.dumps(reference, ensure_ascii=False))) + 32
            text = generate(model, tokenizer, openai_view(raw[:i]), tools, budget)
            name, arguments = _first_call(text)
            if not reference.get("tool_calls"):  # the answer, judged on the reference's own trace
                reference_trace = await _replay(raw[:i], task)
                reference_trace.final_answer = text
                scores["answer_reward"] = compute_reward(task, reference_trace).total
                continue
            expected = reference["tool_calls"][0]["function"]["name"]
            if expected == "get_schema":
                scores["first_call"] = float(is_correct_first_call(task, text)[1])
            elif expected == "run_simulation":
                config = (arguments or {}).get("config")
                try:
                    valid = isinstance(json.loads(config), dict) if isinstance(config, str) else False
                except json.JSONDecodeError:
                    valid = False
                scores["config_json"] = float(name == expected and valid)
                ran = False
                if scores["config_json"]:
                    answer = json.loads(await by_name["run_simulation"](config=config))
                    ran = answer.get("success") is True
                scores["config_ran"] = float(ran)
            elif expected == "get_result":
                wanted = json.loads(reference["tool_calls"][0]["function"]["arguments"])
                scores["result_call"] = float(name == expected and arguments == wanted)
    return scores


async def _replay(messages: list[dict[str, Any]], task: AspenTask) -> RunTrace:
    """The trace of the reference's tool calls in ``messages``, replayed through the real tools."""
    trace = RunTrace()
    async with in_process_client() as client:
        by_name = {fn.__name__: fn for fn in build_tools(client, trace)}
        for message in messages:
            for call in message.get("tool_calls") or []:
                await by_name[call["function"]["name"]](**json.loads(call["function"]["arguments"]))
    return trace


async def episode(
    model: Any, tokenizer: Any, task: AspenTask, max_turns: int, max_new: int
) -> dict[str, Any]:
    """The model drives the task on its own: the agent's view, tools and reward; greedy."""
    trace = RunTrace()
    async with in_process_client() as client:
        functions = build_tools(client, trace)
        by_name = {fn.__name__: fn for fn in functions}
        tools = _tool_specs(functions)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": default_system_prompt()},
            {"role": "user", "content": task.user_requirement},
        ]
        for turn in range(max_turns):
            text = generate(model, tokenizer, openai_view(messages), tools, max_new)
            parsed = parse_tool_calls(text)
            if not parsed.tool_calls:
                trace.final_answer = text
                break
            call = parsed.tool_calls[0]
            messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": f"c{turn}",
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        }
                    ],
                }
            )
            try:
                arguments = json.loads(call.arguments)
                answer = await by_name[call.name](**arguments)
            except (json.JSONDecodeError, KeyError, TypeError) as exc:  # as AutoGen answers a bad call
                answer = f"Error: {type(exc).__name__}: {exc}"
            messages.append({"role": "tool", "tool_call_id": f"c{turn}", "content": answer})
    reward = compute_reward(task, trace)
    stages = Facts.of(task, trace).stages
    return {"reward": reward.total, "success": float(reward.total >= SUCCESS_REWARD), **stages}


def _mean(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({k for r in rows for k in r})
    return {k: round(statistics.fmean(r[k] for r in rows if k in r), 4) for k in keys}


async def evaluate(
    model: Any, tokenizer: Any, eval_demos: list, eval_tasks: list, args: Any
) -> dict[str, Any]:
    model.eval()
    by_id = {t.task_id: t for t in eval_tasks}
    rungs = [await ladder(model, tokenizer, d, by_id[d["task_id"]]) for d in eval_demos]
    episodes = [
        await episode(model, tokenizer, t, args.max_turns, args.max_new_tokens)
        for t in eval_tasks[: args.n_episodes]
    ]
    return {"ladder": _mean(rungs), "episode": _mean(episodes)}


def run_seed(
    seed: int,
    demos: list,
    eval_demos: list,
    eval_tasks: list,
    args: Any,
    points: list[dict[str, Any]],
    write: Any,
) -> None:
    """Build, evaluate untrained, then SFT with an evaluation every ``eval_every`` epochs (into ``points``,
    written by ``write`` after each)."""
    model, tokenizer = build_tiny_bpe_model(
        demos, vocab_size=args.vocab, hidden_size=args.width, num_layers=args.layers, num_heads=4, seed=seed
    )
    started = time.monotonic()

    def point(epoch: float, loss: float | None) -> None:
        result = asyncio.run(evaluate(model_ref[0], tokenizer, eval_demos, eval_tasks, args))
        entry = {
            "seed": seed,
            "epoch": epoch,
            "loss": loss,
            "elapsed_s": round(time.monotonic() - started),
            **result,
        }
        points.append(entry)
        write()
        print(f"  seed {seed} epoch {epoch:g}: loss {loss}, {json.dumps(result)}", flush=True)

    model_ref = [model]
    point(0, None)
    config = SFTConfig(
        model="tiny",
        device="cpu",
        dtype="float32",
        lora={"enabled": False},
        max_length=args.max_length,
        epochs=args.eval_every,
        batch_size=args.batch_size,
        micro_batch_size=args.batch_size,
        learning_rate=args.lr,
        warmup_steps=5,
        lr_schedule="constant",
        seed=seed,
        output_dir=str(args.scratch),
        run_name=f"seed{seed}",
        save_every=0,
        log_every=1,
    )
    trainer = SFTTrainer(config, model=model, tokenizer=tokenizer)
    rows = transcript_rows(demos, tokenizer, max_length=args.max_length)
    print(f"  seed {seed}: {len(demos)} demonstrations -> {len(rows)} rows", flush=True)
    epoch = 0.0
    while epoch < args.epochs:
        epoch += args.eval_every
        trainer.config.epochs = epoch
        history = trainer.train(rows)
        model_ref[0] = trainer.model
        point(epoch, round(history[-1]["loss"], 4))


def plot(points: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    series = {
        "ladder": ["first_call", "config_json", "config_ran", "result_call", "answer_reward"],
        "episode": ["reward", "schema", "json", "simulated", "read", "success"],
    }
    for ax, (kind, keys) in zip(axes, series.items(), strict=True):
        for key in keys:
            by_epoch: dict[float, list[float]] = {}
            for p in points:
                if key in p[kind]:
                    by_epoch.setdefault(p["epoch"], []).append(p[kind][key])
            xs = sorted(by_epoch)
            ax.plot(xs, [statistics.fmean(by_epoch[x]) for x in xs], marker="o", label=key)
        ax.set_title(f"held-out {kind} (greedy), mean over seeds")
        ax.set_xlabel("SFT epochs")
        ax.set_ylim(-0.05, 1.05)
        ax.legend(fontsize=8)
    import textwrap

    fig.suptitle("\n".join(textwrap.wrap(title, 160)), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="heater,pump")
    parser.add_argument("--n-train", type=int, default=60)
    parser.add_argument("--n-eval", type=int, default=10)
    parser.add_argument("--n-episodes", type=int, default=6, help="held-out tasks driven as full episodes")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--epochs", type=float, default=6)
    parser.add_argument("--eval-every", type=float, default=3)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--vocab", type=int, default=2000)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-length", type=int, default=4096)
    parser.add_argument("--max-turns", type=int, default=4)
    parser.add_argument("--max-new-tokens", type=int, default=384)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks" / "learning_curve")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    args.scratch = Path("/tmp") / f"learning_curve_{os.getpid()}"
    families = args.families.split(",")
    started = time.monotonic()
    train_tasks = pick(GENERATED / "train.jsonl", families, args.n_train, 0)
    eval_tasks = pick(GENERATED / "eval.jsonl", families, args.n_eval, 0)
    print(f"{len(train_tasks)} train / {len(eval_tasks)} held-out tasks of {families}", flush=True)
    demos = asyncio.run(demonstrations(train_tasks))
    eval_demos = asyncio.run(demonstrations(eval_tasks))
    points: list[dict[str, Any]] = []

    def write() -> None:
        """JSON and PNG of the points so far (after every evaluation: a cut run keeps what it measured)."""
        load = os.getloadavg()
        meta = {
            "command": "python benchmarks/learning_curve.py "
            + " ".join(
                f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k not in {"out", "scratch"}
            ),
            "machine": f"{os.cpu_count()} CPUs, torch threads {args.threads}",
            "load_average": [round(x, 2) for x in load],
            "wall_s": round(time.monotonic() - started),
            "success_reward": SUCCESS_REWARD,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".json").write_text(
            json.dumps({"meta": meta, "points": points}, indent=1) + "\n"
        )
        title = f"{meta['command']} | wall {meta['wall_s']} s, load {meta['load_average']}"
        plot(points, args.out.with_suffix(".png"), title)

    for seed in [int(s) for s in args.seeds.split(",")]:
        run_seed(seed, demos, eval_demos, eval_tasks, args, points, write)
    print(f"wrote {args.out.with_suffix('.json')} and .png; wall {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()

"""Where a saved model's held-out configs go wrong: teacher-forced accuracy of the config turn by token class.

Run on a model ``benchmarks/learning_curve.py --save-model`` kept (the held-out tasks are drawn as there).
Each held-out task's verified demonstration is rendered as the agent shows it; on its run_simulation turn
every token the model would predict, given the reference's earlier tokens, is right or wrong, and counted in
one class:

- ``names (copy)``: a block, stream or method name the request states (``FEED-1``, ``B1``, ``NRTL``);
- ``numbers (copy)``: a number the request states as written (or a mole fraction it gives in mol%);
- ``numbers (converted)``: a number the config states in other units than the request (°F, psia, mol/s);
- ``component ids (lookup)``: ``cid``, ``name``, ``cas_number``, ``database_name`` of a component (from the
  request's component names, English or Chinese: known only from training);
- ``keywords``: other quoted upper-case words (``TP``, ``MOLE-FRAC``, unit names);
- ``structure``: everything else (keys, quotes, brackets).

Whole values: a number is right when every token of it is (``--show-wrong``: each wrong one, token by token).
With ``--drill`` the config turn is scored in its config drill's context
(:mod:`aspen_rl.algorithms.sft.drills`: the request right before it, no tools block, no schema) instead of
the agent's.

    python benchmarks/config_tokens.py /tmp/lc/models/seed1/sft --families heater --n-eval 8
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections import defaultdict
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM

from aspen_rl.algorithms.sft.data import assistant_records
from aspen_rl.algorithms.sft.drills import config_drill
from aspen_rl.llm.tokenizer_files import load_tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module, run from anywhere
from learning_curve import GENERATED, demonstrations, number_is_stated, pick

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE]-?\d+)?")
IDENTITY = re.compile(r'\\"(cid|name|cas_number|database_name|method_name)\\": \\"([^"\\]*)\\"')
UPPER = re.compile(r'\\"([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)\\"')


def classes(text: str, request: str) -> tuple[list[str], list[tuple[int, int, str]]]:
    """The class of every character of a config turn's ``text``, and the spans of its numbers."""
    kind = ["structure"] * len(text)

    def mark(start: int, end: int, name: str) -> None:
        kind[start:end] = [name] * (end - start)

    for m in UPPER.finditer(text):
        mark(m.start(1), m.end(1), "names (copy)" if m.group(1) in request else "keywords")
    for m in IDENTITY.finditer(text):
        stated = m.group(1) == "method_name" and m.group(2) in request
        mark(m.start(2), m.end(2), "names (copy)" if stated else "component ids (lookup)")
    numbers = []
    for m in NUMBER.finditer(text):
        if kind[m.start()] != "structure":
            continue
        value = float(m.group())
        name = "numbers (copy)" if number_is_stated(value, request) else "numbers (converted)"
        mark(m.start(), m.end(), name)
        numbers.append((m.start(), m.end(), name))
    return kind, numbers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="a folder --save-model wrote (seedN/sft, ...)")
    parser.add_argument("--families", default="heater")
    parser.add_argument("--n-eval", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--show-wrong", action="store_true", help="print each wrong number: token by token")
    parser.add_argument(
        "--drill", action="store_true", help="score in the config drill's context (request, then config)"
    )
    args = parser.parse_args()
    if not (args.model / "config.json").is_file():
        raise SystemExit(f"error: {args.model}: no saved model (config.json) there")
    torch.set_num_threads(args.threads)
    model = AutoModelForCausalLM.from_pretrained(args.model).eval()
    tokenizer = load_tokenizer(args.model)
    tasks = {t.task_id: t for t in pick(GENERATED / "eval.jsonl", args.families.split(","), args.n_eval, 0)}
    tokens: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    values: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for demo in asyncio.run(demonstrations(list(tasks.values()))):
        turn = next(
            r
            for r in assistant_records((config_drill(demo) or demo) if args.drill else demo, tokenizer)
            if "run_simulation" in tokenizer.decode(r.completion_ids)
        )
        with torch.no_grad():
            logits = model(torch.tensor([turn.prompt_ids + turn.completion_ids])).logits[0]
        target = turn.completion_ids
        predicted = logits[len(turn.prompt_ids) - 1 : -1].argmax(-1).tolist()
        right = [p == t for p, t in zip(predicted, target, strict=True)]
        spans, text = [], ""
        for k in range(len(target)):
            longer = tokenizer.decode(target[: k + 1], skip_special_tokens=False)
            spans.append((len(text), len(longer)))
            text = longer
        kind, numbers = classes(text, tasks[demo["task_id"]].user_requirement)
        for ok, (start, end) in zip(right, spans, strict=True):
            name = next((c for c in kind[start:end] if c != "structure"), "structure")
            tokens[name][0] += ok
            tokens[name][1] += 1
        for start, end, name in numbers:
            inside = [k for k, (a, b) in enumerate(spans) if a < end and b > start]
            values[name][0] += all(right[k] for k in inside)
            values[name][1] += 1
            if args.show_wrong and not all(right[k] for k in inside):
                said = "|".join(tokenizer.decode([predicted[k]]) for k in inside)
                print(f"  {demo['task_id']} {name}: {text[start:end]} predicted {said}")
    for name, (ok, n) in sorted(tokens.items()):
        print(f"{name:24s} tokens right {ok}/{n} = {ok / n:.2f}")
    for name, (ok, n) in sorted(values.items()):
        print(f"{name:24s} whole values right {ok}/{n} = {ok / n:.2f}")


if __name__ == "__main__":
    main()

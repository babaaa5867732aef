"""Chat templates: one that drops the agent's tools is refused with the fix named; a setting replaces it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.llm.chat_server import ChatCompletionServer
from aspen_rl.llm.chat_template import (
    CHATML_TOOLS_TEMPLATE,
    ChatTemplateError,
    check_renders_tools,
    load_chat_template,
)
from aspen_rl.llm.engine import TransformersEngine
from aspen_rl.llm.loading import load_model
from aspen_rl.llm.tiny_bytes import build_tiny_tokenizer, save_tiny_chat_model

NO_TOOLS_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
    "'<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""ChatML that ignores ``tools`` and tool calls, as SmolLM2-Instruct's template does."""

TOOL = {"type": "function", "function": {"name": "get_schema", "parameters": {"type": "object"}}}


def no_tools_tokenizer() -> Any:
    tokenizer = build_tiny_tokenizer()
    tokenizer.chat_template = NO_TOOLS_TEMPLATE
    return tokenizer


def test_a_template_without_tools_is_refused_with_the_fix() -> None:
    with pytest.raises(ChatTemplateError) as refused:
        check_renders_tools(no_tools_tokenizer(), "SmolLM2-like")
    message = str(refused.value)
    assert "does not render tool definitions (`tools`), assistant tool calls" in message
    assert (
        "chat_template: <file.jinja>" in message
        and "--chat-template" in message
        and "chatml-tools" in message
    )
    tokenizer = no_tools_tokenizer()
    tokenizer.chat_template = None
    with pytest.raises(ChatTemplateError, match="has no chat template"):
        check_renders_tools(tokenizer)
    check_renders_tools(build_tiny_tokenizer())  # the tiny template renders all three parts


def test_the_endpoint_refuses_it_and_a_chat_template_file_fixes_it(chat_model: Any, tmp_path: Path) -> None:
    tokenizer = no_tools_tokenizer()
    engine = TransformersEngine(chat_model, tokenizer)
    with pytest.raises(ChatTemplateError, match="policy's tokenizer"):
        ChatCompletionServer(engine, tokenizer)
    template = tmp_path / "tools.jinja"
    template.write_text(CHATML_TOOLS_TEMPLATE, encoding="utf-8")
    server = ChatCompletionServer(engine, tokenizer, chat_template=str(template))
    body = {"messages": [{"role": "user", "content": "Heat water."}], "tools": [TOOL]}
    assert '"name": "get_schema"' in tokenizer.decode(server.render(body))
    assert ChatCompletionServer.from_config(
        GRPOConfig(chat_template="chatml-tools"), engine, no_tools_tokenizer()
    )
    with pytest.raises(FileNotFoundError, match="chat template not found"):
        load_chat_template(tmp_path / "absent.jinja")


def test_grpo_setting_applies_when_the_policy_is_loaded(tmp_path: Path) -> None:
    model_dir = save_tiny_chat_model(tmp_path / "tiny")
    tokenizer = build_tiny_tokenizer()
    tokenizer.chat_template = NO_TOOLS_TEMPLATE
    tokenizer.save_pretrained(model_dir)  # a model shipped with a template that drops tools
    config = GRPOConfig(model=str(model_dir), device="cpu")
    with pytest.raises(ChatTemplateError, match=str(model_dir)):
        load_model(config)
    _, fixed = load_model(config.replace(chat_template="chatml-tools"))
    check_renders_tools(fixed)
    assert fixed.chat_template == CHATML_TOOLS_TEMPLATE

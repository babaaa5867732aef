"""Config drills on a real heater demonstration: the request and the config turn, nothing between, no tools
block; trained on the config turn alone, in rows ~1/7 as long as the whole transcript's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aspen_rl.algorithms.sft.data import transcript_rows
from aspen_rl.algorithms.sft.drills import config_drill, episode_drill
from aspen_rl.llm.tiny_bpe import train_chat_tokenizer, transcript_texts
from aspen_rl.tasks import AspenTask


@pytest.fixture(scope="module")
def demo(heater: tuple[AspenTask, dict[str, Any]]) -> dict[str, Any]:
    """The verified demonstration of the first generated heater eval task (``conftest.heater``)."""
    return heater[1]


def test_a_drill_is_the_request_and_the_config_turn(demo: dict[str, Any]) -> None:
    drill = config_drill(demo)
    assert drill is not None
    assert [m["role"] for m in drill["messages"]] == ["system", "user", "assistant"]
    assert drill["messages"][:2] == demo["messages"][:2]
    (call,) = drill["messages"][2]["tool_calls"]
    assert call["function"]["name"] == "run_simulation"
    config = json.loads(json.loads(call["function"]["arguments"])["config"])
    assert config["blocks"][0]["type"] == "Heater"
    assert "tools" not in drill and "tools" in demo  # rendered without the tools block
    assert drill["task_id"] == demo["task_id"]


def test_a_transcript_without_a_run_has_no_drill(demo: dict[str, Any]) -> None:
    schema_only = {**demo, "messages": demo["messages"][:4]}  # system, user, get_schema, its answer
    assert schema_only["messages"][2]["tool_calls"][0]["function"]["name"] == "get_schema"
    assert config_drill(schema_only) is None


def test_a_drill_row_trains_only_the_config_turn_and_is_short(demo: dict[str, Any]) -> None:
    drill = config_drill(demo)
    assert drill is not None
    tokenizer = train_chat_tokenizer(transcript_texts([demo]), vocab_size=2000, individual_digits=True)
    wholes = transcript_rows([demo], tokenizer)  # more than one: the view clears the schema after the run
    (row,) = transcript_rows([drill], tokenizer)
    assert len(row.input_ids) * 5 < sum(len(w.input_ids) for w in wholes)
    trained = tokenizer.decode([t for t, m in zip(row.input_ids, row.loss_mask, strict=True) if m])
    assert "run_simulation" in trained and "get_schema" not in trained
    assert demo["messages"][1]["content"] not in trained  # the request is context, not a target
    # the config turn's trained tokens are the whole transcript's config-turn tokens, token for token
    assert any(
        trained in tokenizer.decode([t for t, m in zip(w.input_ids, w.loss_mask, strict=True) if m])
        for w in wholes
    )


def test_an_episode_drill_keeps_every_turn_from_the_config_on_and_trains_them(demo: dict[str, Any]) -> None:
    """The result call copies the run's path and the answer the results' values: an episode drill keeps
    both turns with the answers they read, and only the tools block and the get_schema exchange go."""
    drill = episode_drill(demo)
    assert drill is not None and "tools" not in drill
    calls = [c["function"]["name"] for m in drill["messages"] for c in m.get("tool_calls") or []]
    assert calls == ["run_simulation", "get_result"]
    assert drill["messages"][:2] == demo["messages"][:2]
    assert drill["messages"][2:] == demo["messages"][4:]  # everything after the schema exchange
    assert drill["messages"][-1]["role"] == "assistant" and not drill["messages"][-1].get("tool_calls")
    tokenizer = train_chat_tokenizer(transcript_texts([demo]), vocab_size=2000, individual_digits=True)
    rows = transcript_rows([drill], tokenizer)
    trained = "".join(
        tokenizer.decode([t for t, m in zip(r.input_ids, r.loss_mask, strict=True) if m]) for r in rows
    )
    path = json.loads(drill["messages"][3]["content"])["result_file_path"]
    assert "get_result" in trained and path in trained and "get_schema" not in trained
    wholes = transcript_rows([demo], tokenizer)
    assert sum(len(r.input_ids) for r in rows) * 2 < sum(len(w.input_ids) for w in wholes)
    assert episode_drill({**demo, "messages": demo["messages"][:4]}) is None

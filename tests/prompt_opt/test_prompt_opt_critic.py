"""The LLM critic against a tiny local OpenAI-compatible app (loopback, free port), and its fallback."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from aspen_rl.algorithms.prompt_opt.critic import (
    CRITIQUE_INSTRUCTIONS,
    CriticError,
    CriticProposer,
    PromptCritic,
    clean_prompt,
    format_rollouts,
    worst_rollouts,
)
from aspen_rl.algorithms.prompt_opt.edits import EditProposer
from aspen_rl.algorithms.prompt_opt.search import BeamSearch, Candidate, Evaluation
from aspen_rl.subprocesses import free_port

API_KEY = "sk-test-secret-0123456789"
CRITIQUE = "1. Fetch the schema of every block type first.\n2. State units explicitly."


@dataclass
class FakeLLM:
    """What the app answers (``mode``) and what it was asked."""

    mode: str = "ok"
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str] = field(default_factory=list)
    edits: int = 0


def create_app(state: FakeLLM) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        state.requests.append(body)
        state.auth.append(request.headers.get("authorization", ""))
        if state.mode == "error":
            return JSONResponse({"error": {"message": "overloaded", "type": "server_error"}}, status_code=503)
        if state.mode == "slow":
            await asyncio.sleep(2)
        system = body["messages"][0]["content"]
        if system == CRITIQUE_INSTRUCTIONS:
            content = CRITIQUE
        elif state.mode == "empty":
            content = "   "
        else:
            state.edits += 1
            content = f"```markdown\nYou are a careful process engineer (revision {state.edits}).\n```"
        return JSONResponse(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    return app


@pytest.fixture(scope="module")
def llm() -> Iterator[tuple[str, FakeLLM]]:
    """The fake endpoint, served by uvicorn in a thread on a free loopback port."""
    state = FakeLLM()
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(state), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/v1", state
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def fake(llm) -> tuple[str, FakeLLM]:
    url, state = llm
    state.mode, state.edits = "ok", 0
    state.requests.clear()
    state.auth.clear()
    return url, state


def critic(url: str, **kwargs: Any) -> PromptCritic:
    options = {"base_url": url, "api_key": API_KEY, "model": "critic-model", "timeout_s": 5.0, "retries": 0}
    options.update(kwargs)
    return PromptCritic(**options)


def parent_with_rollouts(make_record) -> Candidate:
    records = [
        make_record("good-task", 0.95, answer="T = 80 C"),
        make_record(
            "bad-task",
            0.10,
            difficulty="hard",
            calls=[("run_simulation", False, "unknown component 'METHANOLL'")],
            arguments='{"config": "{...}"}',
            answer="I could not finish.",
        ),
        make_record("meh-task", 0.40, difficulty="medium"),
    ]
    c = Candidate(id="c0", prompt="You drive a simulator.", round=0, index=0)
    c.train = Evaluation.from_records("train", records)
    return c


async def test_critique_then_edit_makes_the_children(fake, make_record, caplog) -> None:
    url, state = fake
    proposer = CriticProposer(
        critic(url),
        EditProposer(0),
        {"bad-task": "Mix methanol and water, report the outlet temperature."},
        sample_size=2,
    )
    caplog.set_level(logging.DEBUG)
    proposals = await proposer(parent_with_rollouts(make_record), 2, 1, set())
    await proposer.critic.close()
    assert [p.prompt for p in proposals] == [
        "You are a careful process engineer (revision 1).\n",  # code fence removed
        "You are a careful process engineer (revision 2).\n",
    ]
    assert all(p.origin == "critic" and p.edit == "critic" and p.critique == CRITIQUE for p in proposals)
    # One critique call, then one edit call per child.
    assert len(state.requests) == 3
    critique_request = state.requests[0]["messages"][1]["content"]
    # The critic saw the two lowest-reward rollouts, their tool calls, simulator errors and rewards.
    assert "bad-task" in critique_request and "meh-task" in critique_request
    assert "good-task" not in critique_request
    assert "unknown component 'METHANOLL'" in critique_request
    assert "Mix methanol and water" in critique_request
    assert "total 0.100 = completion 0.10" in critique_request
    assert "You drive a simulator." in critique_request
    edit_request = state.requests[2]["messages"][1]["content"]
    assert CRITIQUE in edit_request and "Address point 2" in edit_request
    assert all(r["model"] == "critic-model" for r in state.requests)
    # The key goes to the endpoint, never to the logs.
    assert state.auth == [f"Bearer {API_KEY}"] * 3
    assert API_KEY not in caplog.text


@pytest.mark.parametrize("mode", ["error", "slow", "empty"])
async def test_endpoint_failures_fall_back_to_the_offline_operators(fake, make_record, caplog, mode) -> None:
    url, state = fake
    state.mode = mode
    retries = 1 if mode == "error" else 0
    proposer = CriticProposer(critic(url, retries=retries, timeout_s=0.5), EditProposer(0), {})
    parent = parent_with_rollouts(make_record)
    with caplog.at_level(logging.WARNING):
        proposals = await proposer(parent, 2, 1, set())
    assert len(proposals) == 2
    assert all(p.origin == "edit" and p.edit.startswith("add_") for p in proposals)
    assert proposals == EditProposer(0).propose(parent, 2, 1, set())
    assert "falling back" in caplog.text or "offline edit operators" in caplog.text
    assert API_KEY not in caplog.text
    if mode == "error":
        assert len(state.requests) == 1 + retries  # bounded retries, then give up
    # The rest of the round goes straight to the offline operators, without calling the endpoint.
    calls = len(state.requests)
    other = Candidate(id="c1", prompt="Another prompt.", round=0, index=1)
    assert [p.origin for p in await proposer(other, 2, 1, set())] == ["edit", "edit"]
    assert len(state.requests) == calls
    # A new round tries the critic again.
    state.mode = "ok"
    assert [p.origin for p in await proposer(parent, 1, 2, set())] == ["critic"]
    await proposer.critic.close()


async def test_unreachable_endpoint_never_stops_the_search(make_record, tasks) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    proposer = CriticProposer(critic(dead), EditProposer(0), {})

    async def score(candidate: Candidate, split: str, batch: list, rnd: int) -> Evaluation:
        return Evaluation.from_records(split, [make_record(t.task_id, 0.5, split=split) for t in batch])

    result = await BeamSearch(score, proposer, beam_width=2, branch_factor=2, rounds=2).run(
        "seed prompt", tasks("t", 2), tasks("v", 2)
    )
    await proposer.critic.close()
    assert [r.round for r in result.rounds] == [0, 1, 2]
    assert len(result.candidates) == 1 + 2 + 4
    assert all(c.origin == "edit" for c in result.candidates[1:])
    assert proposer.failed_rounds == {1, 2}


def test_clean_prompt() -> None:
    assert clean_prompt("```\nBe precise.\n```", 100) == "Be precise.\n"
    assert clean_prompt("  Be precise.  ", 100) == "Be precise.\n"
    with pytest.raises(CriticError, match="empty"):
        clean_prompt("```\n\n```", 100)
    with pytest.raises(CriticError, match="limit 10"):
        clean_prompt("x" * 11, 10)


def test_worst_rollouts_and_their_text(make_record) -> None:
    records = [make_record("a", 0.9), make_record("b", 0.1), make_record("c", 0.1, calls=[])]
    assert [r.task_id for r in worst_rollouts(records, 2)] == ["b", "c"]  # equal reward: more calls first
    text = format_rollouts([make_record("x", 0.2, arguments="y" * 1000)], {})
    assert "...(truncated)" in text and "Rollout 1: task x (easy), status ok" in text

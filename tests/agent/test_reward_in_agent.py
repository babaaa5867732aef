"""AspenLitAgent end to end: invalid tool calls cost efficiency; a user's own reward scores the rollout."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from _support.chat_model import ServedChatModel
from agentlightning import LLM
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from aspen_rl.agent import AspenLitAgent
from aspen_rl.policy.openai_app import _completion
from aspen_rl.policy.scripted import AnswerAction, ScriptedPolicy
from aspen_rl.reward import AspenReward, RewardBreakdown
from aspen_rl.settings import Settings
from aspen_rl.subprocesses import mock_simulator
from aspen_rl.tasks import AspenTask, load_split
from aspen_rl.trace import RunTrace

TASK = load_split("train")[0]
BAD_CALLS = (
    ("run_simulaton", '{"config": "{}"}'),  # a tool that does not exist
    ("get_schema", '{"block_types": ["Heater"'),  # arguments that are not JSON
)


class SloppyThenScripted(ServedChatModel):
    """A model endpoint: first the invalid calls of ``BAD_CALLS``, then the scripted reference solution."""

    def __init__(self) -> None:
        policy = ScriptedPolicy([TASK], error_rate=0.0)
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            body = await request.json()
            messages = body["messages"]
            bad = [m for m in messages if m.get("role") == "assistant" and _bad_ids(m)]
            if len(bad) < len(BAD_CALLS):
                name, arguments = BAD_CALLS[len(bad)]
                call = {"id": f"bad_{uuid.uuid4().hex[:8]}", "type": "function"}
                call["function"] = {"name": name, "arguments": arguments}
                message = {"role": "assistant", "content": None, "tool_calls": [call]}
                completion = _completion(AnswerAction(""), "m")
                completion["choices"][0].update(message=message, finish_reason="tool_calls")
                return JSONResponse(completion)
            clean = [
                m
                for m in messages
                if not _bad_ids(m) and not str(m.get("tool_call_id", "")).startswith("bad_")
            ]
            return JSONResponse(_completion(policy.next_action(clean), "m"))

        super().__init__(app)


def _bad_ids(message: dict[str, Any]) -> bool:
    return any(str(c.get("id", "")).startswith("bad_") for c in message.get("tool_calls") or [])


@pytest.fixture(scope="module")
def simulator_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with mock_simulator(tmp_path_factory.mktemp("results")) as service:
        yield service.url


@pytest.mark.slow  # end-to-end, seconds: run by .ci/run, left out of -m "not slow"
async def test_invalid_tool_calls_are_recorded_and_cost_efficiency(simulator_url: str) -> None:
    model = SloppyThenScripted()
    agent = AspenLitAgent(Settings(_env_file=None, aspen_simulator_url=simulator_url))
    record = await agent.run_episode(TASK, {"main_llm": LLM(endpoint=model.url, model="m")}, None)
    assert record.status == "ok", record.error
    assert [(c.name, c.ok) for c in record.tool_calls] == [
        ("run_simulaton", False),
        ("get_schema", False),
        ("get_schema", True),
        ("run_simulation", True),
        ("get_result", True),
    ]
    assert all(c.error.startswith("InvalidToolCall") for c in record.tool_calls[:2])
    details = record.reward.details
    assert details["calls.invalid"] == 2 and details["calls.failed"] == 2
    # order 3/3; two failed calls: 1 - 2 * 0.2 = 0.6
    assert record.reward.tool_efficiency == pytest.approx(0.6)
    assert record.reward.completion == pytest.approx(1.0)


async def test_a_users_reward_function_scores_the_rollout(simulator_url: str) -> None:
    seen: list[RunTrace] = []
    shipped = AspenReward()

    def only_completion(task: AspenTask, trace: RunTrace) -> RewardBreakdown:
        seen.append(trace)
        breakdown = shipped(task, trace)
        return RewardBreakdown(total=breakdown.completion, details={"mine": 1.0})

    model = SloppyThenScripted()
    agent = AspenLitAgent(
        Settings(_env_file=None, aspen_simulator_url=simulator_url), reward_fn=only_completion
    )
    record = await agent.run_episode(TASK, {"main_llm": LLM(endpoint=model.url, model="m")}, None)
    assert record.status == "ok", record.error
    assert record.reward.total == pytest.approx(1.0)  # completion 1, whatever the invalid calls cost
    assert record.reward.details == {"mine": 1.0}
    assert len(seen) == 1 and len(seen[0].calls) == 5

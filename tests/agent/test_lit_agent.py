"""AspenLitAgent in-process: prompt resource, model resolution, timeouts and errors, against real services."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from _support.chat_model import ServedChatModel
from agentlightning import LLM, PromptTemplate, ProxyLLM
from fastapi import Request

from aspen_rl.agent import AspenLitAgent
from aspen_rl.agent.model_client import resolve_llm
from aspen_rl.policy.openai_app import create_policy_app
from aspen_rl.policy.scripted import ScriptedPolicy
from aspen_rl.rollout_seed import SEED_METADATA_KEY
from aspen_rl.settings import Settings
from aspen_rl.subprocesses import mock_simulator
from aspen_rl.tasks import load_split

TASK = load_split("train")[0]


class CapturingPolicy(ServedChatModel):
    """The scripted policy on a loopback port, keeping every chat-completions request body."""

    def __init__(self, latency_s: float = 0.0) -> None:
        self.requests: list[dict[str, Any]] = []
        app = create_policy_app(ScriptedPolicy([TASK], error_rate=0.0), latency_s=latency_s)

        @app.middleware("http")
        async def capture(request: Request, call_next: Any) -> Any:
            if request.url.path.endswith("/chat/completions"):
                self.requests.append(json.loads(await request.body()))
            return await call_next(request)

        super().__init__(app)


@pytest.fixture(scope="module")
def simulator_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with mock_simulator(tmp_path_factory.mktemp("results")) as service:
        yield service.url


def agent_for(simulator_url: str, **settings: Any) -> AspenLitAgent:
    return AspenLitAgent(Settings(_env_file=None, aspen_simulator_url=simulator_url, **settings))


@pytest.mark.slow  # end-to-end, seconds: run by .ci/run, left out of -m "not slow"
async def test_prompt_template_reaches_the_model_and_a_clean_run_scores_one(simulator_url: str) -> None:
    policy = CapturingPolicy()
    resources = {
        "main_llm": LLM(endpoint=policy.url, model="m"),
        "system_prompt": PromptTemplate(template="CUSTOM {braces} PROMPT", engine="f-string"),
    }
    record = await agent_for(simulator_url).run_episode(TASK, resources, None)
    assert record.status == "ok", record.error
    assert [c.name for c in record.tool_calls] == ["get_schema", "run_simulation", "get_result"]
    assert record.reward.total == pytest.approx(1.0)
    assert len(policy.requests) == 4  # three tool calls, then the answer
    assert all(
        r["messages"][0] == {"role": "system", "content": "CUSTOM {braces} PROMPT"} for r in policy.requests
    )
    assert policy.requests[0]["messages"][1]["content"] == TASK.user_requirement
    assert record.timing.llm_calls == 4 and record.timing.llm_s > 0


async def test_wall_time_cap_ends_the_rollout_with_reward_zero(simulator_url: str) -> None:
    policy = CapturingPolicy(latency_s=0.5)
    agent = agent_for(simulator_url, rollout_timeout_s=0.2)
    record = await agent.run_episode(TASK, {"main_llm": LLM(endpoint=policy.url, model="m")}, None)
    assert record.status == "timeout"
    assert record.reward.total == 0.0
    assert "wall-time cap of 0.2 s" in (record.error or "")


async def test_no_model_anywhere_is_an_error_record_not_an_exception(simulator_url: str) -> None:
    record = await agent_for(simulator_url).run_episode(TASK, {}, None)
    assert record.status == "error"
    assert "MODEL_API_URL is not set" in (record.error or "")


def test_model_resolution_order() -> None:
    settings = Settings(
        _env_file=None, model="from-settings", model_api_url="http://settings/v1", model_api_key="k"
    )
    rollout = SimpleNamespace(rollout_id="ro-1", attempt=SimpleNamespace(attempt_id="at-1"))
    proxy = ProxyLLM(
        endpoint="http://proxy:1/v1", model="p", sampling_parameters={"temperature": 0.2, "n": 3}
    )
    target = resolve_llm({"llm": proxy}, rollout, settings)
    assert target.base_url == "http://proxy:1/rollout/ro-1/attempt/at-1/v1"
    assert target.sampling == {"temperature": 0.2}  # only forwarded sampling keys
    assert target.api_key == "k"  # the key comes from settings, never from the resource
    fallback = resolve_llm({}, rollout, settings)
    assert (fallback.base_url, fallback.model) == ("http://settings/v1", "from-settings")


def test_the_rollouts_own_seed_wins_over_a_resources_seed() -> None:
    """A resource seed is shared by every rollout: a group would sample one episode G times."""
    settings = Settings(_env_file=None, model_api_url="http://settings/v1")
    proxy = ProxyLLM(endpoint="http://proxy:1/v1", model="p", sampling_parameters={"seed": 1, "top_p": 0.9})
    attempt = SimpleNamespace(attempt_id="at-1")
    seeded = SimpleNamespace(rollout_id="ro-1", attempt=attempt, metadata={SEED_METADATA_KEY: 42})
    plain = SimpleNamespace(rollout_id="ro-2", attempt=attempt, metadata=None)
    assert resolve_llm({"llm": proxy}, seeded, settings).sampling == {"seed": 42, "top_p": 0.9}
    assert resolve_llm({"llm": proxy}, plain, settings).sampling == {"seed": 1, "top_p": 0.9}
    assert resolve_llm({}, seeded, settings).sampling == {"seed": 42}
    assert resolve_llm({}, plain, settings).sampling == {}

"""Failures carry a type decided where the exception is known; infrastructure failures never become reward.

A fault-injecting proxy stands in front of the real mock (in this process): each fault an operator's bad day
brings (busy past the retries, an HTML 500, a crashed engine worker, a refused token) must end the rollout as
the infrastructure's, left out of GRPO's groups and of every mean; the policy's own mistakes stay scored.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import uvicorn
from _support import free_port, in_process_transport, serve_in_thread
from agentlightning import LLM
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from aspen_rl.agent import AspenLitAgent
from aspen_rl.agent.failures import rollout_failure
from aspen_rl.algorithms.grpo.failures import split_for_update
from aspen_rl.algorithms.grpo.metrics import record_metrics
from aspen_rl.algorithms.prompt_opt.search import Evaluation
from aspen_rl.failures import FailureKind, Fault, infrastructure_verdict
from aspen_rl.policy.openai_app import create_policy_app
from aspen_rl.policy.scripted import ScriptedPolicy
from aspen_rl.records import RolloutRecord
from aspen_rl.reporting.summary import stats
from aspen_rl.reward.base import RewardBreakdown
from aspen_rl.settings import Settings
from aspen_rl.simulator import SimulatorClient, SimulatorHTTPError
from aspen_rl.simulator.errors import run_failure_kind
from aspen_rl.tasks import load_split
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

TASK = load_split("train")[0]

CRASHED = {
    "success": False,
    "error_type": "模拟运行过程失败",
    "error_code": "InternalError",
    "error_message": "InternalError: engine worker crashed",
}

FAULTS: dict[str, Response] = {
    "busy": JSONResponse({"error": "service busy: all workers taken", "retry": True}, status_code=503),
    "html_500": Response("<html><body>Internal Server Error</body></html>", 500, media_type="text/html"),
    "plain_500": Response("Internal Server Error", 500, media_type="text/plain"),
    "crashed": JSONResponse(CRASHED, status_code=201),
    "auth": JSONResponse({"error": "missing or wrong X-Aspen-Token header"}, status_code=401),
}
EXPECTED = {
    "busy": FailureKind.BUSY,
    "html_500": FailureKind.SERVER_ERROR,
    "plain_500": FailureKind.SERVER_ERROR,
    "crashed": FailureKind.CRASHED,
    "auth": FailureKind.AUTH,
}


class FaultProxy:
    """The mock behind a proxy that answers ``/run-aspen-simulation`` with a fault ``times`` times."""

    def __init__(self, results: Path) -> None:
        self.fault: str | None = None
        self.times = 10**9
        self.hits = 0
        mock = httpx.AsyncClient(transport=in_process_transport(results), base_url="http://mock")
        app = FastAPI()

        @app.api_route("/{path:path}", methods=["GET", "POST"])
        async def forward(path: str, request: Request) -> Response:
            if path == "run-aspen-simulation" and self.fault is not None:
                self.hits += 1
                if self.hits <= self.times:
                    return FAULTS[self.fault]
            answer = await mock.request(
                request.method, "/" + path, params=request.query_params, content=await request.body()
            )
            return Response(answer.content, answer.status_code, media_type="application/json")

        self.app = app


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FaultProxy, str]]:
    faults = FaultProxy(tmp_path_factory.mktemp("results"))
    with serve_in_thread(faults.app, lifespan="off") as port:
        yield faults, f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def policy_url() -> Iterator[str]:
    app = create_policy_app(ScriptedPolicy([TASK], error_rate=0.0))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}/v1"
    server.should_exit = True
    thread.join(10)


def agent(simulator_url: str) -> AspenLitAgent:
    settings = Settings(
        _env_file=None,
        aspen_simulator_url=simulator_url,
        simulator_retries=1,
        simulator_backoff_s=0.01,
        simulator_busy_wait_s=0.3,
    )
    return AspenLitAgent(settings)


def scored(rollout_id: str, total: float) -> RolloutRecord:
    return RolloutRecord(
        rollout_id=rollout_id, task_id=TASK.task_id, reward=RewardBreakdown(total=total, completion=total)
    )


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_infrastructure_fault_is_typed_left_out_and_counted(
    proxy: tuple[FaultProxy, str], policy_url: str, fault: str
) -> None:
    faults, url = proxy
    faults.fault, faults.hits, faults.times = fault, 0, 10**9
    try:
        record = await agent(url).run_episode(TASK, {"main_llm": LLM(endpoint=policy_url, model="m")}, None)
    finally:
        faults.fault = None
    assert record.status == "error"
    assert record.failure is EXPECTED[fault]
    assert record.fault is Fault.INFRASTRUCTURE
    assert record.reward.total == 0.0  # no reward was computed from a broken service
    run_calls = [c for c in record.tool_calls if c.name == "run_simulation"]
    assert run_calls and run_calls[0].failure is EXPECTED[fault]

    batch = [scored("good", 0.9), record, scored("fair", 0.5)]
    kept, left_out = split_for_update(batch)  # GRPO's group keeps the two scored rollouts only
    assert [r.rollout_id for r, _ in kept] == ["good", "fair"] and left_out == [record]
    metrics = record_metrics(batch)
    assert metrics["reward_mean"] == pytest.approx(0.7) and metrics["failed_rollouts"] == 1.0
    summary = stats(batch)  # the baseline's and the report's means
    assert summary["total"]["mean"] == pytest.approx(0.7)
    assert (summary["count"], summary["infrastructure_failures"]) == (3, 1)
    evaluation = Evaluation.from_records("train", batch)  # prompt optimisation's candidate score
    assert evaluation.score == pytest.approx(0.7) and evaluation.infrastructure_failures == 1


async def test_busy_service_is_waited_for_past_the_plain_retries(
    proxy: tuple[FaultProxy, str], policy_url: str
) -> None:
    faults, url = proxy
    faults.fault, faults.hits, faults.times = "busy", 0, 6  # busy six times, then the run goes through
    try:
        async with SimulatorClient(url, retries=2, backoff_s=0.01, busy_wait_s=20.0) as client:
            answer = await client.run_simulation(copy.deepcopy(TASK.reference_config))
    finally:
        faults.fault = None
    assert answer["success"] is True
    assert faults.hits == 7


async def test_busy_past_the_wait_is_the_infrastructures_busy(proxy: tuple[FaultProxy, str]) -> None:
    faults, url = proxy
    faults.fault, faults.hits, faults.times = "busy", 0, 10**9
    try:
        async with SimulatorClient(url, retries=0, backoff_s=0.01, busy_wait_s=0.5) as client:
            with pytest.raises(SimulatorHTTPError) as info:
                await client.run_simulation({"blocks": []})
    finally:
        faults.fault = None
    assert info.value.kind is FailureKind.BUSY
    assert faults.hits > 1  # retried although the plain retries were 0


async def test_policy_mistakes_stay_the_policys(proxy: tuple[FaultProxy, str]) -> None:
    _, url = proxy
    config = copy.deepcopy(TASK.reference_config)
    stream = next(iter(config["stream_data"]))
    config["stream_data"][stream]["temperature"]["TEMP_UNITS"] = "centigrade"
    async with SimulatorClient(url, retries=0) as client:
        trace = RunTrace()
        _, run_simulation, get_result = build_tools(client, trace)
        await run_simulation('{"blocks": [}')
        await run_simulation(json.dumps(config))
        await get_result("no_such_result.xlsx")
        await get_result("C:/results/" + "x" * 100_000 + ".xlsx")  # past what a URL carries
        await run_simulation('{"T": 1' + "0" * 5000 + "}")  # past Python's integer digits
    assert [c.failure for c in trace.calls] == [
        FailureKind.BAD_CALL,
        FailureKind.BAD_CONFIG,
        FailureKind.BAD_CALL,
        FailureKind.BAD_CALL,
        FailureKind.BAD_CALL,
    ]
    assert all(c.failure is not None and c.failure.fault is Fault.POLICY for c in trace.calls)
    assert trace.infrastructure_failure is None


def test_run_answers_are_typed_by_their_code() -> None:
    assert run_failure_kind({"success": True}) is None
    assert run_failure_kind(CRASHED) is FailureKind.CRASHED
    timeout = {"success": False, "error_code": "Timeout", "error_message": "Timeout: time limit"}
    assert run_failure_kind(timeout) is FailureKind.RUN_TIMEOUT
    real = {"success": False, "error_type": "模拟运行过程发生错误", "error_message": "**  ERROR"}
    assert run_failure_kind(real) is FailureKind.BAD_CONFIG


def _status_error(cls: type[openai.APIStatusError], status: int, body: Any = None) -> openai.APIStatusError:
    request = httpx.Request("POST", "http://model/v1/chat/completions")
    return cls("refused", response=httpx.Response(status, request=request), body=body)


def test_model_endpoint_exceptions_are_typed() -> None:
    request = httpx.Request("POST", "http://model/v1/chat/completions")
    assert rollout_failure(openai.APIConnectionError(request=request)) is FailureKind.MODEL_UNAVAILABLE
    assert rollout_failure(openai.APITimeoutError(request=request)) is FailureKind.MODEL_UNAVAILABLE
    assert rollout_failure(_status_error(openai.InternalServerError, 500)) is FailureKind.MODEL_UNAVAILABLE
    assert rollout_failure(_status_error(openai.RateLimitError, 429)) is FailureKind.MODEL_UNAVAILABLE
    assert rollout_failure(_status_error(openai.AuthenticationError, 401)) is FailureKind.AUTH
    too_long = _status_error(openai.BadRequestError, 400, {"code": "context_length_exceeded"})
    assert rollout_failure(too_long) is FailureKind.PROMPT_TOO_LONG
    assert rollout_failure(_status_error(openai.BadRequestError, 400)) is FailureKind.MODEL_OUTPUT
    try:  # wrapped by the agent framework: the cause decides
        try:
            raise openai.APIConnectionError(request=request)
        except openai.APIConnectionError as exc:
            raise RuntimeError("the model client failed") from exc
    except RuntimeError as wrapped:
        assert rollout_failure(wrapped) is FailureKind.MODEL_UNAVAILABLE
    assert rollout_failure(ValueError("unreadable tool call")) is FailureKind.MODEL_OUTPUT


def test_a_run_past_the_share_of_infrastructure_failures_fails() -> None:
    healthy = [None] * 4
    dead = [FailureKind.MODEL_UNAVAILABLE] * 26
    verdict = infrastructure_verdict([*healthy, *dead], 0.2)
    assert verdict is not None and "26 of 30 rollouts" in verdict and "26 model_unavailable" in verdict
    assert infrastructure_verdict([*[None] * 8, *[FailureKind.BUSY] * 2], 0.2) is None  # 20 %: allowed
    policy = [FailureKind.BAD_CONFIG] * 30  # the policy's own failures never trip it
    assert infrastructure_verdict(policy, 0.2) is None


def test_prompt_optimisation_never_learns_from_infrastructure_failures() -> None:
    from aspen_rl.algorithms.prompt_opt.critic import worst_rollouts
    from aspen_rl.algorithms.prompt_opt.edits import symptom_counts

    down = RolloutRecord(
        rollout_id="down", task_id=TASK.task_id, status="error", failure=FailureKind.UNREACHABLE
    )
    records = [scored("fair", 0.5), down, scored("good", 0.9)]
    assert [r.rollout_id for r in worst_rollouts(records, 2)] == ["fair", "good"]
    assert symptom_counts([down]) == symptom_counts([])

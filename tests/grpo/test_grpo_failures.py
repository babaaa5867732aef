"""Policy failures score 0 and stay in their group; infrastructure failures are left out and counted."""

from __future__ import annotations

from typing import Any

import openai
import pytest
import torch

from aspen_rl.agent.failures import rollout_failure
from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.algorithms.grpo.failures import failure_kind, split_for_update
from aspen_rl.algorithms.grpo.groups import FinishedRollout, group_samples
from aspen_rl.algorithms.grpo.metrics import record_metrics
from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
from aspen_rl.failures import FailureKind
from aspen_rl.llm.chat_server import ChatCompletionServer
from aspen_rl.llm.engine import TransformersEngine
from aspen_rl.llm.types import SamplingParams
from aspen_rl.records import RolloutRecord
from aspen_rl.reward.base import RewardBreakdown

LIMIT = 120
"""The endpoint's max_prompt_tokens in these tests (the tiny tokenizer is byte-level)."""


def record(
    rollout_id: str,
    status: str = "ok",
    error: str | None = None,
    total: float = 0.0,
    failure: FailureKind | None = None,
) -> RolloutRecord:
    reward = RewardBreakdown(total=total, completion=total) if status == "ok" else RewardBreakdown(total=0.0)
    return RolloutRecord(
        rollout_id=rollout_id,
        task_id="t",
        status=status,  # type: ignore[arg-type]
        error=error,
        failure=failure,
        reward=reward,
    )


@pytest.mark.parametrize(
    ("status", "failure", "fault"),
    [
        ("ok", None, None),
        ("timeout", FailureKind.ROLLOUT_TIMEOUT, "policy"),
        ("error", FailureKind.PROMPT_TOO_LONG, "policy"),
        ("error", FailureKind.MODEL_OUTPUT, "policy"),
        ("error", FailureKind.UNREACHABLE, "infrastructure"),
        ("error", FailureKind.BUSY, "infrastructure"),
        ("error", FailureKind.CRASHED, "infrastructure"),
        ("error", FailureKind.SERVER_ERROR, "infrastructure"),
        ("error", FailureKind.REWARD_CRASHED, "infrastructure"),
        ("error", FailureKind.MODEL_UNAVAILABLE, "infrastructure"),
        ("lost", FailureKind.LOST, "infrastructure"),
        ("lost", None, "infrastructure"),  # a record written before failures were typed
        ("error", None, "policy"),
    ],
)
def test_failure_kinds(status: str, failure: FailureKind | None, fault: str | None) -> None:
    assert failure_kind(record("r", status, failure=failure)) == fault


def test_the_message_text_decides_nothing() -> None:
    """A policy failure whose text names an infrastructure exception stays the policy's, and vice versa."""
    mimic = record("r", "error", "SimulatorUnavailable: I made this up", failure=FailureKind.MODEL_OUTPUT)
    assert failure_kind(mimic) == "policy"
    plain = record("r", "error", "something broke", failure=FailureKind.CRASHED)
    assert failure_kind(plain) == "infrastructure"


def test_over_long_prompt_scores_zero_in_the_batch_and_simulator_down_is_left_out(
    chat_model: torch.nn.Module, tokenizer: Any, cpu_config: GRPOConfig
) -> None:
    engine = TransformersEngine(chat_model, tokenizer)
    server = ChatCompletionServer(
        engine, tokenizer, sampling=SamplingParams(max_tokens=4, temperature=1.0), max_prompt_tokens=LIMIT
    )
    server.start()
    errors: dict[str, openai.BadRequestError] = {}
    try:

        def converse(rollout_id: str, second_message: str) -> None:
            base_url = f"{server.base_url}/rollout/{rollout_id}/attempt/a1/v1"
            client = openai.OpenAI(base_url=base_url, api_key="-", max_retries=0)
            messages: list[Any] = [{"role": "user", "content": "Heat water."}]
            try:
                reply = client.chat.completions.create(model="m", messages=messages)
                messages += [
                    {"role": "assistant", "content": reply.choices[0].message.content or ""},
                    {"role": "user", "content": second_message},
                ]
                client.chat.completions.create(model="m", messages=messages)
            except openai.BadRequestError as exc:  # what the agent types its failure from
                errors[rollout_id] = exc
            finally:
                client.close()

        for rollout_id in ("r-good", "r-fair", "r-down"):
            converse(rollout_id, "fine")
        converse("r-long", "x" * (2 * LIMIT))  # the second call's prompt is over the limit
    finally:
        server.stop()
    assert set(errors) == {"r-long"}
    assert rollout_failure(errors["r-long"]) is FailureKind.PROMPT_TOO_LONG  # typed from the endpoint's code

    records = [
        record("r-good", total=0.9),
        record("r-long", "error", str(errors["r-long"]), failure=rollout_failure(errors["r-long"])),
        record("r-fair", total=0.5),
        record("r-down", "error", "the simulator did not answer", failure=FailureKind.UNREACHABLE),
    ]
    kept, left_out = split_for_update(records)
    assert [r.rollout_id for r, _ in kept] == ["r-good", "r-long", "r-fair"]
    assert [reward for _, reward in kept] == [0.9, 0.0, 0.5]
    assert [r.rollout_id for r in left_out] == ["r-down"]
    metrics = record_metrics(records)
    assert (metrics["failed_rollouts"], metrics["policy_failures"]) == (1.0, 1.0)

    finished = [FinishedRollout(r.task_id, r.rollout_id, reward, "a1") for r, reward in kept]
    groups = group_samples(server.recorder, finished)
    assert len(groups) == 1 and [s.meta["rollout_id"] for s in groups[0]] == ["r-good", "r-long", "r-fair"]
    long_sample = groups[0][1]
    assert (
        long_sample.meta["calls"] == 1 and long_sample.rows[0].num_loss_tokens > 0
    )  # the call before the 400

    trainer = GRPOTrainer(cpu_config, model=chat_model, tokenizer=tokenizer)
    items, _ = trainer._schedule(groups)
    by_rollout = {it.rollout: it.advantage for it in items}
    assert set(by_rollout) == {0, 1, 2}  # all three rollouts, the over-long one included, are trained on
    assert by_rollout[1] < 0 < by_rollout[0] and by_rollout[2] > by_rollout[1]
    step = trainer.step(groups)
    assert step["rollouts"] == 3 and step["tokens"] == sum(
        r.num_loss_tokens for s in groups[0] for r in s.rows
    )

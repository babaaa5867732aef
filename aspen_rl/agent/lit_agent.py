"""``AspenLitAgent``: the chemistry-expert AutoGen agent as an Agent Lightning ``LitAgent``."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Literal

from agentlightning import LitAgent, emit_object, emit_reward

from aspen_rl.agent.attempts import record_attempts
from aspen_rl.agent.context import SchemaClearingContext
from aspen_rl.agent.failures import rollout_failure
from aspen_rl.agent.model_client import build_model_client, resolve_llm
from aspen_rl.agent.prompts import system_prompt_from
from aspen_rl.failures import FailureKind
from aspen_rl.records import RolloutRecord, RolloutTiming, ToolCallSummary
from aspen_rl.reward import AspenReward, RewardFn, load_reward_fn
from aspen_rl.reward.base import RewardBreakdown
from aspen_rl.settings import Settings
from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.tasks import AspenTask
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

logger = logging.getLogger(__name__)

AGENT_NAME = "chemistry_expert"
ARGUMENTS_SHOWN = 2000
ANSWER_KEPT = 4000


class AspenLitAgent(LitAgent[AspenTask]):
    """Runs one chemistry-expert conversation per rollout and scores it.

    Per rollout: a fresh AutoGen ``AssistantAgent`` (one instance per conversation, never shared)
    with the three simulator tools; the system prompt from a ``PromptTemplate`` resource, else the
    shipped default; the model from the rollout's ``LLM`` resource, else settings. The reward
    breakdown is emitted with ``emit_reward`` (total first, then the three dimensions), the
    rollout's record with ``emit_object``, and the total is returned. Nothing raised inside a rollout
    escapes it: errors end the rollout with reward 0, the reason recorded and the failure typed
    (:class:`~aspen_rl.failures.FailureKind`). A rollout whose tool call the infrastructure failed (the
    simulator down, busy, crashed) ends ``error`` with that failure and is not scored.

    Args:
        settings: Endpoints, timeouts, caps and reward weights.
        reward_fn: Scores each rollout (``reward_fn(task, trace) -> RewardBreakdown``); default the
            one ``settings.reward_fn`` names, else the shipped :class:`~aspen_rl.reward.AspenReward`
            with the weights of ``settings.reward``.
    """

    def __init__(self, settings: Settings, reward_fn: RewardFn | None = None) -> None:
        super().__init__()
        self.settings = settings
        if reward_fn is None:
            named = settings.reward_fn
            reward_fn = load_reward_fn(named) if named else AspenReward(settings.reward)
        self.reward_fn: RewardFn = reward_fn

    async def rollout_async(self, task: AspenTask | dict[str, Any], resources: Any, rollout: Any) -> float:
        """Run one rollout; returns the total reward."""
        record = await self.run_episode(task, resources, rollout)
        emit_object(record.model_dump(mode="json"))
        scores = record.reward.model_dump(exclude={"details"})
        emit_reward(scores, primary_key="total")
        return record.reward.total

    async def run_episode(
        self, task: AspenTask | dict[str, Any], resources: Any, rollout: Any
    ) -> RolloutRecord:
        """Run the conversation and score it, without emitting anything (usable outside a runner)."""
        task = task if isinstance(task, AspenTask) else AspenTask.model_validate(task)
        trace = RunTrace()
        status: Literal["ok", "error", "timeout", "lost"] = "ok"
        failure: FailureKind | None = None
        llm_s, llm_calls = 0.0, 0
        start = time.perf_counter()
        model_client = None
        target = None
        try:
            try:
                target = resolve_llm(resources or {}, rollout, self.settings)
            except ValueError:  # the run published no endpoint: not the policy's doing
                failure = FailureKind.NOT_CONFIGURED
                raise
            model_client = build_model_client(target, self.settings)
            async with asyncio.timeout(self.settings.rollout_timeout_s):
                trace.final_answer = await self._converse(task, resources or {}, model_client, trace)
        except TimeoutError:
            status, failure = "timeout", FailureKind.ROLLOUT_TIMEOUT
            trace.error = f"rollout exceeded its wall-time cap of {self.settings.rollout_timeout_s:g} s"
        except Exception as exc:  # a rollout must never take its runner down
            status, failure = "error", failure or rollout_failure(exc)
            where = f" (model endpoint {target.base_url})" if target is not None else ""
            trace.error = f"{type(exc).__name__}: {exc}{where}"
            logger.warning("rollout of task %s failed (%s): %s", task.task_id, failure, trace.error)
        finally:
            if model_client is not None:
                llm_s, llm_calls = model_client.elapsed_s, model_client.n_calls
                await model_client.close()
        broken = trace.infrastructure_failure  # it disturbed the rollout: whatever followed says nothing
        if broken is not None and (failure is None or not failure.is_infrastructure):
            status, failure, trace.error = "error", broken.failure, broken.error
        reward = RewardBreakdown(total=0.0)
        if status == "ok":
            try:
                reward = RewardBreakdown.model_validate(self.reward_fn(task, trace).model_dump())
            except Exception as exc:  # an odd simulator answer must not escape the rollout either
                status, failure = "error", FailureKind.REWARD_CRASHED
                trace.error = f"reward computation failed: {type(exc).__name__}: {exc}"
        return RolloutRecord(
            rollout_id=getattr(rollout, "rollout_id", "") or "",
            task_id=task.task_id,
            split=task.split or getattr(rollout, "mode", None) or "train",
            difficulty=str(task.difficulty),
            status=status,
            error=trace.error,
            failure=failure,
            reward=reward,
            tool_calls=[
                ToolCallSummary(
                    name=c.name,
                    ok=c.ok,
                    error=c.error,
                    failure=c.failure,
                    latency_s=c.latency_s,
                    arguments=json.dumps(c.arguments, ensure_ascii=False)[:ARGUMENTS_SHOWN],
                )
                for c in trace.calls
            ],
            final_answer=trace.final_answer[:ANSWER_KEPT],
            timing=RolloutTiming(
                wall_s=time.perf_counter() - start,
                llm_s=llm_s,
                simulator_s=sum(c.latency_s for c in trace.calls),
                llm_calls=llm_calls,
            ),
            resources_id=getattr(rollout, "resources_id", None),
        )

    async def _converse(self, task: AspenTask, resources: Any, model_client: Any, trace: RunTrace) -> str:
        """One AutoGen conversation; returns the final answer text."""
        from autogen_agentchat.agents import AssistantAgent

        async with SimulatorClient.from_settings(self.settings) as client:
            agent = AssistantAgent(
                AGENT_NAME,
                model_client=model_client,
                tools=[*build_tools(client, trace, schema_max_chars=self.settings.schema_max_chars)],
                system_message=system_prompt_from(resources),
                reflect_on_tool_use=True,
                max_tool_iterations=self.settings.max_tool_iterations,
                model_context=SchemaClearingContext() if self.settings.clear_schema_after_run else None,
            )
            result = await agent.run(task=task.user_requirement)
        record_attempts(result.messages, trace)  # calls AutoGen refused (bad tool name or arguments)
        return _final_text(result.messages)


def _final_text(messages: Any) -> str:
    """The last text the agent said (tool-call events and summaries are not an answer)."""
    from autogen_agentchat.messages import TextMessage

    for message in reversed(messages):
        if isinstance(message, TextMessage) and message.source == AGENT_NAME:
            return message.content
    return ""

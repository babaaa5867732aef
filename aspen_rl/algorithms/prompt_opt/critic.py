"""Textual gradient: an LLM critiques a prompt's worst rollouts, a second call applies the critique.

Per parent and round: one critique call sees the prompt and its ``sample_size`` lowest-reward train
rollouts (requirement, tool calls with arguments and simulator errors, reward breakdown, answer);
then one edit call per child rewrites the prompt from the critique (child ``i`` is asked to put
critique point ``i + 1`` first, for diversity). Any failure of the endpoint (timeout, 429/5xx after
the client's bounded retries, an empty or oversized answer) makes :class:`CriticProposer` warn and use
the offline edit operators for the rest of that round; the search never stops for it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from aspen_rl.algorithms.prompt_opt.edits import EditProposer
from aspen_rl.algorithms.prompt_opt.search import Candidate, Proposal
from aspen_rl.records import RolloutRecord

logger = logging.getLogger(__name__)

CRITIQUE_INSTRUCTIONS = """\
You review the system prompt of a chemical-process agent. The agent drives an Aspen Plus simulation \
service through three tools: get_schema (JSON Schema of the flowsheet configuration), run_simulation \
(runs a configuration) and get_result (reads a run's results). Each rollout is scored in [0, 1] on \
completion (a schema-valid configuration ran and met the task's targets), tool efficiency (schema -> \
simulate -> result, no failed, redundant or excess calls) and response quality (the requested \
quantities with the simulator's values and units, readable, no invented numbers).

You get the current system prompt and its lowest-reward rollouts. Write a brief critique: 3 to 5 \
numbered points, each a concrete, testable change to the prompt that would have prevented a failure \
you can see in the rollouts (ordering, constraints, formats, definitions). Do not rewrite the prompt."""

EDIT_INSTRUCTIONS = """\
Revise the system prompt of the chemical-process agent using the critique. Keep what already works, \
keep it concise, keep it a system prompt for the same agent and the same three tools. Return only the \
complete revised prompt: no explanations, no headings about the revision, no code fences."""

TOOL_ARGUMENTS_SHOWN = 400
ANSWER_SHOWN = 800
REQUIREMENT_SHOWN = 600


class CriticError(Exception):
    """The critic's endpoint failed or answered something unusable."""


def worst_rollouts(records: Sequence[RolloutRecord], k: int) -> list[RolloutRecord]:
    """The ``k`` lowest-reward records (more tool calls first on equal reward; stable otherwise).

    Rollouts the infrastructure failed are no evidence about the prompt: they are never shown to the critic.
    """
    judged = [r for r in records if not r.infrastructure_failed]
    return sorted(judged, key=lambda r: (r.reward.total, -len(r.tool_calls)))[:k]


def format_rollouts(records: Sequence[RolloutRecord], requirements: Mapping[str, str]) -> str:
    """Plain-text account of rollouts for the critique call."""
    blocks = []
    for i, r in enumerate(records, start=1):
        s = r.reward
        lines = [
            f"## Rollout {i}: task {r.task_id} ({r.difficulty or 'unknown'}), status {r.status}",
            f"Reward: total {s.total:.3f} = completion {s.completion:.2f}, tool efficiency "
            f"{s.tool_efficiency:.2f}, response quality {s.response_quality:.2f}",
        ]
        if r.task_id in requirements:
            lines.append(f"Requirement: {_cut(requirements[r.task_id], REQUIREMENT_SHOWN)}")
        lines.append("Tool calls:" if r.tool_calls else "Tool calls: none")
        for n, call in enumerate(r.tool_calls, start=1):
            outcome = "ok" if call.ok else f"ERROR: {call.error}"
            lines.append(f"  {n}. {call.name}({_cut(call.arguments, TOOL_ARGUMENTS_SHOWN)}) -> {outcome}")
        if r.error:
            lines.append(f"Rollout error: {r.error}")
        lines.append(f"Final answer: {_cut(r.final_answer, ANSWER_SHOWN) or '(none)'}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def clean_prompt(text: str | None, max_chars: int) -> str:
    """The prompt in a model's answer (code fences removed); raises :class:`CriticError` if unusable."""
    text = (text or "").strip()
    fenced = re.fullmatch(r"```[\w-]*\n(.*?)\n?```", text, flags=re.DOTALL)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        raise CriticError("the edit call answered an empty prompt")
    if len(text) > max_chars:
        raise CriticError(f"the edited prompt has {len(text)} characters (limit {max_chars})")
    return text + "\n"


class PromptCritic:
    """The two LLM calls of a textual gradient, over an OpenAI-compatible endpoint.

    Args:
        base_url: OpenAI-compatible base URL (e.g. ``https://api.deepseek.com/v1``).
        api_key: Key of the endpoint (never logged), or ``None`` for endpoints without one.
        model: Model of both calls.
        temperature: Sampling temperature of both calls.
        timeout_s: Timeout of one request.
        retries: Extra attempts on 429/5xx/timeouts, with the SDK's exponential backoff.
        max_prompt_chars: Longest edited prompt accepted.
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        model: str,
        temperature: float = 0.7,
        timeout_s: float = 60.0,
        retries: int = 2,
        max_prompt_chars: int = 12000,
    ) -> None:
        from openai import AsyncOpenAI

        self.model = model
        self.temperature = temperature
        self.max_prompt_chars = max_prompt_chars
        self._secret = api_key or ""
        self._client = AsyncOpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=retries
        )

    async def critique(self, prompt: str, rollouts: str) -> str:
        """The critique of ``prompt`` given the text of its worst rollouts."""
        user = f"# Current system prompt\n\n{prompt}\n\n# Lowest-reward rollouts\n\n{rollouts}"
        text = (await self._chat(CRITIQUE_INSTRUCTIONS, user)).strip()
        if not text:
            raise CriticError("the critique call answered nothing")
        return text

    async def edit(self, prompt: str, critique: str, *, focus: int | None = None) -> str:
        """``prompt`` rewritten from ``critique`` (``focus``: the critique point to put first)."""
        user = f"# Current system prompt\n\n{prompt}\n\n# Critique\n\n{critique}"
        if focus is not None:
            user += f"\n\nAddress point {focus} of the critique first (or the most important one)."
        return clean_prompt(await self._chat(EDIT_INSTRUCTIONS, user), self.max_prompt_chars)

    async def close(self) -> None:
        """Close the HTTP client."""
        await self._client.close()

    async def _chat(self, system: str, user: str) -> str:
        from openai import OpenAIError

        try:
            response = await self._client.chat.completions.create(
                model=self.model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=self.temperature,
            )
        except OpenAIError as exc:
            message = f"{type(exc).__name__}: {exc}"
            if self._secret:
                message = message.replace(self._secret, "***")  # the key never reaches a log
            raise CriticError(message) from None
        if not response.choices:
            raise CriticError("the endpoint answered no choices")
        return response.choices[0].message.content or ""


class CriticProposer:
    """Children from the LLM critic; the offline operators for the rest of a round once it fails.

    Args:
        critic: The LLM critic.
        fallback: Offline operators used when the critic fails.
        requirements: Task requirement text by task id (shown to the critic).
        sample_size: Lowest-reward train rollouts of the parent shown to the critic.
    """

    def __init__(
        self,
        critic: PromptCritic,
        fallback: EditProposer,
        requirements: Mapping[str, str],
        *,
        sample_size: int = 3,
    ) -> None:
        self.critic = critic
        self.fallback = fallback
        self.requirements = dict(requirements)
        self.sample_size = sample_size
        self.failed_rounds: set[int] = set()

    @property
    def name(self) -> str:
        """How candidates are made (for reports)."""
        return f"LLM critic ({self.critic.model}), offline operators as fallback"

    async def __call__(self, parent: Candidate, n: int, round: int, known: set[str]) -> list[Proposal]:
        """Up to ``n`` critic edits of ``parent`` (offline edits after a failure in this round)."""
        if round in self.failed_rounds:
            return self.fallback.propose(parent, n, round, known)
        proposals: list[Proposal] = []
        try:
            records = parent.train.records if parent.train else []
            rollouts = format_rollouts(worst_rollouts(records, self.sample_size), self.requirements)
            critique = await self.critic.critique(parent.prompt, rollouts)
            logger.info("critique of %s (round %d):\n%s", parent.id, round, critique)
            for i in range(n):
                edited = await self.critic.edit(parent.prompt, critique, focus=i + 1 if n > 1 else None)
                if edited in known or any(p.prompt == edited for p in proposals):
                    logger.info("critic edit %d of %s repeats a known prompt; dropped", i + 1, parent.id)
                    continue
                proposals.append(Proposal(edited, "critic", "critic", critique))
        except Exception as exc:  # the search must survive any failure of the endpoint
            self.failed_rounds.add(round)
            logger.warning(
                "prompt critic failed in round %d (%s); using the offline edit operators for the rest "
                "of this round",
                round,
                _describe(exc),
            )
            taken = known | {p.prompt for p in proposals}
            proposals += self.fallback.propose(parent, n - len(proposals), round, taken)
        return proposals


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return text if isinstance(exc, CriticError) else f"{type(exc).__name__}: {text}"


def _cut(text: Any, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "...(truncated)"

"""Transcripts to training rows: the chat template renders each assistant turn; GRPO's row builder masks.

Every assistant turn becomes a call record as the GRPO endpoint would have recorded it (prompt = the
conversation so far through the chat template with the generation prompt; completion = the template's
rendering of that turn up to and including its end-of-turn token), and :func:`build_rows` merges the turns
of one transcript by exact token prefix: assistant tokens get loss mask 1, everything else (system, user,
tool answers, template glue) 0. These are the masks GRPO trains with.

Each turn's prompt is the conversation as the agent's model context shows it at that point
(:func:`aspen_rl.agent.context.openai_view`: the schema cleared and the config acknowledged once a run
succeeded), so SFT trains on exactly the contexts the agent sends; where the view changes,
the prefix breaks and the transcript gives more than one row, as GRPO's recorded calls do.

With a ``value_weight`` other than 1, each row carries ``loss_weights``: that weight on the tokens that spell
a tool call's argument values (:mod:`aspen_rl.algorithms.sft.value_tokens`), 1 on the other assistant tokens.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from aspen_rl.agent.context import openai_view
from aspen_rl.algorithms.sft.value_tokens import value_loss_weights
from aspen_rl.llm.chat_server import normalize_messages
from aspen_rl.llm.trajectory import build_rows
from aspen_rl.llm.types import CallRecord, TrajectoryRow


class TranscriptError(ValueError):
    """A transcript the chat template cannot render into prefix-consistent turns."""


def _render(
    tokenizer: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, *, gen: bool
) -> list[int]:
    text = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=gen, tokenize=False)
    return list(tokenizer.encode(text, add_special_tokens=False))


def assistant_records(
    transcript: dict[str, Any],
    tokenizer: Any,
    *,
    include_tools: bool = True,
    system_prompt: str | None = None,
    max_assistant_turns: int | None = None,
    agent_view: bool = True,
) -> list[CallRecord]:
    """One call record per assistant turn of an OpenAI-format transcript (``messages``, ``tools``).

    With ``agent_view`` each prompt is :func:`~aspen_rl.agent.context.openai_view` of the turns before it
    (what the agent shows the model); without it, every earlier message as recorded.

    Raises:
        TranscriptError: a turn's rendering does not extend the rendering of the conversation before it.
    """
    raw = list(transcript["messages"])  # tool-call arguments as JSON text, as the agent sends them
    if system_prompt is not None and raw and raw[0]["role"] == "system":
        raw[0] = {**raw[0], "content": system_prompt}
    tools = transcript.get("tools") if include_tools else None
    eos = tokenizer.eos_token_id
    records: list[CallRecord] = []
    for i, message in enumerate(raw):
        if message["role"] != "assistant":
            continue
        if max_assistant_turns is not None and len(records) >= max_assistant_turns:
            break
        shown = normalize_messages(openai_view(raw[:i]) if agent_view else raw[:i])
        prompt = _render(tokenizer, shown, tools, gen=True)
        full = _render(tokenizer, [*shown, *normalize_messages([message])], tools, gen=False)
        if full[: len(prompt)] != prompt:
            raise TranscriptError(
                f"transcript {transcript.get('task_id', '?')}: assistant turn {i} does not extend its prompt "
                "under this chat template"
            )
        completion = full[len(prompt) :]
        if eos in completion:  # the model stops at its end-of-turn token; the template's glue follows
            completion = completion[: completion.index(eos) + 1]
        records.append(
            CallRecord(
                rollout_id=str(transcript.get("task_id", "demo")),
                attempt_id=None,
                index=len(records),
                prompt_ids=prompt,
                completion_ids=completion,
                logprobs=[0.0] * len(completion),
                finish_reason="stop",
                started_at=0.0,
                finished_at=0.0,
            )
        )
    return records


def transcript_rows(
    transcripts: Iterable[dict[str, Any]],
    tokenizer: Any,
    *,
    include_tools: bool = True,
    system_prompt: str | None = None,
    max_assistant_turns: int | None = None,
    max_length: int | None = None,
    agent_view: bool = True,
    value_weight: float = 1.0,
) -> list[TrajectoryRow]:
    """Training rows of every transcript (usually one per transcript; more when the prefix breaks); with
    ``value_weight`` other than 1, with ``loss_weights`` that weigh tool-call values so."""
    rows: list[TrajectoryRow] = []
    for transcript in transcripts:
        records = assistant_records(
            transcript,
            tokenizer,
            include_tools=include_tools,
            system_prompt=system_prompt,
            max_assistant_turns=max_assistant_turns,
            agent_view=agent_view,
        )
        if records:
            rows.extend(build_rows(records, max_tokens=max_length).rows)
    rows = [r for r in rows if any(r.loss_mask)]
    if value_weight != 1.0:
        rows = [
            replace(r, loss_weights=value_loss_weights(r.input_ids, r.loss_mask, tokenizer, value_weight))
            for r in rows
        ]
    return rows

"""Drills: a demonstration cut to the turns that read the request or a tool's answer, short SFT rows.

A config's numbers and names are read from the request; in a whole transcript the tools block (before the
request) and the schema (between request and config) make the row ~7x longer than that reading needs. A
drill keeps the system prompt, the request and the first ``run_simulation`` turn, nothing else (no tools
block, no schema), so SFT sees many more requests per token. A drill is not a context the agent shows: it
is extra data beside the whole transcripts, never a replacement for them.

An episode drill keeps every turn from the config on (config, its answer, the ``get_result`` call, the
results, the final answer) after the system prompt and request, dropping only the tools block and the
``get_schema`` exchange: the result call copies the run's result path from the answer right before it, and
the final answer copies values from the results right before it, skills the config drill never trains.
"""

from __future__ import annotations

from typing import Any

from aspen_rl.trace import RUN_SIMULATION


def _first_run(messages: list[dict[str, Any]]) -> int | None:
    return next(
        (
            i
            for i, m in enumerate(messages)
            if m["role"] == "assistant"
            and any(c["function"]["name"] == RUN_SIMULATION for c in m.get("tool_calls") or [])
        ),
        None,
    )


def _drill(transcript: dict[str, Any], through_end: bool) -> dict[str, Any] | None:
    messages = transcript["messages"]
    head = [m for m in messages[:2] if m["role"] in ("system", "user")]
    run = _first_run(messages)
    if run is None or not head or head[-1]["role"] != "user":
        return None
    drill = {k: v for k, v in transcript.items() if k != "tools"}
    drill["messages"] = [*head, *(messages[run:] if through_end else [messages[run]])]
    return drill


def config_drill(transcript: dict[str, Any]) -> dict[str, Any] | None:
    """The transcript's system prompt, request and first ``run_simulation`` turn, without its ``tools``
    (so rendered without a tools block); ``None`` when it has no such turn."""
    return _drill(transcript, through_end=False)


def episode_drill(transcript: dict[str, Any]) -> dict[str, Any] | None:
    """The transcript's system prompt, request and every message from its first ``run_simulation`` turn
    on, without its ``tools`` (the ``get_schema`` exchange left out); ``None`` when it has no run."""
    return _drill(transcript, through_end=True)


DRILLS = {"config": config_drill, "episode": episode_drill}
"""The drill kinds by name (``--drill-kind`` of the learning benchmark)."""

"""Config drills: a demonstration cut to its request and its config turn, a short SFT row for one skill.

A config's numbers and names are read from the request; in a whole transcript the tools block (before the
request) and the schema (between request and config) make the row ~7x longer than that reading needs. A
drill keeps the system prompt, the request and the first ``run_simulation`` turn, nothing else (no tools
block, no schema), so SFT sees many more requests per token. A drill is not a context the agent shows: it
is extra data beside the whole transcripts, never a replacement for them.
"""

from __future__ import annotations

from typing import Any

from aspen_rl.trace import RUN_SIMULATION


def config_drill(transcript: dict[str, Any]) -> dict[str, Any] | None:
    """The transcript's system prompt, request and first ``run_simulation`` turn, without its ``tools``
    (so rendered without a tools block); ``None`` when it has no such turn."""
    messages = transcript["messages"]
    head = [m for m in messages[:2] if m["role"] in ("system", "user")]
    run = next(
        (
            m
            for m in messages
            if m["role"] == "assistant"
            and any(c["function"]["name"] == RUN_SIMULATION for c in m.get("tool_calls") or [])
        ),
        None,
    )
    if run is None or not head or head[-1]["role"] != "user":
        return None
    drill = {k: v for k, v in transcript.items() if k != "tools"}
    drill["messages"] = [*head, run]
    return drill

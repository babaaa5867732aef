"""What failed and whose fault it is: the typed failure every layer records, decided where it is known.

A failure is one :class:`FailureKind`; its :attr:`~FailureKind.fault` says whose it is:

* ``policy``: the model's doing. The rollout is scored (0 for a rollout the policy ended in failure) and
  stays in its GRPO group, so the group's other rollouts are pushed up relative to it.
* ``infrastructure``: says nothing about the policy (a service down, busy, crashed or refusing us). It never
  becomes reward: every algorithm leaves it out of rewards, means and groups, and counts it.

This module imports nothing of aspen_rl, so the simulator client, the tools, the trace, the agent, the
records and every algorithm can all speak it.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Fault(StrEnum):
    """Whose fault a failure is."""

    POLICY = "policy"
    INFRASTRUCTURE = "infrastructure"


class FailureKind(StrEnum):
    """What failed. The value is what ``rollouts.jsonl`` and the trace hold."""

    # -- the policy's: bad config, bad call, its own run's timeout, a prompt over the limit --------
    BAD_CONFIG = "bad_config"
    """The simulator ran (or tried) the config and answered ``success: false`` naming a field."""
    BAD_CALL = "bad_call"
    """A call no service could take: not JSON, an unknown tool, a missing file, a 4xx for bad arguments."""
    RUN_TIMEOUT = "run_timeout"
    """The simulator stopped the policy's own run at its time budget (a config too slow to solve)."""
    ROLLOUT_TIMEOUT = "rollout_timeout"
    """The rollout used up its wall-time cap."""
    PROMPT_TOO_LONG = "prompt_too_long"
    """The conversation outgrew the model endpoint's context (HTTP 400 ``context_length_exceeded``)."""
    MODEL_OUTPUT = "model_output"
    """The endpoint or the agent framework could not take what the model wrote (another 4xx, bad output)."""

    # -- the infrastructure's: unreachable, busy, 5xx, crashed, auth, lost ----------------------------
    UNREACHABLE = "unreachable"
    """The simulator could not be reached, or did not answer in time, after every retry."""
    BUSY = "busy"
    """The simulator kept answering 503 (no free engine worker) for longer than its queue wait."""
    SERVER_ERROR = "server_error"
    """The simulator answered 5xx, or 2xx that is not the contract's JSON (an HTML error page)."""
    CRASHED = "crashed"
    """The simulator's engine worker died while computing the run (``InternalError``)."""
    AUTH = "auth"
    """The simulator or the model endpoint refused our credentials (401, or 403 from the endpoint)."""
    MODEL_UNAVAILABLE = "model_unavailable"
    """The model endpoint could not be reached, timed out, rate-limited us, or answered 5xx."""
    LOST = "lost"
    """The store or the runner never delivered the rollout's record."""
    REWARD_CRASHED = "reward_crashed"
    """The reward computation raised on the rollout's trace."""
    TOOL_CRASHED = "tool_crashed"
    """A tool raised something unexpected (a defect of ours, not of the call)."""
    NOT_CONFIGURED = "not_configured"
    """The run gave the rollout no model endpoint to call."""

    @property
    def fault(self) -> Fault:
        """Whose fault this kind of failure is."""
        return Fault.POLICY if self in _POLICY else Fault.INFRASTRUCTURE

    @property
    def is_infrastructure(self) -> bool:
        """Whether this failure says nothing about the policy (left out and counted)."""
        return self.fault is Fault.INFRASTRUCTURE


_POLICY = frozenset(
    {
        FailureKind.BAD_CONFIG,
        FailureKind.BAD_CALL,
        FailureKind.RUN_TIMEOUT,
        FailureKind.ROLLOUT_TIMEOUT,
        FailureKind.PROMPT_TOO_LONG,
        FailureKind.MODEL_OUTPUT,
    }
)

DEFAULT_MAX_INFRASTRUCTURE_SHARE = 0.2
"""Share of a run's rollouts that may hit infrastructure failures before the run is declared failed."""


def first_infrastructure(kinds: Iterable[FailureKind | None]) -> FailureKind | None:
    """The first infrastructure failure among ``kinds``, or ``None``."""
    return next((k for k in kinds if k is not None and k.is_infrastructure), None)


def infrastructure_verdict(kinds: Iterable[FailureKind | None], max_share: float) -> str | None:
    """Why a run must end non-zero because too many of its rollouts hit infrastructure failures, or ``None``.

    Args:
        kinds: The failure of every rollout of the run (``None`` for a rollout that did not fail).
        max_share: Largest share of rollouts (0-1) that may fail by the infrastructure's fault.
    """
    every = list(kinds)
    broken = [k for k in every if k is not None and k.is_infrastructure]
    if not every or len(broken) <= max_share * len(every):
        return None
    counts: dict[str, int] = {}
    for kind in broken:
        counts[kind.value] = counts.get(kind.value, 0) + 1
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    return (
        f"{len(broken)} of {len(every)} rollouts ({len(broken) / len(every):.0%}) hit infrastructure "
        f"failures ({detail}), more than the allowed share {max_share:g} (max_infrastructure_share): "
        "their results are left out, so this run measured too little to stand"
    )

"""What ended a rollout abnormally, typed from the exception itself (the model endpoint's or the agent's).

The OpenAI SDK raises a class per answer of the model endpoint; AutoGen passes those through (sometimes
wrapped, so the chain of causes is walked). An endpoint that cannot be reached, times out, rate-limits us,
refuses our key or answers 5xx says nothing about the policy: the infrastructure's. A 400 for a prompt over
the endpoint's context, or any other 4xx about what the model wrote, is the policy's, as is an exception of
the agent framework on the model's output.
"""

from __future__ import annotations

import openai

from aspen_rl.failures import FailureKind

CONTEXT_LENGTH_CODE = "context_length_exceeded"
"""OpenAI's (and our local server's) ``code`` for a prompt over the endpoint's context."""


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from, outermost first (cycles cut)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _endpoint_failure(exc: openai.OpenAIError) -> FailureKind | None:
    """The failure an OpenAI SDK exception stands for, or ``None`` for one that is not an endpoint answer."""
    if isinstance(exc, openai.APIConnectionError):  # also APITimeoutError: unreachable or silent
        return FailureKind.MODEL_UNAVAILABLE
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return FailureKind.AUTH
    if isinstance(exc, openai.RateLimitError | openai.InternalServerError):
        return FailureKind.MODEL_UNAVAILABLE
    if isinstance(exc, openai.NotFoundError):  # no such model or route: how the run was configured
        return FailureKind.NOT_CONFIGURED
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code >= 500:
            return FailureKind.MODEL_UNAVAILABLE
        if getattr(exc, "code", None) == CONTEXT_LENGTH_CODE:
            return FailureKind.PROMPT_TOO_LONG
        return FailureKind.MODEL_OUTPUT
    return None


def rollout_failure(exc: BaseException) -> FailureKind:
    """What failed, for an exception that ended a rollout.

    Returns:
        The endpoint's typed failure when an OpenAI SDK exception is in the chain; ``MODEL_OUTPUT`` (the
        policy's) for anything else the conversation raised: the agent framework failing on what the
        model wrote.
    """
    for cause in _causes(exc):
        if isinstance(cause, openai.OpenAIError):
            kind = _endpoint_failure(cause)
            if kind is not None:
                return kind
    return FailureKind.MODEL_OUTPUT

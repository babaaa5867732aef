"""Builds the AutoGen model client of one rollout from its ``LLM`` resource, else from settings."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from autogen_core.models import ModelInfo
from autogen_ext.models.openai import OpenAIChatCompletionClient
from openai import DefaultAsyncHttpxClient

from aspen_rl.rollout_seed import SEED_METADATA_KEY
from aspen_rl.settings import Settings
from aspen_rl.tls import verifying_context

SAMPLING_KEYS = (
    "temperature",
    "top_p",
    "max_tokens",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "stop",
)
"""Sampling parameters of an ``LLM`` resource that are forwarded to the endpoint."""

MODEL_INFO = ModelInfo(
    vision=False, function_calling=True, json_output=False, family="unknown", structured_output=False
)
"""Declared capabilities, so AutoGen accepts model names it does not know (Qwen, DeepSeek, local paths)."""


@dataclass(frozen=True)
class LLMTarget:
    """Where a rollout's chat completions go."""

    base_url: str
    model: str
    api_key: str | None
    sampling: dict[str, Any]


def resolve_llm(resources: Mapping[str, Any], rollout: Any, settings: Settings) -> LLMTarget:
    """The endpoint of a rollout: the first ``LLM`` resource (rollout-scoped for ``ProxyLLM``), else settings.

    A seed in the rollout's metadata (``SEED_METADATA_KEY``) is sent as the request ``seed`` and wins
    over a resource's: a resource seed is shared by every rollout, so a GRPO group would sample one
    episode eight times.

    Raises:
        ValueError: when neither a resource nor ``MODEL_API_URL`` names an endpoint.
    """
    from agentlightning import LLM, ProxyLLM

    key = settings.model_api_key.get_secret_value() if settings.model_api_key else None
    for resource in resources.values():
        if isinstance(resource, ProxyLLM) and rollout is not None:
            base_url = resource.get_base_url(rollout.rollout_id, rollout.attempt.attempt_id)
        elif isinstance(resource, LLM):
            base_url = resource.get_base_url()
        else:
            continue
        sampling = {k: v for k, v in resource.sampling_parameters.items() if k in SAMPLING_KEYS}
        return LLMTarget(base_url, resource.model, resource.api_key or key, _seeded(sampling, rollout))
    if not settings.model_api_url:
        raise ValueError(
            "no LLM resource was published and MODEL_API_URL is not set: no model endpoint to call"
        )
    return LLMTarget(settings.model_api_url, settings.model, key, _seeded({}, rollout))


def _seeded(sampling: dict[str, Any], rollout: Any) -> dict[str, Any]:
    metadata = getattr(rollout, "metadata", None) or {}
    seed = metadata.get(SEED_METADATA_KEY)
    return {**sampling, "seed": seed} if isinstance(seed, int) and not isinstance(seed, bool) else sampling


class TimedChatClient(OpenAIChatCompletionClient):
    """An OpenAI chat client that also adds up the wall time spent waiting for the model."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.elapsed_s = 0.0
        self.n_calls = 0

    async def create(self, messages: Sequence[Any], **kwargs: Any) -> Any:
        """Time one completion; retries on 429/5xx/timeouts are the OpenAI SDK's (``max_retries``)."""
        start = time.perf_counter()
        try:
            return await super().create(messages, **kwargs)
        finally:
            self.elapsed_s += time.perf_counter() - start
            self.n_calls += 1


def build_model_client(target: LLMTarget, settings: Settings) -> TimedChatClient:
    """An AutoGen OpenAI-compatible client with the settings' timeout and bounded retries with backoff."""
    return TimedChatClient(
        model=target.model,
        base_url=target.base_url,
        api_key=target.api_key or "not-needed",
        model_info=MODEL_INFO,
        timeout=settings.llm_timeout_s,
        max_retries=settings.llm_retries,
        http_client=DefaultAsyncHttpxClient(verify=verifying_context()),
        **target.sampling,
    )

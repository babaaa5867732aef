"""The chemistry expert's system prompt: the shipped default, or a PromptTemplate resource."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources as importlib_resources
from typing import Any

SYSTEM_PROMPT_RESOURCE = "system_prompt"
"""Name of the ``PromptTemplate`` resource that overrides the default system prompt."""


def default_system_prompt() -> str:
    """The system prompt shipped with the package (``aspen_rl/agent/default_system_prompt.md``)."""
    return importlib_resources.files("aspen_rl.agent").joinpath("default_system_prompt.md").read_text("utf-8")


def system_prompt_from(resources: Mapping[str, Any]) -> str:
    """The system prompt a rollout should use.

    The ``system_prompt`` resource wins when it is a ``PromptTemplate`` (its template text is used as
    is: prompts contain JSON braces, so no f-string formatting is applied); otherwise the first
    ``PromptTemplate`` among the resources; otherwise the shipped default.
    """
    from agentlightning import PromptTemplate

    preferred = resources.get(SYSTEM_PROMPT_RESOURCE)
    if isinstance(preferred, PromptTemplate):
        return preferred.template
    for resource in resources.values():
        if isinstance(resource, PromptTemplate):
            return resource.template
    return default_system_prompt()

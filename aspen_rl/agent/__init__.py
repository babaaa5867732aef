"""The chemistry-expert agent: AutoGen assistant, system prompt, model client, LitAgent wrapper."""

from aspen_rl.agent.lit_agent import AspenLitAgent

__all__ = ["AspenLitAgent"]

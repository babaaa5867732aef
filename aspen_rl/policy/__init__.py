"""The offline scripted policy (a stand-in for an LLM) and its OpenAI-compatible server."""

from aspen_rl.policy.scripted import MISTAKES, ScriptedPolicy

__all__ = ["MISTAKES", "ScriptedPolicy"]

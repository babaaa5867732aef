"""Prompt optimization: beam search over system prompts with textual gradients or offline edits.

The names load on first use: ``import aspen_rl.algorithms.prompt_opt.config`` (the CLI's pre-flight check)
does not import Agent Lightning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aspen_rl._lazy import lazy_exports

if TYPE_CHECKING:
    from aspen_rl.algorithms.prompt_opt.algorithm import PromptOptAlgorithm
    from aspen_rl.algorithms.prompt_opt.config import PromptOptConfig
    from aspen_rl.algorithms.prompt_opt.critic import CriticProposer, PromptCritic
    from aspen_rl.algorithms.prompt_opt.edits import OPERATORS, RULES, EditProposer
    from aspen_rl.algorithms.prompt_opt.search import (
        BeamSearch,
        Candidate,
        Evaluation,
        Proposal,
        SearchResult,
    )

_LAZY = {
    "PromptOptAlgorithm": ".algorithm",
    "PromptOptConfig": ".config",
    "CriticProposer": ".critic",
    "PromptCritic": ".critic",
    "OPERATORS": ".edits",
    "RULES": ".edits",
    "EditProposer": ".edits",
    "BeamSearch": ".search",
    "Candidate": ".search",
    "Evaluation": ".search",
    "Proposal": ".search",
    "SearchResult": ".search",
}

__all__ = [
    "OPERATORS",
    "RULES",
    "BeamSearch",
    "Candidate",
    "CriticProposer",
    "EditProposer",
    "Evaluation",
    "PromptCritic",
    "PromptOptAlgorithm",
    "PromptOptConfig",
    "Proposal",
    "SearchResult",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

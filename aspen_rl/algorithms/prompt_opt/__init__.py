"""Prompt optimization: beam search over system prompts with textual gradients or offline edits."""

from aspen_rl.algorithms.prompt_opt.algorithm import PromptOptAlgorithm
from aspen_rl.algorithms.prompt_opt.config import PromptOptConfig
from aspen_rl.algorithms.prompt_opt.critic import CriticProposer, PromptCritic
from aspen_rl.algorithms.prompt_opt.edits import OPERATORS, RULES, EditProposer
from aspen_rl.algorithms.prompt_opt.search import BeamSearch, Candidate, Evaluation, Proposal, SearchResult

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

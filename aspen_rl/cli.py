"""Command-line arguments of ``python -m aspen_rl.train``."""

from __future__ import annotations

import argparse
from pathlib import Path

from aspen_rl.algorithms.registry import algorithm_names, get_algorithm
from aspen_rl.errors import UsageError

__all__ = ["UsageError", "build_parser"]

DESCRIPTION = """\
Train or evaluate the chemistry-expert agent with Microsoft Agent Lightning.

With no model endpoint configured (MODEL_API_URL / --api-url), rollouts are driven by the OFFLINE
SCRIPTED POLICY: an honest stand-in, not a language model, that replays each task's reference
solution through the real tool-calling protocol with seeded mistakes (see --error-rate) and ignores
prompts. With no simulator named (ASPEN_SIMULATOR_URL / --simulator-url), the mock Aspen service is
started on a free loopback port for the run and stopped at exit; a named one is used, or the run stops
before any rollout saying why (certificate not trusted, nothing listening, not a simulator).
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (every flag overrides the environment, .env and the YAML config)."""
    parser = argparse.ArgumentParser(
        prog="python -m aspen_rl.train",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--mode",
        choices=("dev", "train"),
        default=None,
        help="dev: Trainer.dev with a fast algorithm, quick feedback; train: Trainer.fit "
        "(default: dev for baseline and prompt_opt, train for grpo and verl)",
    )
    parser.add_argument(
        "--algorithm",
        choices=algorithm_names(),
        default="baseline",
        help="; ".join(f"{n}: {get_algorithm(n).help}" for n in algorithm_names()) + " (default: baseline)",
    )
    parser.add_argument(
        "--n-runners", type=_positive_int, default=2, help="parallel rollout runners (default: 2)"
    )
    parser.add_argument("--use-validation", action="store_true", help="also run the validation split")
    parser.add_argument("--use-test", action="store_true", help="also run the test split")
    parser.add_argument(
        "--tasks",
        type=Path,
        action="append",
        default=[],
        metavar="FILE.jsonl",
        help="extra custom tasks (JSONL, one AspenTask per line); repeatable; run with the train split",
    )
    parser.add_argument(
        "--limit",
        type=_non_negative_int,
        default=None,
        help="use only the first N curated train tasks (0: none, only the --tasks files' tasks)",
    )
    parser.add_argument("--config", type=Path, default=None, metavar="FILE.yaml", help="YAML settings file")
    parser.add_argument("--model", default=None, help="model name (env MODEL)")
    parser.add_argument("--api-key", default=None, help="model API key (env MODEL_API_KEY); never logged")
    parser.add_argument("--api-url", default=None, help="OpenAI-compatible base URL (env MODEL_API_URL)")
    parser.add_argument(
        "--simulator-url",
        default=None,
        help="simulator service URL, or several separated by commas (a pool) (env ASPEN_SIMULATOR_URL)",
    )
    parser.add_argument("--repeats", type=_positive_int, default=None, help="rollouts per task")
    parser.add_argument(
        "--temperature",
        type=float,
        default=None,
        help="sampling temperature of the model (default 0.7; 0: greedy, for a reproducible evaluation)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the scripted policy and the algorithms")
    parser.add_argument(
        "--error-rate",
        type=_probability,
        default=None,
        help="offline scripted policy: probability of each injected mistake",
    )
    parser.add_argument("--prompt", type=Path, default=None, metavar="FILE", help="system prompt file to use")
    parser.add_argument(
        "--resume",
        type=Path,
        default=None,
        metavar="CHECKPOINT",
        help="grpo, sft: resume from a checkpoint dir (sft: also its -checkpoints folder or run dir)",
    )
    parser.add_argument(
        "--output-dir", type=Path, default=None, help="run directory (default: runs/<timestamp>/)"
    )
    return parser


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _probability(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be within [0, 1], got {value}")
    return value

"""Outputs of a prompt search: the beam table, the best-score plot, history.json and best_prompt.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.table import Table

from aspen_rl.algorithms.prompt_opt.search import Candidate, SearchResult

HISTORY_FILE = "history.json"
BEST_PROMPT_FILE = "best_prompt.md"
PLOT_FILE = "best_score_per_round.png"


def beam_table(beam: list[Candidate], title: str) -> Table:
    """One row per beam member, best first: scores per split, tool calls and lineage."""
    table = Table(title=title)
    for column in ("rank", "id", "round", "parent", "edit", "val mean", "val tools", "train mean", "chars"):
        table.add_column(column, justify="right" if column not in {"id", "parent", "edit"} else "left")
    for rank, c in enumerate(beam, start=1):
        table.add_row(
            str(rank),
            c.id,
            str(c.round),
            c.parent or "-",
            c.edit or c.origin,
            f"{c.val.score:.3f}" if c.val else "-",
            f"{c.val.tool_calls:.1f}" if c.val else "-",
            f"{c.train.score:.3f}" if c.train else "-",
            str(len(c.prompt)),
            style="bold" if rank == 1 else None,
        )
    return table


def history_json(result: SearchResult, **meta: Any) -> dict[str, Any]:
    """The whole search: ``meta``, every round, every candidate (lineage, edit/critique, scores)."""
    return {
        **meta,
        "best": result.best.id if result.beam else None,
        "beam": [c.id for c in result.beam],
        "rounds": [r.to_json() for r in result.rounds],
        "candidates": [c.to_json() for c in result.candidates],
    }


def write_history(path: Path, history: dict[str, Any]) -> Path:
    """Write ``history.json`` atomically (a crash mid-write leaves the previous round's file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(history, indent=2, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)
    return path


def write_best_prompt(path: Path, result: SearchResult) -> Path:
    """Write the beam leader's prompt verbatim (usable as ``--prompt FILE``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(result.best.prompt, encoding="utf-8")
    return path


def plot_best_per_round(result: SearchResult, path: Path) -> Path:
    """Line plot of the beam leader's validation score (and the beam's mean) after each round."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_id = {c.id: c for c in result.candidates}
    rounds = [r.round for r in result.rounds]
    best = [r.best_val for r in result.rounds]
    beam_mean = [
        sum(val.score for i in r.beam if (val := by_id[i].val)) / max(1, len(r.beam)) for r in result.rounds
    ]
    fig, ax = plt.subplots(figsize=(max(4.0, 0.8 * len(rounds) + 3), 3.4))
    ax.plot(rounds, best, marker="o", label="best candidate's val mean")
    ax.plot(rounds, beam_mean, marker="s", linestyle="--", alpha=0.7, label="beam average of val means")
    ax.set_xticks(rounds)
    ax.set_xlabel("round (0 = seed prompt)")
    ax.set_ylabel("mean total reward")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("Prompt search: validation mean per round")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

"""Beam search over system prompts, independent of Agent Lightning: scoring and proposing are injected.

One search:

* round 0 scores the seed prompt on train batch 0 and on the validation batch; the beam is ``[seed]``;
* each round ``r >= 1`` asks the proposer for ``branch_factor`` children of every beam member (the
  proposer sees the parent's train rollouts), scores every new child on train batch ``r`` and on the
  validation batch, and keeps the ``beam_width`` best of parents + children **by validation score**,
  ties broken by fewer tool calls per validation rollout, then by age (the older candidate wins);
* train scores feed the critique and the history, never the selection.

The validation batch is fixed for the whole search, so a beam member keeps its score across rounds
and the best validation score never decreases.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any, Protocol

from aspen_rl.records import RolloutRecord

SPLITS = ("train", "val")


@dataclass
class Evaluation:
    """A candidate's rollouts on one split: mean reward, mean tool calls, per tier, and the records.

    Means are over the rollouts that say something about the prompt: infrastructure failures (the
    simulator or the model endpoint failing) are left out of them and counted in ``infrastructure_failures``.
    """

    split: str
    score: float
    tool_calls: float
    n: int
    infrastructure_failures: int = 0
    tasks: list[str] = field(default_factory=list)
    tiers: dict[str, dict[str, float]] = field(default_factory=dict)
    records: list[RolloutRecord] = field(default_factory=list, repr=False)

    @classmethod
    def from_records(cls, split: str, records: Sequence[RolloutRecord]) -> Evaluation:
        """Aggregate rollout records (a rollout the policy failed counts with its reward, 0; one the
        infrastructure failed is left out and counted)."""
        scored = [r for r in records if not r.infrastructure_failed]
        by_tier: dict[str, list[RolloutRecord]] = defaultdict(list)
        for record in scored:
            by_tier[record.difficulty or "unknown"].append(record)
        return cls(
            split=split,
            score=_mean([r.reward.total for r in scored]),
            tool_calls=_mean([len(r.tool_calls) for r in scored]),
            n=len(scored),
            infrastructure_failures=len(records) - len(scored),
            tasks=list(dict.fromkeys(r.task_id for r in records)),
            tiers={
                tier: {
                    "n": len(group),
                    "score": _mean([r.reward.total for r in group]),
                    "tool_calls": _mean([len(r.tool_calls) for r in group]),
                }
                for tier, group in sorted(by_tier.items())
            },
            records=list(records),
        )

    def to_json(self) -> dict[str, Any]:
        """The evaluation without its records (for ``history.json``)."""
        return {
            "score": self.score,
            "tool_calls": self.tool_calls,
            "n": self.n,
            "infrastructure_failures": self.infrastructure_failures,
            "tasks": self.tasks,
            "tiers": self.tiers,
        }


@dataclass
class Proposal:
    """A new prompt text and how it was made."""

    prompt: str
    origin: str
    """``edit`` (offline operator) or ``critic`` (LLM textual gradient)."""
    edit: str
    """Name of the operator, or ``critic``."""
    critique: str | None = None


@dataclass
class Candidate:
    """A prompt in the search, its lineage and its scores."""

    id: str
    prompt: str
    round: int
    index: int
    parent: str | None = None
    origin: str = "seed"
    edit: str | None = None
    critique: str | None = None
    train: Evaluation | None = None
    val: Evaluation | None = None
    test: Evaluation | None = None
    """Only the best candidate, when test tasks were given."""

    def to_json(self) -> dict[str, Any]:
        """The candidate as written to ``history.json``."""
        return {
            "id": self.id,
            "round": self.round,
            "parent": self.parent,
            "origin": self.origin,
            "edit": self.edit,
            "critique": self.critique,
            "prompt": self.prompt,
            "scores": {
                split: evaluation.to_json()
                for split, evaluation in (("train", self.train), ("val", self.val), ("test", self.test))
                if evaluation is not None
            },
        }


@dataclass
class RoundSummary:
    """What one round did and cost."""

    round: int
    new: list[str]
    beam: list[str]
    best: str
    best_val: float
    rollouts: int
    wall_s: float
    train_tasks: list[str]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The round as written to ``history.json``."""
        return {
            "round": self.round,
            "new_candidates": self.new,
            "beam": self.beam,
            "best": self.best,
            "best_val": self.best_val,
            "rollouts": self.rollouts,
            "wall_s": round(self.wall_s, 3),
            "train_tasks": self.train_tasks,
            "notes": self.notes,
        }


@dataclass
class SearchResult:
    """Every candidate in creation order, every round, and the final beam (best first)."""

    candidates: list[Candidate]
    rounds: list[RoundSummary]
    beam: list[Candidate]

    @property
    def best(self) -> Candidate:
        """The beam leader: the best validation score, fewest tool calls on ties."""
        return self.beam[0]


ScoreFn = Callable[[Candidate, str, Sequence[Any], int], Awaitable[Evaluation]]
"""``score(candidate, split, tasks, round)``: run the candidate's prompt on ``tasks`` and aggregate."""

ProposeFn = Callable[[Candidate, int, int, set[str]], Awaitable[list[Proposal]]]
"""``propose(parent, n, round, known_prompts)``: up to ``n`` new prompts derived from ``parent``."""


class SearchObserver(Protocol):
    """Receives the search's progress (the algorithm shows it and writes the history)."""

    def round_started(self, rnd: int, candidates: list[Candidate], train_tasks: int, val_tasks: int) -> None:
        """Scoring of ``candidates`` on ``train_tasks`` + ``val_tasks`` tasks is about to start."""

    def round_finished(self, summary: RoundSummary, result: SearchResult) -> None:
        """A round ended; ``result`` is the search so far."""


class BeamSearch:
    """Beam search over prompts (see the module docstring for the procedure).

    Args:
        score: Scores a candidate on a batch of tasks of a split.
        propose: Proposes children of a parent.
        beam_width: Candidates kept after each round.
        branch_factor: Children asked of each beam member per round.
        rounds: Expansion rounds after the seed round.
        train_batch_size: Train tasks per round (0 = all).
        val_batch_size: Validation tasks for the whole search (0 = all).
        seed: Seed of the train rotation and the validation subset.
        observer: Optional progress receiver.
    """

    def __init__(
        self,
        score: ScoreFn,
        propose: ProposeFn,
        *,
        beam_width: int,
        branch_factor: int,
        rounds: int,
        train_batch_size: int = 0,
        val_batch_size: int = 0,
        seed: int = 0,
        observer: SearchObserver | None = None,
    ) -> None:
        if beam_width < 1 or branch_factor < 1 or rounds < 0:
            raise ValueError("beam_width and branch_factor must be >= 1 and rounds >= 0")
        self.score = score
        self.propose = propose
        self.beam_width = beam_width
        self.branch_factor = branch_factor
        self.rounds = rounds
        self.train_batch_size = train_batch_size
        self.val_batch_size = val_batch_size
        self.seed = seed
        self.observer = observer

    async def run(self, seed_prompt: str, train: Sequence[Any], val: Sequence[Any]) -> SearchResult:
        """Search from ``seed_prompt``; returns every candidate, every round and the final beam.

        Raises:
            ValueError: without train or validation tasks.
        """
        if not train:
            raise ValueError("prompt search needs train tasks (the critique reads their rollouts)")
        if not val:
            raise ValueError("prompt search needs validation tasks (the beam is chosen on them)")
        rng = random.Random(self.seed)
        train_order = list(train)
        rng.shuffle(train_order)
        val_batch = fixed_subset(val, self.val_batch_size, rng)
        result = SearchResult(candidates=[], rounds=[], beam=[])

        seed = self._new(result, seed_prompt, round=0)
        started = time.perf_counter()
        batch = rotating_batch(train_order, self.train_batch_size, 0)
        rollouts = await self._score_all([seed], batch, val_batch, 0)
        result.beam = [seed]
        self._finish_round(result, 0, [seed], rollouts, time.perf_counter() - started, batch, [])

        for rnd in range(1, self.rounds + 1):
            started = time.perf_counter()
            notes: list[str] = []
            known = {c.prompt for c in result.candidates}
            children: list[Candidate] = []
            for parent in result.beam:
                proposals = await self.propose(parent, self.branch_factor, rnd, set(known))
                kept = 0
                for proposal in proposals:
                    if kept == self.branch_factor:
                        break
                    if not proposal.prompt.strip() or proposal.prompt in known:
                        notes.append(f"{parent.id}: dropped a duplicate or empty proposal ({proposal.edit})")
                        continue
                    known.add(proposal.prompt)
                    children.append(
                        self._new(result, proposal.prompt, round=rnd, parent=parent, how=proposal)
                    )
                    kept += 1
                if kept < self.branch_factor:
                    notes.append(f"{parent.id}: {kept} of {self.branch_factor} children")
            batch = rotating_batch(train_order, self.train_batch_size, rnd)
            rollouts = await self._score_all(children, batch, val_batch, rnd)
            result.beam = select_beam([*result.beam, *children], self.beam_width)
            self._finish_round(result, rnd, children, rollouts, time.perf_counter() - started, batch, notes)
        return result

    def _new(
        self,
        result: SearchResult,
        prompt: str,
        *,
        round: int,
        parent: Candidate | None = None,
        how: Proposal | None = None,
    ) -> Candidate:
        index = len(result.candidates)
        candidate = Candidate(
            id=f"c{index}",
            prompt=prompt,
            round=round,
            index=index,
            parent=parent.id if parent else None,
            origin=how.origin if how else "seed",
            edit=how.edit if how else None,
            critique=how.critique if how else None,
        )
        result.candidates.append(candidate)
        return candidate

    async def _score_all(
        self, candidates: list[Candidate], train_batch: list[Any], val_batch: list[Any], rnd: int
    ) -> int:
        """Score every candidate on both batches concurrently; returns the number of rollouts."""
        if not candidates:
            return 0
        if self.observer is not None:
            self.observer.round_started(rnd, candidates, len(train_batch), len(val_batch))
        jobs = [(c, split) for c in candidates for split in SPLITS]
        evaluations = await asyncio.gather(
            *(self.score(c, split, train_batch if split == "train" else val_batch, rnd) for c, split in jobs)
        )
        for (candidate, split), evaluation in zip(jobs, evaluations, strict=True):
            setattr(candidate, split, evaluation)
        return sum(e.n for e in evaluations)

    def _finish_round(
        self,
        result: SearchResult,
        rnd: int,
        new: list[Candidate],
        rollouts: int,
        wall_s: float,
        batch: list[Any],
        notes: list[str],
    ) -> None:
        best = result.beam[0]
        summary = RoundSummary(
            round=rnd,
            new=[c.id for c in new],
            beam=[c.id for c in result.beam],
            best=best.id,
            best_val=best.val.score if best.val else 0.0,
            rollouts=rollouts,
            wall_s=wall_s,
            train_tasks=[getattr(t, "task_id", str(t)) for t in batch],
            notes=notes,
        )
        result.rounds.append(summary)
        if self.observer is not None:
            self.observer.round_finished(summary, result)


def selection_key(candidate: Candidate) -> tuple[float, float, int]:
    """Sort key of the beam: higher validation score, then fewer tool calls, then older first."""
    if candidate.val is None:
        return (float("inf"), float("inf"), candidate.index)
    return (-candidate.val.score, candidate.val.tool_calls, candidate.index)


def select_beam(candidates: Sequence[Candidate], width: int) -> list[Candidate]:
    """The ``width`` best candidates by :func:`selection_key` (validation only; train is ignored)."""
    return sorted(candidates, key=selection_key)[:width]


def rotating_batch(order: Sequence[Any], size: int, index: int) -> list[Any]:
    """Batch ``index`` of a cyclic walk over ``order`` (all of it when ``size`` is 0 or too large)."""
    if size <= 0 or size >= len(order):
        return list(order)
    start = index * size
    return [order[(start + i) % len(order)] for i in range(size)]


def fixed_subset(items: Sequence[Any], size: int, rng: random.Random) -> list[Any]:
    """A seeded subset of ``size`` items in their original order (all of them when 0 or too large)."""
    if size <= 0 or size >= len(items):
        return list(items)
    chosen = set(rng.sample(range(len(items)), size))
    return [item for i, item in enumerate(items) if i in chosen]


def _mean(values: Sequence[float]) -> float:
    return fmean(values) if values else 0.0

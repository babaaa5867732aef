"""Beam search logic with a test double whose reward depends on the prompt's content."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from aspen_rl.algorithms.prompt_opt.search import (
    BeamSearch,
    Candidate,
    Evaluation,
    Proposal,
    RoundSummary,
    SearchResult,
    fixed_subset,
    rotating_batch,
    select_beam,
)
from aspen_rl.records import RolloutRecord, ToolCallSummary
from aspen_rl.reward.base import RewardBreakdown

LETTERS = "abcdef"


class PromptWorld:
    """Prompts are sets of letters; each letter adds its weight to the reward of a split.

    ``tool_calls`` maps a letter to extra tool calls per rollout (for the tie-break).
    """

    def __init__(
        self,
        val_weights: dict[str, float],
        train_weights: dict[str, float] | None = None,
        tool_calls: dict[str, int] | None = None,
        base: float = 0.3,
    ) -> None:
        self.val_weights = val_weights
        self.train_weights = train_weights if train_weights is not None else val_weights
        self.tool_calls = tool_calls or {}
        self.base = base
        self.calls: list[tuple[str, str, tuple[str, ...], int]] = []
        self.proposals: list[tuple[str, int, int]] = []

    def reward(self, prompt: str, split: str) -> float:
        weights = self.val_weights if split == "val" else self.train_weights
        value = self.base + sum(w for letter, w in weights.items() if letter in prompt)
        return min(1.0, max(0.0, value))

    async def score(self, candidate: Candidate, split: str, tasks: Sequence[Any], rnd: int) -> Evaluation:
        self.calls.append((candidate.id, split, tuple(t.task_id for t in tasks), rnd))
        n_calls = 3 + sum(n for letter, n in self.tool_calls.items() if letter in candidate.prompt)
        records = [
            RolloutRecord(
                task_id=t.task_id,
                split=split,
                difficulty=t.difficulty,
                reward=RewardBreakdown(total=self.reward(candidate.prompt, split)),
                tool_calls=[ToolCallSummary(name="run_simulation", ok=True)] * n_calls,
            )
            for t in tasks
        ]
        return Evaluation.from_records(split, records)

    async def propose(self, parent: Candidate, n: int, rnd: int, known: set[str]) -> list[Proposal]:
        """Append each missing letter in alphabetical order (the first ``n`` not yet known)."""
        self.proposals.append((parent.id, n, rnd))
        out = []
        for letter in LETTERS:
            prompt = parent.prompt + letter
            if letter not in parent.prompt and prompt not in known:
                out.append(Proposal(prompt, "edit", f"add_{letter}"))
            if len(out) == n:
                break
        return out


def search(world: PromptWorld, **kwargs: Any) -> BeamSearch:
    options = {"beam_width": 2, "branch_factor": 2, "rounds": 2, "seed": 0}
    options.update(kwargs)
    return BeamSearch(world.score, world.propose, **options)


async def test_finds_the_best_candidate(tasks) -> None:
    # Only "c" and "e" help; the others hurt. The best reachable prompt has both and nothing else.
    world = PromptWorld({"a": -0.1, "b": -0.1, "c": 0.3, "d": -0.2, "e": 0.2, "f": -0.1})
    result = await search(world, beam_width=3, branch_factor=6, rounds=2).run(
        "P:", tasks("t", 4), tasks("v", 3)
    )
    assert set(result.best.prompt) - set("P:") == {"c", "e"}
    assert result.best.val is not None
    assert result.best.val.score == pytest.approx(0.8)
    # No candidate ever scored better on validation than the one chosen.
    assert result.best.val.score == max(c.val.score for c in result.candidates if c.val)
    # The best score never decreases from round to round.
    best = [r.best_val for r in result.rounds]
    assert best == sorted(best) and best[0] == pytest.approx(0.3)


async def test_respects_beam_width_branch_factor_and_rounds(tasks) -> None:
    world = PromptWorld({letter: 0.05 * i for i, letter in enumerate(LETTERS)})
    result = await search(world, beam_width=2, branch_factor=3, rounds=3).run(
        "", tasks("t", 4), tasks("v", 2)
    )
    assert [r.round for r in result.rounds] == [0, 1, 2, 3]
    # Round 1 expands the seed only; later rounds expand a full beam of 2.
    assert [len(r.new) for r in result.rounds] == [1, 3, 6, 6]
    assert len(result.candidates) == 1 + 3 + 6 + 6
    assert all(len(r.beam) <= 2 for r in result.rounds) and len(result.beam) == 2
    # Every parent was asked for exactly branch_factor children, once per round it sat in the beam.
    assert [n for _, n, _ in world.proposals] == [3] * 5
    assert Counter(rnd for _, _, rnd in world.proposals) == {1: 1, 2: 2, 3: 2}
    by_id = {c.id: c for c in result.candidates}
    for r in result.rounds[1:]:
        assert Counter(by_id[i].parent for i in r.new) == Counter(
            {p: 3 for p in result.rounds[r.round - 1].beam}
        )
    # Every candidate is scored exactly once per split.
    assert Counter((cid, split) for cid, split, _, _ in world.calls) == {
        (c.id, s): 1 for c in result.candidates for s in ("train", "val")
    }


async def test_selects_on_validation_not_train(tasks) -> None:
    # Train loves "a" and hates "b"; validation the opposite.
    world = PromptWorld(val_weights={"a": -0.2, "b": 0.4}, train_weights={"a": 0.6, "b": -0.3})
    result = await search(world, beam_width=1, branch_factor=2, rounds=1).run(
        "", tasks("t", 3), tasks("v", 3)
    )
    by_prompt = {c.prompt: c for c in result.candidates}
    assert by_prompt["a"].train.score > by_prompt["b"].train.score  # train prefers "a"...
    assert by_prompt["b"].val.score > by_prompt["a"].val.score  # ...validation prefers "b"
    assert result.best.prompt == "b"
    assert [c.prompt for c in result.beam] == ["b"]


async def test_ties_broken_by_fewer_tool_calls(tasks) -> None:
    # "a" and "b" score the same on validation; "a" costs two more tool calls per rollout.
    world = PromptWorld({"a": 0.2, "b": 0.2}, tool_calls={"a": 2})
    result = await search(world, beam_width=2, branch_factor=2, rounds=1).run(
        "", tasks("t", 2), tasks("v", 2)
    )
    assert [c.prompt for c in result.beam] == ["b", "a"]
    assert result.beam[0].val.tool_calls < result.beam[1].val.tool_calls


def candidate(index: int, val: float | None, tools: float = 3.0, train: float = 0.0) -> Candidate:
    c = Candidate(id=f"c{index}", prompt=str(index), round=0, index=index)
    if val is not None:
        c.val = Evaluation("val", score=val, tool_calls=tools, n=1)
    c.train = Evaluation("train", score=train, tool_calls=tools, n=1)
    return c


def test_select_beam_order() -> None:
    pool = [
        candidate(0, 0.5, tools=4),
        candidate(1, 0.7, tools=6, train=0.0),
        candidate(2, 0.5, tools=3),
        candidate(3, 0.2, train=1.0),  # best on train: irrelevant
        candidate(4, 0.5, tools=3),  # same as c2 in every way: the older (c2) first
        candidate(5, None),  # never scored on validation: last
    ]
    assert [c.id for c in select_beam(pool, 6)] == ["c1", "c2", "c4", "c0", "c3", "c5"]
    assert [c.id for c in select_beam(pool, 2)] == ["c1", "c2"]


async def test_batches_rotate_over_train_and_validation_stays_fixed(tasks) -> None:
    world = PromptWorld({"a": 0.1})
    train, val = tasks("t", 5), tasks("v", 4)
    s = search(world, beam_width=1, branch_factor=1, rounds=4, train_batch_size=2, val_batch_size=3, seed=7)
    result = await s.run("", train, val)
    train_batches = [r.train_tasks for r in result.rounds]
    assert all(len(b) == 2 for b in train_batches)
    # A cyclic walk over one seeded shuffle: 5 rounds x 2 tasks visit every train task.
    assert {t for b in train_batches for t in b} == {t.task_id for t in train}
    val_batches = {ids for _, split, ids, _ in world.calls if split == "val"}
    assert len(val_batches) == 1 and len(next(iter(val_batches))) == 3
    # Same seed, same batches.
    again = await search(
        PromptWorld({"a": 0.1}),
        beam_width=1,
        branch_factor=1,
        rounds=4,
        train_batch_size=2,
        val_batch_size=3,
        seed=7,
    ).run("", train, val)
    assert [r.train_tasks for r in again.rounds] == train_batches


def test_batch_helpers() -> None:
    import random

    order = list(range(5))
    assert rotating_batch(order, 0, 3) == order
    assert rotating_batch(order, 9, 1) == order
    assert rotating_batch(order, 2, 0) == [0, 1]
    assert rotating_batch(order, 2, 2) == [4, 0]
    assert fixed_subset(order, 0, random.Random(0)) == order
    subset = fixed_subset(order, 3, random.Random(0))
    assert len(subset) == 3 and subset == sorted(subset)


async def test_duplicate_proposals_are_dropped_and_noted(tasks) -> None:
    world = PromptWorld({"a": 0.1})

    async def stubborn(parent: Candidate, n: int, rnd: int, known: set[str]) -> list[Proposal]:
        return [Proposal(parent.prompt, "edit", "noop"), Proposal(parent.prompt + "a", "edit", "add_a")] * 2

    result = await BeamSearch(world.score, stubborn, beam_width=2, branch_factor=2, rounds=1).run(
        "x", tasks("t", 2), tasks("v", 2)
    )
    assert [c.prompt for c in result.candidates] == ["x", "xa"]
    assert any("1 of 2 children" in note for note in result.rounds[1].notes)


async def test_observer_sees_every_round(tasks) -> None:
    seen: list[tuple[str, Any]] = []

    class Observer:
        def round_started(
            self, rnd: int, candidates: list[Candidate], train_tasks: int, val_tasks: int
        ) -> None:
            seen.append(("start", (rnd, len(candidates), train_tasks, val_tasks)))

        def round_finished(self, summary: RoundSummary, result: SearchResult) -> None:
            seen.append(("end", (summary.round, summary.rollouts)))

    world = PromptWorld({"a": 0.1})
    s = BeamSearch(
        world.score,
        world.propose,
        beam_width=2,
        branch_factor=2,
        rounds=1,
        train_batch_size=2,
        observer=Observer(),
    )
    await s.run("", tasks("t", 4), tasks("v", 3))
    # Round 0: the seed on 2 train + 3 val tasks; round 1: 2 children on the same sizes.
    assert seen == [("start", (0, 1, 2, 3)), ("end", (0, 5)), ("start", (1, 2, 2, 3)), ("end", (1, 10))]


async def test_needs_train_and_validation(tasks) -> None:
    world = PromptWorld({})
    with pytest.raises(ValueError, match="validation"):
        await search(world).run("", tasks("t", 2), [])
    with pytest.raises(ValueError, match="train"):
        await search(world).run("", [], tasks("v", 2))


def test_evaluation_per_tier(make_record) -> None:
    records = [
        make_record("e1", 1.0, difficulty="easy"),
        make_record("e1", 0.5, difficulty="easy", calls=[("get_schema", True, None)]),
        make_record("h1", 0.0, difficulty="hard", status="error"),
    ]
    ev = Evaluation.from_records("val", records)
    assert ev.n == 3 and ev.tasks == ["e1", "h1"]
    assert ev.score == pytest.approx(0.5)
    assert ev.tool_calls == pytest.approx(5 / 3)
    assert ev.tiers["easy"] == {"n": 2, "score": 0.75, "tool_calls": 1.5}
    assert ev.tiers["hard"]["score"] == 0.0
    assert "records" not in ev.to_json()

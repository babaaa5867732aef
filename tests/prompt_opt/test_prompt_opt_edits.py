"""Offline edit operators: each operator's effect, determinism, and ranking by rollout symptoms."""

from __future__ import annotations

import random

import pytest

from aspen_rl.agent.prompts import default_system_prompt
from aspen_rl.algorithms.prompt_opt.edits import (
    OPERATORS,
    OPERATORS_BY_NAME,
    RULES,
    RULES_BY_KEY,
    RULES_HEADER,
    EditProposer,
    rank_operators,
    split_rules,
    symptom_counts,
)
from aspen_rl.algorithms.prompt_opt.search import Candidate, Evaluation

BASE = default_system_prompt()


def test_every_rule_has_an_add_and_a_remove_operator() -> None:
    assert {op.name for op in OPERATORS} == {f"{a}_{r.key}" for r in RULES for a in ("add", "remove")}
    assert len({r.text for r in RULES}) == len(RULES)
    # The examples are among the rules.
    assert "fetch the schema first" in RULES_BY_KEY["schema_first"].text
    assert "State units explicitly" in RULES_BY_KEY["units"].text
    assert "table" in RULES_BY_KEY["table"].text


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.key)
def test_add_appends_the_rule_and_remove_takes_it_back(rule) -> None:
    add, remove = OPERATORS_BY_NAME[f"add_{rule.key}"], OPERATORS_BY_NAME[f"remove_{rule.key}"]
    added = add.apply(BASE)
    assert added is not None
    assert added == BASE.rstrip() + f"\n\n{RULES_HEADER}\n- {rule.text}\n"
    assert added.startswith(BASE.rstrip())  # the original prompt is untouched
    assert add.apply(added) is None  # already there
    assert remove.apply(BASE) is None  # nothing to remove
    assert remove.apply(added) == BASE.rstrip() + "\n"  # back to the original, section gone
    assert add.apply(added) is None and add.apply(BASE) == added  # deterministic


def test_rules_accumulate_in_order_and_remove_keeps_the_others() -> None:
    prompt = OPERATORS_BY_NAME["add_units"].apply(BASE)
    prompt = OPERATORS_BY_NAME["add_table"].apply(prompt)
    prompt = OPERATORS_BY_NAME["add_schema_first"].apply(prompt)
    base, bullets = split_rules(prompt)
    assert base == BASE.rstrip()
    assert bullets == [RULES_BY_KEY[k].text for k in ("units", "table", "schema_first")]
    assert prompt.count(RULES_HEADER) == 1
    removed = OPERATORS_BY_NAME["remove_table"].apply(prompt)
    assert split_rules(removed)[1] == [RULES_BY_KEY[k].text for k in ("units", "schema_first")]
    assert RULES_HEADER in removed


def test_add_is_not_applicable_when_the_text_is_already_in_the_prompt() -> None:
    prompt = "You drive a simulator.\n" + RULES_BY_KEY["valid_json"].text
    assert OPERATORS_BY_NAME["add_valid_json"].apply(prompt) is None
    # ...and remove only touches the rules section, never the prompt's own text.
    assert OPERATORS_BY_NAME["remove_valid_json"].apply(prompt) is None


def test_symptoms_are_read_from_the_rollouts(make_record) -> None:
    ok = make_record(
        calls=[("get_schema", True, None), ("run_simulation", True, None), ("get_result", True, None)]
    )
    assert symptom_counts([ok]) == {r.key: 0 for r in RULES}
    cases = {
        "schema_first": make_record(calls=[("run_simulation", True, None), ("get_result", True, None)]),
        "units": make_record(
            calls=[
                ("get_schema", True, None),
                ("run_simulation", False, "Invalid unit 'degC'"),
                ("get_result", True, None),
            ]
        ),
        "valid_json": make_record(
            calls=[
                ("get_schema", True, None),
                ("run_simulation", False, "config is not valid JSON: Expecting ','"),
                ("get_result", True, None),
            ]
        ),
        "no_repeats": make_record(
            calls=[
                ("get_schema", True, None),
                ("get_schema", True, None),
                ("run_simulation", True, None),
                ("get_result", True, None),
            ]
        ),
        "read_results": make_record(calls=[("get_schema", True, None), ("run_simulation", True, None)]),
        "table": make_record(
            calls=[("get_schema", True, None), ("run_simulation", True, None), ("get_result", True, None)],
            response_quality=0.4,
        ),
    }
    for key, record in cases.items():
        counts = symptom_counts([record])
        assert counts[key] == 1, key
        assert sum(counts.values()) == 1, (key, counts)


def test_ranking_puts_the_observed_symptom_first(make_record) -> None:
    skipped_schema = make_record(calls=[("run_simulation", True, None), ("get_result", True, None)])
    bad_units = make_record(calls=[("get_schema", True, None), ("run_simulation", False, "unknown unit 'K'")])
    records = [skipped_schema, skipped_schema, bad_units]
    for seed in range(5):
        ranked = rank_operators(BASE, records, random.Random(seed))
        assert ranked[0][0].name == "add_schema_first" and ranked[0][2] == 2
        # Equal counts (1 each) are ordered by the seeded permutation.
        assert {op.name for op, _, _ in ranked[1:3]} == {"add_units", "add_read_results"}
        assert [count for _, _, count in ranked] == [2, 1, 1] + [0] * (len(ranked) - 3)
        # Removals are never applicable to a prompt without rules.
        assert all(op.action == "add" for op, _, _ in ranked)


def parent(prompt: str, records: list, cid: str = "c0") -> Candidate:
    c = Candidate(id=cid, prompt=prompt, round=0, index=0)
    c.train = Evaluation.from_records("train", records)
    return c


def test_proposer_is_deterministic_and_skips_known_prompts(make_record) -> None:
    records = [make_record(calls=[("get_schema", True, None), ("run_simulation", True, None)])]
    p = parent(BASE, records)
    first = EditProposer(seed=3).propose(p, 3, 1, set())
    again = EditProposer(seed=3).propose(p, 3, 1, set())
    assert [(x.prompt, x.edit) for x in first] == [(x.prompt, x.edit) for x in again]
    assert first[0].edit == "add_read_results"  # the one symptom seen
    assert first[0].critique == "offline: 1 of 1 train rollouts showed no successful get_result call"
    assert all(x.origin == "edit" for x in first) and len({x.prompt for x in first}) == 3
    known = {first[0].prompt}
    skipped = EditProposer(seed=3).propose(p, 3, 1, known)
    assert first[0].prompt not in {x.prompt for x in skipped} and len(skipped) == 3


def test_proposer_uses_removals_once_rules_exist() -> None:
    prompt = BASE
    for key in (r.key for r in RULES):
        prompt = OPERATORS_BY_NAME[f"add_{key}"].apply(prompt)
    proposals = EditProposer(seed=0).propose(parent(prompt, []), 4, 2, set())
    assert len(proposals) == 4
    assert all(x.edit.startswith("remove_") for x in proposals)
    assert all(len(split_rules(x.prompt)[1]) == len(RULES) - 1 for x in proposals)


def test_a_header_inside_the_prompt_text_is_left_alone() -> None:
    prompt = f"Intro.\n{RULES_HEADER}\n- keep me\n\nA closing paragraph.\n"
    assert split_rules(prompt) == (prompt.rstrip(), [])
    added = OPERATORS_BY_NAME["add_table"].apply(prompt)
    assert added.startswith(prompt.rstrip()) and "A closing paragraph." in added
    assert split_rules(added) == (prompt.rstrip(), [RULES_BY_KEY["table"].text])
    assert OPERATORS_BY_NAME["remove_table"].apply(added) == prompt.rstrip() + "\n"

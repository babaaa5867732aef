"""Deterministic offline edit operators: new prompts without a model endpoint.

The operators only touch a rules section appended to the prompt::

    <the prompt as it was>

    Additional rules:
    - <rule>
    - <rule>

For every rule ``key`` in :data:`RULES` there are two operators:

* ``add_<key>``: append the rule as the last bullet (not applicable when the rule's text is already
  anywhere in the prompt);
* ``remove_<key>``: delete that bullet, and the section header when it was the last one (only
  applicable when the bullet is in the section).

The rules (see :data:`RULES` for the exact texts):

=============== =================================================================== ==========================
key             instruction                                                         symptom in a rollout
=============== =================================================================== ==========================
schema_first    fetch the schema of ``base`` and every block type first             no ``get_schema`` before
                                                                                     the first simulation
units           state every unit explicitly, in the configuration and the answer    an error mentioning units
valid_json      send ``run_simulation`` one valid JSON object                       an error mentioning JSON
no_repeats      never repeat a call; fix exactly the field an error names           the same call twice
read_results    read results with ``get_result`` and report only its numbers        no successful
                                                                                     ``get_result``
table           report the requested quantities in a quantity/value/unit table      response quality < 1
=============== =================================================================== ==========================

:class:`EditProposer` ranks the applicable operators for a parent by how many of the parent's train
rollouts show the symptom its rule addresses (an offline "gradient"; removals rank after additions
that address a seen symptom), breaks ties with a permutation seeded by ``(seed, round, parent id)``,
and returns the first ``n`` whose result is not a known prompt. Same inputs, same proposals.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aspen_rl.algorithms.prompt_opt.search import Candidate, Proposal
from aspen_rl.records import RolloutRecord

RULES_HEADER = "Additional rules:"
"""Header of the section the operators edit (always the end of the prompt)."""


@dataclass(frozen=True)
class Rule:
    """An instruction the operators can add or remove, and the rollout symptom it addresses."""

    key: str
    text: str
    symptom: str
    shows_symptom: Callable[[RolloutRecord], bool]


def _errors(record: RolloutRecord) -> str:
    parts = [record.error or "", *(c.error or "" for c in record.tool_calls)]
    return " ".join(parts).lower()


def _no_schema_first(record: RolloutRecord) -> bool:
    names = [c.name for c in record.tool_calls]
    if "run_simulation" not in names:
        return "get_schema" not in names
    return "get_schema" not in names[: names.index("run_simulation")]


def _repeated_call(record: RolloutRecord) -> bool:
    seen = [(c.name, c.arguments) for c in record.tool_calls]
    return len(seen) != len(set(seen))


def _no_results_read(record: RolloutRecord) -> bool:
    return not any(c.name == "get_result" and c.ok for c in record.tool_calls)


RULES: tuple[Rule, ...] = (
    Rule(
        "schema_first",
        'Always fetch the schema first: call get_schema with "base" and every block type the process '
        "uses before you write the configuration.",
        "no get_schema call before the first simulation",
        _no_schema_first,
    ),
    Rule(
        "units",
        "State units explicitly: give every temperature, pressure and flow in the configuration with its "
        "unit field (C, bar, kmol/hr, kW...), and write the unit next to every number you report.",
        "an error about units",
        lambda r: "unit" in _errors(r),
    ),
    Rule(
        "valid_json",
        "Pass run_simulation exactly one valid JSON object: double-quoted keys and strings, no comments, "
        "no trailing commas.",
        "an error about malformed JSON",
        lambda r: "json" in _errors(r),
    ),
    Rule(
        "no_repeats",
        "Never repeat a tool call whose answer you already have; after a failed simulation, change only "
        "the field the error message names, then run again.",
        "the same tool call made twice",
        _repeated_call,
    ),
    Rule(
        "read_results",
        "Always read the results with get_result using the result_file_path the simulation returned, and "
        "report only numbers taken from them.",
        "no successful get_result call",
        _no_results_read,
    ),
    Rule(
        "table",
        "Report the requested quantities in a Markdown table with the columns quantity, value and unit.",
        "an incomplete or unstructured answer (response quality < 1)",
        lambda r: r.status == "ok" and r.reward.response_quality < 1.0 - 1e-9,
    ),
)
RULES_BY_KEY = {rule.key: rule for rule in RULES}


def split_rules(prompt: str) -> tuple[str, list[str]]:
    """The prompt before the rules section, and the section's bullets (without ``- ``)."""
    head, sep, tail = prompt.rpartition(RULES_HEADER)
    lines = [line for line in tail.splitlines() if line.strip()]
    if not sep or not all(line.startswith("- ") for line in lines):
        return prompt.rstrip(), []  # no section at the end: the header text belongs to the prompt
    return head.rstrip(), [line[2:].strip() for line in lines]


def join_rules(base: str, bullets: Sequence[str]) -> str:
    """Rebuild a prompt from its base and its rules (no section when there are none)."""
    if not bullets:
        return base.rstrip() + "\n"
    return base.rstrip() + "\n\n" + RULES_HEADER + "\n" + "".join(f"- {b}\n" for b in bullets)


@dataclass(frozen=True)
class EditOperator:
    """``add_<key>`` or ``remove_<key>`` of one rule."""

    action: str
    rule: Rule

    @property
    def name(self) -> str:
        """Operator name, e.g. ``add_units``."""
        return f"{self.action}_{self.rule.key}"

    def apply(self, prompt: str) -> str | None:
        """The edited prompt, or ``None`` when the operator does not apply to ``prompt``."""
        base, bullets = split_rules(prompt)
        if self.action == "add":
            if self.rule.text in prompt:
                return None
            return join_rules(base, [*bullets, self.rule.text])
        if self.rule.text not in bullets:
            return None
        return join_rules(base, [b for b in bullets if b != self.rule.text])


OPERATORS: tuple[EditOperator, ...] = tuple(
    EditOperator(action, rule) for rule in RULES for action in ("add", "remove")
)
OPERATORS_BY_NAME = {op.name: op for op in OPERATORS}


def symptom_counts(records: Sequence[RolloutRecord]) -> dict[str, int]:
    """For each rule key, how many of ``records`` show the symptom the rule addresses (rollouts the
    infrastructure failed show nothing about the prompt and are not counted)."""
    judged = [r for r in records if not r.infrastructure_failed]
    return {rule.key: sum(1 for r in judged if rule.shows_symptom(r)) for rule in RULES}


def rank_operators(
    prompt: str, records: Sequence[RolloutRecord], rng: random.Random
) -> list[tuple[EditOperator, str, int]]:
    """Applicable operators, most relevant first: ``(operator, edited prompt, symptom count)``.

    Additions are ranked by the number of rollouts showing their rule's symptom; removals count 0
    (exploration). Ties follow a permutation drawn from ``rng``.
    """
    counts = symptom_counts(records)
    order = list(OPERATORS)
    rng.shuffle(order)
    ranked: list[tuple[int, int, EditOperator, str]] = []
    for position, op in enumerate(order):
        edited = op.apply(prompt)
        if edited is None:
            continue
        relevance = counts[op.rule.key] if op.action == "add" else 0
        ranked.append((-relevance, position, op, edited))
    ranked.sort(key=lambda item: (item[0], item[1]))
    return [(op, edited, -neg) for neg, _, op, edited in ranked]


class EditProposer:
    """Proposes children with the offline edit operators (deterministic for a given seed).

    Args:
        seed: Seed of the tie-breaking order.
    """

    name = "offline edit operators"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    async def __call__(self, parent: Candidate, n: int, round: int, known: set[str]) -> list[Proposal]:
        """Up to ``n`` edits of ``parent`` that are not in ``known``."""
        return self.propose(parent, n, round, known)

    def propose(self, parent: Candidate, n: int, round: int, known: set[str]) -> list[Proposal]:
        """Synchronous form of :meth:`__call__`."""
        records = parent.train.records if parent.train else []
        rng = random.Random(f"{self.seed}:{round}:{parent.id}")
        proposals: list[Proposal] = []
        for op, edited, count in rank_operators(parent.prompt, records, rng):
            if len(proposals) == n:
                break
            if edited in known:
                continue
            proposals.append(Proposal(edited, "edit", op.name, _diagnosis(op, count, len(records))))
        return proposals


def _diagnosis(op: EditOperator, count: int, total: int) -> str:
    if op.action == "remove":
        return f"offline: exploration, drop the rule '{op.rule.key}'"
    return f"offline: {count} of {total} train rollouts showed {op.rule.symptom}"

"""The compact schema rendering keeps every field, value and requirement, and fits its budget."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from aspen_rl.contract.schema_view import LEGEND, render_level, render_part, render_schemas
from simulator_mock.flowsheet.schema_registry import SCHEMA_PARTS, schema


def _names_and_values(node: Any) -> Iterator[str]:
    """Every property name, pattern and enum value of a schema, at any depth."""
    if isinstance(node, dict):
        for key in ("properties", "patternProperties"):
            for name, spec in (node.get(key) or {}).items():
                yield name
                yield from _names_and_values(spec)
        for value in node.get("enum", []) or []:
            yield str(value)
        for key, value in node.items():
            if key not in ("properties", "patternProperties", "enum", "enumDescriptions"):
                yield from _names_and_values(value)
    elif isinstance(node, list):
        for item in node:
            yield from _names_and_values(item)


def _expanded(text: str) -> str:
    """``text`` as a reader resolves it: named patterns and lists written out, each shared-shape line
    (``A|B: {X_VALUE: num}``) once per name with ``X`` replaced by it."""
    names: dict[str, str] = {}
    lines = []
    for line in text.splitlines():
        if line.startswith(("Patterns: ", "Lists: ")):
            for entry in line.split(": ", 1)[1].split("; "):
                name, _, value = entry.partition(" = ")
                names[name] = value.strip("/") if name.startswith("P") else value
            continue
        for name, value in names.items():
            line = re.sub(rf"~{name}(?![0-9])", f"~/{value}/", line) if name.startswith("P") else line
            line = re.sub(rf"(?<=: ){name}(?![0-9])", value, line) if name.startswith("L") else line
        shared = re.match(r"^(\s*)([A-Z0-9_]+(?:\|[A-Z0-9_]+)+)(\*?): (.*)$", line)
        if shared and re.search(r"(?<![A-Za-z0-9_])X(?![A-Za-z0-9])", shared.group(4)):
            indent, group, star, rest = shared.groups()
            for name in group.split("|"):
                lines.append(
                    f"{indent}{name}{star}: " + re.sub(r"(?<![A-Za-z0-9_])X(?![A-Za-z0-9])", name, rest)
                )
        else:
            lines.append(line)
    return "\n".join(lines)


@pytest.mark.parametrize("part", SCHEMA_PARTS)
def test_every_field_and_allowed_value_survives_compaction(part: str) -> None:
    document = schema(part)
    text = _expanded(render_level({part: document}, level=0))
    missing = sorted({n for n in _names_and_values(document) if n not in text})
    assert not missing, f"{part}: lost in the compact rendering: {missing[:10]}"
    assert len(text) < len(json.dumps(document, ensure_ascii=False))


def test_required_conditional_and_stray_fields_are_rendered() -> None:
    # Shaped like the real service's documents: a wrapper keyed by the config section, a field that
    # sits beside "properties" (the service reads it although no validator checks it), if/then rules.
    part = {
        "blocks_Heater_data": {
            "type": "object",
            "patternProperties": {
                "^[A-Z][0-9A-Z]*$": {
                    "type": "object",
                    "required": ["SPEC_DATA"],
                    "properties": {
                        "SPEC_DATA": {
                            "type": "object",
                            "required": ["SPEC_OPT"],
                            "properties": {
                                "SPEC_OPT": {"type": "string", "enum": ["TP", "PV"]},
                                "TEMP_VALUE": {"type": "number"},
                                "VFRAC_VALUE": {"type": "number", "minimum": 0, "maximum": 1},
                                "PRES_UNITS": {"type": "string", "default": "bar"},
                            },
                            "allOf": [
                                {
                                    "if": {"properties": {"SPEC_OPT": {"const": "TP"}}},
                                    "then": {"required": ["TEMP_VALUE", "PRES_UNITS"]},
                                }
                            ],
                        }
                    },
                    "flow": {"type": "object", "properties": {"FLOWBASE": {"enum": ["MOLE", "MASS"]}}},
                }
            },
        }
    }
    text = render_part("Heater", part, level=1)
    assert "<key ~/^[A-Z][0-9A-Z]*$/>" in text
    assert "SPEC_DATA*:" in text
    assert 'SPEC_OPT*: TP|PV; TEMP_VALUE: num; VFRAC_VALUE: num[0..1]; PRES_UNITS: str ="bar"' in text
    assert "required by SPEC_OPT: TP: TEMP_VALUE, PRES_UNITS" in text
    assert "flow: {FLOWBASE: MOLE|MASS}" in text


def test_value_and_units_pairs_and_given_rules_are_condensed() -> None:
    part = {
        "type": "object",
        "properties": {
            "OPT": {"enum": ["A", "B"]},
            "TEMP_VALUE": {"type": "number"},
            "TEMP_UNITS": {"enum": ["C", "K"]},
            "FRAC": {
                "type": "object",
                "additionalProperties": {"type": "object", "properties": {"V": {"type": "number"}}},
            },
        },
        "allOf": [
            {
                "if": {"properties": {"OPT": {"const": "A"}}},
                "then": {"required": ["TEMP_VALUE", "TEMP_UNITS"]},
            },
            {"if": {"properties": {"OPT": {"const": "B"}}}, "then": {"required": ["FRAC"]}},
            {"if": {"required": ["TEMP_VALUE"]}, "then": {"required": ["TEMP_UNITS"]}},
        ],
    }
    text = render_part("X", part, level=0)
    assert "required by OPT: A: TEMP | B: FRAC" in text  # a stem: its value and its units
    assert "needs" not in text  # "a given value needs its units" is said once, in the legend
    assert "FRAC: {<any key>: {V: num}}" in text


def test_values_needing_the_same_fields_share_a_case_and_same_shaped_siblings_a_line() -> None:
    needs = {
        "TP": ["TEMP_VALUE", "TEMP_UNITS", "PRES_VALUE", "PRES_UNITS"],
        "PD": ["PRES_VALUE", "DUTY_VALUE"],
    }
    needs["TPX"] = list(reversed(needs["TP"]))  # the same fields in another order
    keyed = {"additionalProperties": {"type": "object", "properties": {"NAME_VALUE": {"type": "number"}}}}
    part = {
        "type": "object",
        "properties": {
            "OPT": {"enum": list(needs)},
            **{n: {"type": "number"} for n in ("TEMP_VALUE", "PRES_VALUE", "DUTY_VALUE")},
            **{n: {"enum": ["C", "K"]} for n in ("TEMP_UNITS", "PRES_UNITS")},
            **{name: json.loads(json.dumps(keyed).replace("NAME", name)) for name in ("FRAC", "R_FRAC")},
            "ORDER": keyed,  # holds NAME_VALUE, not ORDER_VALUE: another shape
        },
        "allOf": [
            {"if": {"properties": {"OPT": {"const": v}}}, "then": {"required": need}}
            for v, need in needs.items()
        ],
    }
    text = render_part("X", part, level=0)
    assert "required by OPT: TP|TPX: TEMP, PRES | PD: PRES_VALUE, DUTY_VALUE" in text
    assert "FRAC|R_FRAC: {<any key>: {X_VALUE: num}}" in text
    assert "ORDER: {<any key>: {NAME_VALUE: num}}" in text
    expanded = _expanded(text)
    assert "FRAC: {<any key>: {FRAC_VALUE: num}}" in expanded
    assert "R_FRAC: {<any key>: {R_FRAC_VALUE: num}}" in expanded


def test_repeated_patterns_and_choice_lists_are_named_once() -> None:
    parts = {name: schema(name) for name in ("Heater", "Flash2", "Valve", "base")}
    text = render_level(parts, level=0)
    block_key = "^[A-Z][0-9A-Z]*$"
    assert f"P1 = /{block_key}/" in text and text.count(block_key) == 1
    assert text.count("<key ~P1>") >= 3
    assert "L1 = bar|kPa|MPa|atm|N/sqm" in text and text.count("bar|kPa|MPa|atm|N/sqm") == 1
    assert "PRES_UNITS: L1" in text
    # nothing is lost: written out again, the rendering is the one without names
    plain = "\n".join(render_part(n, parts[n], 0) for n in parts)
    assert _expanded(text) == LEGEND + "\n" + plain


def test_budget_picks_the_richest_level_that_fits_then_cuts_with_a_note() -> None:
    parts = {name: schema(name) for name in SCHEMA_PARTS}
    full = render_schemas(parts)
    assert full.startswith(LEGEND)
    bare = render_level(parts, 0)
    assert len(bare) <= len(full)
    assert render_schemas(parts, max_chars=len(bare)) == bare

    budget = len(bare) // 3
    cut = render_schemas(parts, max_chars=budget)
    assert len(cut) <= budget
    assert cut.rstrip().endswith("]")
    assert "not shown:" in cut and "RadFrac" in cut.split("not shown:")[1]

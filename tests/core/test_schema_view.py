"""The compact schema rendering keeps every field, value and requirement, and fits its budget."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from aspen_rl.contract.schema_view import LEGEND, render_part, render_schemas
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


@pytest.mark.parametrize("part", SCHEMA_PARTS)
def test_every_field_and_allowed_value_survives_compaction(part: str) -> None:
    document = schema(part)
    text = render_part(part, document, level=0)
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
    assert "required by OPT: A: TEMP_VALUE+UNITS | B: FRAC" in text
    assert "if given: TEMP_VALUE needs TEMP_UNITS" in text
    assert "FRAC: {<any key>: {V: num}}" in text


def test_budget_picks_the_richest_level_that_fits_then_cuts_with_a_note() -> None:
    parts = {name: schema(name) for name in SCHEMA_PARTS}
    full = render_schemas(parts)
    assert full.startswith(LEGEND)
    bare = LEGEND + "\n" + "\n".join(render_part(n, parts[n], 0) for n in parts)
    assert len(bare) <= len(full)
    assert render_schemas(parts, max_chars=len(bare)) == bare

    budget = len(bare) // 3
    cut = render_schemas(parts, max_chars=budget)
    assert len(cut) <= budget
    assert cut.rstrip().endswith("]")
    assert "not shown:" in cut and "RadFrac" in cut.split("not shown:")[1]

"""JSON Schemas: well-formed, consistent with the unit table, and the validator's error types and paths."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft7Validator

from simulator_mock import SimulationError, run_config
from simulator_mock.examples import EXAMPLES, heater, recycle
from simulator_mock.flowsheet.blocks import BLOCK_CLASSES
from simulator_mock.flowsheet.schema_registry import (
    BLOCK_TYPES,
    SCHEMA_PARTS,
    SECTION_PARTS,
    schema,
    section_schema,
    validate_config,
)
from simulator_mock.properties.units import CONFIG_UNITS


def _unit_enums(node: Any, path: str = "") -> list[tuple[str, list[str]]]:
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("_UNITS") and isinstance(value, dict) and "enum" in value:
                found.append((f"{path}.{key}", value["enum"]))
            found.extend(_unit_enums(value, f"{path}.{key}"))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            found.extend(_unit_enums(value, f"{path}[{k}]"))
    return found


@pytest.mark.parametrize("part", SCHEMA_PARTS)
def test_schema_parts_are_valid_and_documented(part: str) -> None:
    document = section_schema(part)
    Draft7Validator.check_schema(document)
    assert len(document["description"]) > 80
    if part in SECTION_PARTS:  # reactions, design_specs, convergence: a document of their own, as served
        assert list(schema(part)) == [part]
        assert part not in schema("base")["properties"]
    elif part != "base":  # a block part wraps its section under the config key, as the real documents do
        assert list(schema(part)) == [f"blocks_{part}_data"]


def test_every_block_type_has_a_model_and_a_part() -> None:
    assert set(BLOCK_TYPES) == set(BLOCK_CLASSES)
    assert set(SCHEMA_PARTS) == {"base", *BLOCK_TYPES, "reactions", "design_specs", "convergence"}
    assert schema("base")["properties"]["blocks"]["items"]["properties"]["type"]["enum"] == list(BLOCK_TYPES)


def test_unit_enums_match_the_unit_table() -> None:
    writable = [set(units) for units in CONFIG_UNITS.values()]
    flows = set(CONFIG_UNITS["molar_flow"]) | set(CONFIG_UNITS["mass_flow"])
    for part in SCHEMA_PARTS:
        for path, enum in _unit_enums(schema(part)):
            if path.endswith(".U_UNITS"):  # heat-transfer coefficient: converted by HeatX itself
                continue
            units = set(enum) - {""}  # '' = no unit (fractions)
            assert any(units <= known for known in writable) or units <= flows, f"{part}{path}: {enum}"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_are_schema_valid(name: str) -> None:
    validate_config(EXAMPLES[name]())


def _error(config: dict[str, Any]) -> SimulationError:
    with pytest.raises(SimulationError) as info:
        validate_config(config)
    return info.value


def test_missing_required_field_names_its_path() -> None:
    config = heater()
    del config["blocks_Heater_data"]["H1"]["SPEC_DATA"]["PRES_VALUE"]
    error = _error(config)
    assert error.error_type == "SchemaValidationError"
    assert error.message.startswith("blocks_Heater_data.H1.SPEC_DATA")
    assert "PRES_VALUE" in error.message


def test_wrong_type_and_unknown_key() -> None:
    config = heater()
    config["stream_data"]["FEED-1"]["temperature"]["TEMP_VALUE"] = "hot"
    error = _error(config)
    assert error.error_type == "SchemaValidationError"
    assert "stream_data.FEED-1.temperature.TEMP_VALUE" in error.message
    # an unknown top-level key is allowed by the real schema and ignored by the service: a warning names it
    config = heater()
    config["stream_dat"] = {}
    validate_config(config)
    assert any(w.startswith("stream_dat:") for w in run_config(config)["warnings"])


def test_enum_failures_get_specific_error_types() -> None:
    config = heater()
    config["blocks_Heater_data"]["H1"]["SPEC_DATA"]["TEMP_UNITS"] = "degC"
    error = _error(config)
    assert (error.error_type, error.status) == ("UnknownUnit", 400)
    assert "blocks_Heater_data.H1.SPEC_DATA.TEMP_UNITS" in error.message and "'C'" in error.message
    config = heater()
    config["property_methods"][0]["method_name"] = "WILSON-XYZ"
    assert _error(config).error_type == "UnknownPropertyMethod"
    config = heater()
    config["property_methods"][0]["method_name"] = "CHAO-SEA"  # every method of the real enum is modelled
    assert run_config(config)["streams"]["PROD-1"]["temperature_C"] == pytest.approx(80.0)
    config = heater()
    config["blocks"][0]["type"] = "RGibbs"
    assert _error(config).error_type == "UnsupportedBlockType"
    config = heater()
    config["blocks_RGibbs_data"] = {"H1": {}}
    assert _error(config).error_type == "UnsupportedBlockType"


def test_validation_runs_before_simulation() -> None:
    config = copy.deepcopy(heater())
    config["components"] = []
    with pytest.raises(SimulationError) as info:
        run_config(config)
    assert info.value.error_type == "SchemaValidationError"
    assert "components" in info.value.message


def test_schema_files_are_what_the_generator_writes() -> None:
    from simulator_mock.flowsheet.schemas import generate

    for name, document in generate.documents().items():
        assert schema(name) == json.loads(json.dumps(document)), f"{name}.json is stale: run the generator"


def test_served_schema_is_the_file() -> None:
    from simulator_mock.flowsheet.schema_registry import SCHEMA_DIR

    assert sorted(p.stem for p in SCHEMA_DIR.glob("*.json")) == sorted(SCHEMA_PARTS)
    for part in SCHEMA_PARTS:
        assert json.loads((SCHEMA_DIR / f"{part}.json").read_text()) == schema(part)


_KNOB = re.compile(r"(MAXIT|maxit|(^|_)TOL(_|$)|^tol$|_tol$|NSTAGE)")


def _knobs(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        for key in ("properties", "patternProperties"):
            for name, spec in (node.get(key) or {}).items():
                numeric = isinstance(spec, dict) and spec.get("type") in ("number", "integer")
                if numeric and _KNOB.search(name):
                    yield f"{path}.{name}", spec
                yield from _knobs(spec, f"{path}.{name}")
        for key, value in node.items():
            if key not in ("properties", "patternProperties"):
                yield from _knobs(value, path)
    elif isinstance(node, list):
        for item in node:
            yield from _knobs(item, path)


@pytest.mark.parametrize("part", SCHEMA_PARTS)
def test_every_iteration_and_tolerance_knob_is_bounded(part: str) -> None:
    """Work per run is bounded by the schema too: no 1e-300 tolerance, no million iterations."""
    knobs = dict(_knobs(schema(part)))
    for path, spec in knobs.items():
        assert "minimum" in spec and "maximum" in spec, f"{part}{path} has no bounds"
        assert spec["minimum"] > 0, f"{part}{path}: {spec}"
        if spec["type"] == "integer":  # iteration caps and stage counts
            assert spec["maximum"] <= 1000, f"{part}{path}: {spec}"


def test_a_vanishing_tear_tolerance_is_refused_before_any_work() -> None:
    config = recycle("DIRECT")
    config["convergence"]["conv_options"].update(tol=1e-300, dir_maxit=10**6)
    with pytest.raises(SimulationError) as info:
        validate_config(config)
    assert "conv_options" in info.value.message

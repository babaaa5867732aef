"""Every config the mock accepts as valid also passes the real Aspen service's own schema files.

Opt-in: the real files are not ours to ship. Point ``ASPEN_REAL_SCHEMA_DIR`` at the ``schema/`` folder of a
checkout of yingchen03-max/repo-aspen-server (``base_schema.json``, ``blocks_<Type>_data.json``,
``reactions.json``, ``design_specs.json``, ``convergence.json``) to run it; without it every case is skipped.

Checked with Draft-07, each section of a config against the file that defines it, with the two exceptions
docs/dialect_decisions.md documents: RadFrac's section-level ``required`` is left out, and the HeatX
``H(IN)``/``H(OUT)``/``C(IN)``/``C(OUT)``, DSTWU ``D(OUT)`` and Extract ``S(IN)`` ports are outside the real
port enum.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator
from test_sim_dialect_corpus import VALID

from aspen_rl.tasks import SPLITS, load_split, load_tasks

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = os.environ.get("ASPEN_REAL_SCHEMA_DIR")
pytestmark = pytest.mark.skipif(not SCHEMA_DIR, reason="ASPEN_REAL_SCHEMA_DIR is not set (opt-in check)")

#: Ports the mock accepts that the real port enum does not list (documented decisions; Extract's solvent).
EXTRA_PORTS = {"H(IN)", "H(OUT)", "C(IN)", "C(OUT)", "D(OUT)", "S(IN)"}
#: Config sections defined by their own file (the rest by base_schema.json).
OWN_FILE = {
    "reactions": "reactions.json",
    "design_specs": "design_specs.json",
    "convergence": "convergence.json",
}


@cache
def _document(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((Path(SCHEMA_DIR or ".") / name).read_text(encoding="utf-8"))
    if name == "blocks_RadFrac_data.json":
        document["blocks_RadFrac_data"].pop("required", None)  # forbidden keys required on the section
    return document


def _errors(config: dict[str, Any]) -> list[str]:
    base = _document("base_schema.json")
    base_keys = set(base["properties"])
    errors: list[str] = []
    base_part = {k: v for k, v in config.items() if k in base_keys}
    for error in Draft7Validator(base).iter_errors(base_part):
        if error.validator == "enum" and error.instance in EXTRA_PORTS:
            continue
        errors.append(f"{'/'.join(map(str, error.absolute_path))}: {error.message}")
    for key, value in config.items():
        if key in base_keys:
            continue
        name = OWN_FILE.get(key, f"{key}.json")
        if not (Path(SCHEMA_DIR or ".") / name).is_file():
            errors.append(f"{key}: no real schema file {name}")
            continue
        schema = _document(name)
        wrapper = {"type": "object", "properties": schema}
        for error in Draft7Validator(wrapper).iter_errors({key: value}):
            errors.append(f"{'/'.join(map(str, error.absolute_path))}: {error.message}")
    return errors


@pytest.mark.parametrize("name", sorted(VALID))
def test_corpus_config_passes_the_real_schema(name: str) -> None:
    assert _errors(VALID[name]()) == []


def _shipped() -> list[Any]:
    tasks = [task for split in SPLITS for task in load_split(split)]
    return tasks + load_tasks(ROOT / "data" / "extra.jsonl")


@pytest.mark.parametrize("task", _shipped(), ids=lambda task: task.task_id)
def test_shipped_reference_config_passes_the_real_schema(task: Any) -> None:
    assert _errors(task.reference_config) == []

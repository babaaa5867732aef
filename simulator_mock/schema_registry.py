"""JSON Schemas of the config (base part + one per block type): loading, serving and validating."""

from __future__ import annotations

import json
import math
import sys
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError, best_match

from simulator_mock.errors import (
    InvalidNumberError,
    MalformedRequestError,
    SchemaValidationError,
    SimulationError,
    UnsupportedBlockTypeError,
    UnsupportedOptionError,
)

#: Block types with a model, in the order the schema list shows them.
BLOCK_TYPES: tuple[str, ...] = (
    "Mixer",
    "FSplit",
    "Heater",
    "Pump",
    "Valve",
    "Compr",
    "Flash2",
    "Sep",
    "HeatX",
    "RStoic",
    "DSTWU",
    "RadFrac",
)
SCHEMA_PARTS: tuple[str, ...] = ("base", *BLOCK_TYPES)
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
_MAX_MESSAGE = 600


@cache
def schema(part: str) -> dict[str, Any]:
    """The JSON Schema of one part (``base`` or a block type), as served by /api/schema."""
    if part not in SCHEMA_PARTS:
        raise KeyError(part)
    return json.loads((SCHEMA_DIR / f"{part}.json").read_text(encoding="utf-8"))


def section_schema(part: str) -> dict[str, Any]:
    """The JSON Schema a config is validated against for one part: the whole ``base`` document, or the
    ``blocks_<Type>_data`` section schema a block part wraps (as the real service's documents do)."""
    document = schema(part)
    return document if part == "base" else document[f"blocks_{part}_data"]


@cache
def _validator(part: str) -> Draft7Validator:
    return Draft7Validator(section_schema(part))


def parse_body(body: bytes) -> dict[str, Any]:
    """Decode a request body into a config dict.

    Raises:
        MalformedRequestError: not UTF-8 JSON, or not a JSON object.
        InvalidNumberError: NaN or an infinite number anywhere in it.
    """
    try:
        config = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedRequestError(f"request body is not valid JSON: {exc}") from None
    except ValueError as exc:  # e.g. an integer literal longer than Python's 4300-digit limit
        raise MalformedRequestError(f"request body has a number the service cannot read: {exc}") from None
    except RecursionError:
        raise MalformedRequestError("request body is nested too deeply") from None
    if not isinstance(config, dict):
        raise MalformedRequestError(f"request body must be a JSON object, got {type(config).__name__}")
    check_finite(config)
    return config


def check_finite(value: Any, path: str = "") -> None:
    """Raise InvalidNumberError naming the first NaN / infinite number found in ``value``."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise InvalidNumberError(f"{where or '<root>'}: {item} is not a finite number")
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) > sys.float_info.max:
            raise InvalidNumberError(
                f"{where or '<root>'}: integer too large for a number ({len(str(item))} digits)"
            )
        if isinstance(item, dict):
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(item))


#: Top-level sections of the real schema that the mock does not simulate (a non-empty one is refused).
UNSIMULATED_SECTIONS: tuple[str, ...] = ("reactions", "design_specs", "henry_components")


def validate_config(config: dict[str, Any]) -> None:
    """Validate a config against the base part and the part of every blocks_<Type>_data section.

    The real service never validates; it writes each field into Aspen. The mock's schema documents are the
    real ones with their quirks resolved the way the service and Aspen behave (docs/dialect_decisions.md),
    so validating against them refuses what the real service could not write or Aspen could not run.

    Raises:
        SchemaValidationError (or UnknownUnit / UnknownPropertyMethod / UnsupportedBlockType for those
        fields): the first problem found, with its dotted path. UnsupportedOptionError: a non-empty
        reactions, design_specs or henry_components section.
    """
    check_finite(config)
    _raise_first(_validator("base").iter_errors(config), prefix=())
    for key in UNSIMULATED_SECTIONS:
        if config.get(key):
            raise UnsupportedOptionError(
                f"{key}: the mock does not simulate the {key} section yet; remove it or leave it empty"
            )
    for key, section in config.items():
        if not (key.startswith("blocks_") and key.endswith("_data")):
            continue
        block_type = key[len("blocks_") : -len("_data")]
        if block_type not in BLOCK_TYPES:
            raise UnsupportedBlockTypeError(
                f"{key}: no block type {block_type!r}; supported: {', '.join(BLOCK_TYPES)}"
            )
        _raise_first(_validator(block_type).iter_errors(section), prefix=(key,))


def _raise_first(errors: Any, prefix: tuple[Any, ...]) -> None:
    errors = list(errors)
    if not errors:
        return
    error = best_match(errors)
    path = _dotted((*prefix, *error.absolute_path))
    message = error.message if len(error.message) <= _MAX_MESSAGE else error.message[:_MAX_MESSAGE] + "..."
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    raise _typed(error, path)(f"{path or '<root>'}: {message}{more}")


def _typed(error: ValidationError, path: str) -> type[SimulationError]:
    """Error class for a schema failure: enum failures on units, methods and block types get their own
    type."""
    if error.validator == "enum":
        last = str(error.absolute_path[-1]) if error.absolute_path else ""
        if last.endswith("_UNITS"):
            return _named("UnknownUnit")
        if last == "method_name":
            return _named("UnknownPropertyMethod")
        if last == "type" and path.startswith("blocks["):
            return UnsupportedBlockTypeError
    return SchemaValidationError


@cache
def _named(error_type: str) -> type[SimulationError]:
    return type(error_type + "SchemaError", (SchemaValidationError,), {"error_type": error_type})


def _dotted(parts: tuple[Any, ...]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out

"""JSON Schemas of the config (base, one per block type, reactions / design_specs / convergence): loading,
serving and validating."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
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
from simulator_mock.flowsheet.blocks import BLOCK_CLASSES

#: Block types with a model, in the order the schema list shows them (derived from the block classes).
BLOCK_TYPES: tuple[str, ...] = tuple(BLOCK_CLASSES)
#: Top-level config sections with a document of their own, as on the real service (category ``other``).
SECTION_PARTS: tuple[str, ...] = ("reactions", "design_specs", "convergence")
SCHEMA_PARTS: tuple[str, ...] = ("base", *BLOCK_TYPES, *SECTION_PARTS)
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
_MAX_MESSAGE = 600


@cache
def schema(part: str) -> dict[str, Any]:
    """The JSON Schema document of one part (base, a block type or a section), as /api/schema serves it."""
    if part not in SCHEMA_PARTS:
        raise KeyError(part)
    return json.loads((SCHEMA_DIR / f"{part}.json").read_text(encoding="utf-8"))


#: How the real service names its schema files: ``base_schema.json`` and ``blocks_<Type>_data.json``.
BASE_FILE = "base_schema.json"


def served_file_name(packaged_name: str) -> str:
    """The real service's name for a packaged schema file: ``Heater.json`` -> ``blocks_Heater_data.json``."""
    stem = packaged_name[: -len(".json")] if packaged_name.endswith(".json") else packaged_name
    if stem == "base":
        return BASE_FILE
    if stem in BLOCK_TYPES:
        return f"blocks_{stem}_data.json"
    return packaged_name


@dataclass(frozen=True)
class SchemaFile:
    """One served schema document: its file name, size on disk (bytes) and parsed content.

    A file that is not valid JSON is served the way the real service serves it: its content is
    ``{"error": "读取文件失败: <reason>", "file": <path>}``.
    """

    name: str
    size: int
    content: Any

    @property
    def stem(self) -> str:
        return self.name[: -len(".json")]


class SchemaCatalog:
    """The schema documents /api/schema and /api/schema/list serve, looked up as the real service does.

    The real service globs ``*.json`` in its schema folder on Windows, so file names match without
    regard to case and list in the file system's (case-insensitive) order; this catalog does the same
    over a fixed set of files read at start-up, so no request can reach a file outside it.
    """

    def __init__(self, files: list[SchemaFile]) -> None:
        self.files = sorted(files, key=lambda f: f.name.upper())
        self._by_name = {f.name.lower(): f for f in self.files}

    @classmethod
    def from_dir(cls, directory: Path, rename: bool = False) -> SchemaCatalog:
        """Every ``*.json`` file of ``directory``; ``rename`` maps packaged names to the real ones.

        Raises:
            FileNotFoundError: ``directory`` is not a folder.
        """
        if not directory.is_dir():
            raise FileNotFoundError(f"schema folder {directory} does not exist")
        files = []
        for path in directory.glob("*.json"):
            if not path.is_file():
                continue
            raw = path.read_bytes()
            try:
                content: Any = json.loads(raw)
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                content = {"error": f"读取文件失败: {exc}", "file": str(path)}
            name = served_file_name(path.name) if rename else path.name
            files.append(SchemaFile(name, len(raw), content))
        return cls(files)

    @classmethod
    def packaged(cls) -> SchemaCatalog:
        """The mock's own schema documents, served under the real service's file names."""
        return cls.from_dir(SCHEMA_DIR, rename=True)

    def file(self, name: str) -> SchemaFile | None:
        """The file called ``name`` (case-insensitive, as on the real service's Windows file system)."""
        return self._by_name.get(name.lower())

    def lookup(self, requested: str) -> tuple[str, SchemaFile] | None:
        """(key in the answer, file) for one requested type, or None when no file matches.

        ``base`` (any case) is ``base_schema.json`` under the key ``base``; any other type ``T`` is the first
        of ``blocks_T_data.json``, ``T.json``, ``blocks_T.json`` under the key ``T`` as requested.
        """
        if requested.lower() == "base":
            found = self.file(BASE_FILE)
            return ("base", found) if found else None
        for name in (f"blocks_{requested}_data.json", f"{requested}.json", f"blocks_{requested}.json"):
            found = self.file(name)
            if found is not None:
                return requested, found
        return None

    def stems(self) -> list[str]:
        """The file names without ``.json``, in listing order (what ``types=all`` requests)."""
        return [f.stem for f in self.files]

    def entries(self) -> list[dict[str, Any]]:
        """``type``, ``file``, ``category``, ``description``, ``size`` of every file, unsorted."""
        out = []
        for f in self.files:
            if f.stem == BASE_FILE[: -len(".json")]:
                kind, category, description = "base", "base", "基础配置 Schema"
            elif f.stem.startswith("blocks_"):
                kind = f.stem.replace("blocks_", "").replace("_data", "")
                category, description = "block", f"{kind} 设备配置 Schema"
            else:
                kind, category, description = f.stem, "other", f"{f.stem} Schema"
            out.append(
                {
                    "type": kind,
                    "file": f.name,
                    "category": category,
                    "description": description,
                    "size": f.size,
                }
            )
        return out


def section_schema(part: str) -> dict[str, Any]:
    """The JSON Schema a config is validated against for one part: the whole ``base`` document, or the
    section schema a part wraps under its config key (``blocks_<Type>_data``, ``reactions``, ...), as the
    real service's documents do."""
    document = schema(part)
    if part == "base":
        return document
    return document[part] if part in SECTION_PARTS else document[f"blocks_{part}_data"]


@cache
def _validator(part: str) -> Draft7Validator:
    return Draft7Validator(section_schema(part))


#: Deepest nesting of arrays and objects a request body may have (a config needs about 6).
MAX_NESTING = 200


def _too_deep(body: bytes) -> bool:
    """True when arrays and objects nest deeper than :data:`MAX_NESTING` outside strings. Checked before
    ``json.loads``, whose recursion would otherwise run out of stack on a thread with little of it left."""
    if body.count(b"[") + body.count(b"{") <= MAX_NESTING:
        return False
    depth, in_string, escaped = 0, False, False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_NESTING:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def parse_body(body: bytes) -> dict[str, Any]:
    """Decode a request body into a config dict.

    Raises:
        MalformedRequestError: not UTF-8 JSON, or not a JSON object.
        InvalidNumberError: NaN or an infinite number anywhere in it.
    """
    if _too_deep(body):
        raise MalformedRequestError("request body is nested too deeply")
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
UNSIMULATED_SECTIONS: tuple[str, ...] = ("henry_components",)


def validate_config(config: dict[str, Any]) -> None:
    """Validate a config against the base part, the reactions / design_specs / convergence parts and the
    part of every blocks_<Type>_data section.

    The real service never validates; it writes each field into Aspen. The mock's schema documents are the
    real ones with their quirks resolved the way the service and Aspen behave (docs/dialect_decisions.md),
    so validating against them refuses what the real service could not write or Aspen could not run.

    Raises:
        SchemaValidationError (or UnknownUnit / UnknownPropertyMethod / UnsupportedBlockType for those
        fields): the first problem found, with its dotted path. UnsupportedOptionError: a non-empty
        henry_components section.
    """
    check_finite(config)
    _raise_first(_validator("base").iter_errors(config), prefix=())
    for key in SECTION_PARTS:
        if key in config:
            _raise_first(_validator(key).iter_errors(config[key]), prefix=(key,))
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

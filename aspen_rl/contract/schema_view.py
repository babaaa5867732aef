"""Compact text rendering of the simulator's JSON Schema parts, sized to a small model's context.

The agent needs from a schema what it takes to write a valid config: every field, its type, the
allowed values, what is required (also conditionally, ``if SPEC_OPT=TP then ...``), name patterns,
defaults and units. Raw JSON Schema carries that in a verbose envelope (``"type": "object"``,
``"properties"``, ``enumDescriptions``, long descriptions, in Chinese on the real service): the real
service's RadFrac part alone is 86 kB. :func:`render_schemas` keeps the content and drops the envelope,
and works the same on the mock's documents and on a real service's.

Notation (the legend is part of the rendering so a model can read it)::

    name*            a required field
    name: A|B|C      one of the listed values
    name: num[0..1]  a number within bounds; num? = number or null
    <key ~/re/>      any key matching the regular expression (block or stream names)
    [ ... ]          a list of such items
    if K=V: need a, b   fields required when K has value V

Detail levels, tried richest first until the text fits ``max_chars``: 2 = short descriptions,
1 = structure with defaults, 0 = bare structure; past that the rendering is cut with a note.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

LEGEND = (
    "Notation: name* required; A|B choices (L1: the list L1 below); num[lo..hi] bounds; num? nullable; "
    "<key ~/re/> keys matching re (~P1: the pattern P1 below); [..] list; 'required by K: V1|V2: a, b' "
    "fields needed when K is V1 or V2, a stem X (TEMP) meaning X_VALUE and X_UNITS; 'N1|N2: shape' fields "
    "of one shape, X standing for each name. Give the units with every value that has them."
)
DESCRIPTION_CHARS = 60
#: Top-level config sections the service describes in documents of their own (``get_schema`` asks for them
#: by these names, as for a block type): the real service lists them in category ``other``.
SECTION_PARTS: tuple[str, ...] = ("reactions", "design_specs", "convergence")
_BARE_X = re.compile(r"(?<![A-Za-z0-9_])X(?![A-Za-z0-9])")
_TYPE_NAMES = {"number": "num", "integer": "int", "string": "str", "boolean": "bool", "null": "null"}


def schema_parts(config: Mapping[str, Any]) -> list[str]:
    """The ``get_schema`` parts a config needs: ``base``, its block types (sorted), then its sections."""
    types = sorted({str(block["type"]) for block in config.get("blocks", [])})
    return ["base", *types, *(part for part in SECTION_PARTS if config.get(part))]


def _short(text: Any, limit: int = DESCRIPTION_CHARS) -> str:
    """First clause of a description, at most ``limit`` characters, on one line."""
    if not isinstance(text, str):
        return ""
    line = " ".join(text.split())
    for stop in (". ", "。", "; ", "；"):
        head, sep, _ = line.partition(stop)
        if sep:
            line = head
            break
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _scalar(node: Mapping[str, Any]) -> str | None:
    """One-token rendering of a scalar schema (enum, const, typed with bounds), else None."""
    if "const" in node:
        return json.dumps(node["const"], ensure_ascii=False)
    if isinstance(node.get("enum"), list):
        return "|".join(str(v) for v in node["enum"])
    types = node.get("type")
    type_list = types if isinstance(types, list) else [types] if isinstance(types, str) else []
    if not type_list or any(t in ("object", "array") for t in type_list):
        return None
    nullable = "null" in type_list and len(type_list) > 1
    names = [_TYPE_NAMES.get(t, str(t)) for t in type_list if t != "null" or not nullable]
    text = "/".join(names) + ("?" if nullable else "")
    lo = node.get("minimum", node.get("exclusiveMinimum"))
    hi = node.get("maximum", node.get("exclusiveMaximum"))
    if lo is not None or hi is not None:
        text += f"[{'' if lo is None else lo}..{'' if hi is None else hi}]"
    if isinstance(node.get("pattern"), str):
        text += f" ~/{node['pattern']}/"
    if isinstance(node.get("maxLength"), int):
        text += f" (<= {node['maxLength']} chars)"
    return text


def _fields(names: list[Any]) -> str:
    """``A_VALUE, A_UNITS, B`` as ``A, B``: a bare stem stands for its value and its units (the legend
    says so); a stem that is itself one of the names keeps the long form ``A_VALUE+UNITS``."""
    out: list[str] = []
    items = [str(n) for n in names]
    for name in items:
        if name.endswith("_UNITS") and f"{name[:-6]}_VALUE" in items:
            continue
        if name.endswith("_VALUE") and f"{name[:-6]}_UNITS" in items:
            out.append(name[:-6] if name[:-6] not in items else name + "+UNITS")
        else:
            out.append(name)
    return ", ".join(out)


def _conditions(node: Mapping[str, Any]) -> list[str]:
    """Requirement lines: ``K=V1|V2: a, b | V3: c`` per tested field, ``given: X needs Y`` for the rest.

    Values that need the same fields share one case (``TP|TDPPARM: TEMP, PRES``);
    ``X_VALUE needs X_UNITS`` is left to the legend, which states it once for every field.
    """
    grouped: dict[str, dict[frozenset[str], tuple[str, list[str]]]] = {}
    other: list[str] = []
    for key, value, need in _condition_triples(node):
        if value is None:
            if need != f"{key.removesuffix('_VALUE')}_UNITS" or not key.endswith("_VALUE"):
                other.append(f"{key} needs {need}")
        else:
            same = frozenset(need.split(", "))  # the same fields in another order are the same need
            grouped.setdefault(key, {}).setdefault(same, (need, []))[1].append(value)
    lines = [
        f"required by {key}: " + " | ".join(f"{'|'.join(values)}: {need}" for need, values in cases.values())
        for key, cases in grouped.items()
    ]
    if other:
        lines.append("if given: " + "; ".join(other))
    return lines


def _condition_triples(node: Mapping[str, Any]) -> list[tuple[str, str | None, str]]:
    """(field, value or None for 'given', required fields) of each if/then clause of ``node``."""
    triples: list[tuple[str, str | None, str]] = []
    lines: list[str] = []
    clauses = [c for key in ("allOf", "anyOf", "oneOf") for c in node.get(key, []) if isinstance(c, dict)]
    if isinstance(node.get("if"), dict):
        clauses.append({"if": node["if"], "then": node.get("then", {})})
    for clause in clauses:
        cond = clause.get("if")
        then = clause.get("then")
        if not isinstance(cond, dict) or not isinstance(then, dict):
            if isinstance(clause.get("required"), list) and "properties" not in clause:
                triples.append(("option", "", _fields(clause["required"])))
            continue
        tests = []
        for key, spec in (cond.get("properties") or {}).items():
            if isinstance(spec, dict) and "const" in spec:
                tests.append(f"{key}={spec['const']}")
            elif isinstance(spec, dict) and isinstance(spec.get("enum"), list):
                tests.append(f"{key} in {'|'.join(map(str, spec['enum']))}")
        for key in cond.get("required", []) or []:
            if not any(t.startswith(f"{key}=") or t.startswith(f"{key} in") for t in tests):
                tests.append(f"{key} given")
        need = then.get("required")
        if not (tests and isinstance(need, list) and need):
            continue
        if len(tests) == 1 and tests[0].endswith(" given"):
            triples.append((tests[0][: -len(" given")], None, _fields(need)))
        elif len(tests) == 1 and "=" in tests[0]:
            key, _, value = tests[0].partition("=")
            triples.append((key, value, _fields(need)))
        else:
            triples.append((" and ".join(tests), "true", _fields(need)))
    for key, need in (node.get("dependencies") or {}).items():
        if isinstance(need, list):
            triples.append((str(key), None, _fields(need)))
    for line in lines:
        triples.append((line, "", ""))
    return triples


class _Renderer:
    def __init__(self, level: int, root: Mapping[str, Any]) -> None:
        self.level = level
        self.root = root
        self.lines: list[str] = []
        self.resolving: set[str] = set()

    def resolve(self, node: Any) -> Any:
        """``node`` with a local ``$ref`` (``#/$defs/x``) replaced by its target (siblings kept)."""
        if not isinstance(node, Mapping) or not isinstance(node.get("$ref"), str):
            return node
        ref = node["$ref"]
        if not ref.startswith("#/") or ref in self.resolving:
            return {k: v for k, v in node.items() if k != "$ref"}
        target: Any = self.root
        for key in ref[2:].split("/"):
            target = target.get(key) if isinstance(target, Mapping) else None
        if not isinstance(target, Mapping):
            return {k: v for k, v in node.items() if k != "$ref"}
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return self.resolve(merged) if "$ref" in merged and merged["$ref"] != ref else merged

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def flush(self, depth: int, cells: list[str], width: int = 110) -> None:
        """Emit scalar field cells, several to a line, and empty the list."""
        line = ""
        for cell in cells:
            if line and len(line) + len(cell) + 2 > width:
                self.emit(depth, line)
                line = ""
            line = f"{line}; {cell}" if line else cell
        if line:
            self.emit(depth, line)
        cells.clear()

    def suffix(self, node: Mapping[str, Any]) -> str:
        parts = []
        if self.level >= 1 and "default" in node:
            parts.append(f"={json.dumps(node['default'], ensure_ascii=False)}")
        if self.level >= 2:
            desc = _short(node.get("description"))
            if desc:
                parts.append(f"— {desc}")
        return (" " + " ".join(parts)) if parts else ""

    def field(self, depth: int, label: str, node: Any) -> None:
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        resolved = self.resolve(node)
        if isinstance(ref, str):
            self.resolving.add(ref)
        try:
            self._field(depth, label, resolved)
        finally:
            if isinstance(ref, str):
                self.resolving.discard(ref)

    def _field(self, depth: int, label: str, node: Any) -> None:
        if not isinstance(node, Mapping):
            self.emit(depth, f"{label}: any")
            return
        scalar = _scalar(node)
        if scalar is not None:
            self.emit(depth, f"{label}: {scalar}{self.suffix(node)}")
            return
        kind = node.get("type")
        items = node.get("items")
        if kind == "array" or isinstance(items, Mapping):
            items = self.resolve(items)
            item_scalar = _scalar(items) if isinstance(items, Mapping) else None
            bounds = ""
            if "minItems" in node or "maxItems" in node:
                bounds = f" ({node.get('minItems', 0)}..{node.get('maxItems', '')} items)"
            if item_scalar is not None:
                self.emit(depth, f"{label}: [{item_scalar}]{bounds}{self.suffix(node)}")
            else:
                self.emit(depth, f"{label}: [{bounds.strip()}{self.suffix(node)}".rstrip() + "")
                if isinstance(items, Mapping):
                    self.body(depth + 1, items)
                self.emit(depth, "]")
            return
        inline = self.inline(node)
        if inline is not None:
            self.emit(depth, f"{label}: {inline}{self.suffix(node)}")
            return
        if self.has_body(node):
            self.emit(depth, f"{label}:{self.suffix(node)}")
            self.body(depth + 1, node)
            return
        self.emit(depth, f"{label}: {'obj' if kind == 'object' else 'any'}{self.suffix(node)}")

    @staticmethod
    def keyed_only(node: Mapping[str, Any]) -> tuple[str, Any] | None:
        """(label, schema) when the object's only content is one pattern or additional-key entry."""
        if any(k in node for k in ("properties", "allOf", "anyOf", "oneOf", "if")) or _stray_fields(node):
            return None
        patterns = node.get("patternProperties") or {}
        extra = node.get("additionalProperties")
        extra = extra if isinstance(extra, Mapping) and extra else None
        if len(patterns) == 1 and extra is None:
            pattern, child = next(iter(patterns.items()))
            return f"<key ~/{pattern}/>", child
        if not patterns and extra is not None:
            names = node.get("propertyNames")
            pattern = names.get("pattern") if isinstance(names, Mapping) else None
            return (f"<key ~/{pattern}/>" if pattern else "<any key>"), extra
        return None

    @staticmethod
    def has_body(node: Mapping[str, Any]) -> bool:
        keys = ("properties", "patternProperties", "allOf", "anyOf", "oneOf", "if", "$ref")
        extra = node.get("additionalProperties")
        return (
            any(key in node for key in keys)
            or bool(_stray_fields(node))
            or (isinstance(extra, Mapping) and bool(extra))
        )

    def inline(self, node: Mapping[str, Any], depth: int = 0) -> str | None:
        """``{a*: num, b: C|K}`` for an object of scalar fields with no conditions, else None.

        A map whose only content is one keyed entry (``{<key ~/re/>: {...}}``) inlines too, so
        ``FRAC: {<any key>: {FRAC_VALUE: num}}`` takes one line.
        """
        properties = node.get("properties")
        if not properties and depth < 3:
            keyed = self.keyed_only(node)
            if keyed is not None:
                label, child = keyed
                child = self.resolve(child)
                inner = _scalar(child) if isinstance(child, Mapping) else None
                if inner is None and isinstance(child, Mapping):
                    inner = self.inline(child, depth + 1)
                return None if inner is None else f"{{{label}: {inner}}}"
        if not isinstance(properties, Mapping) or not properties:
            return None
        if any(key in node for key in ("patternProperties", "allOf", "anyOf", "oneOf", "if")):
            return None
        if _stray_fields(node) or isinstance(node.get("additionalProperties"), Mapping):
            return None
        required = set(node.get("required", []) or [])
        if required - set(properties):
            return None
        cells = []
        for name, raw in properties.items():
            spec = self.resolve(raw)
            scalar = _scalar(spec) if isinstance(spec, Mapping) else None
            if scalar is None:
                return None
            default = spec.get("default") if self.level >= 1 else None
            cells.append(
                f"{name}{'*' if name in required else ''}: {scalar}"
                + (f"={json.dumps(default, ensure_ascii=False)}" if default is not None else "")
            )
        return "{" + ", ".join(cells) + "}"

    def share_shapes(self, depth: int, one_liners: list[tuple[int, str]]) -> None:
        """Sibling fields of the same shape on one line: ``FRAC|R_FRAC: {<any key>: {X_VALUE: num}}``.

        ``X`` stands for each name (the legend says so); a line that already holds a bare ``X`` is
        left alone. Aspen's FSplit alone has 16 such fields of two shapes.
        """
        groups: dict[str, list[tuple[int, str]]] = {}
        for index, name in one_liners:
            label, _, rest = self.lines[index].strip().partition(": ")
            if _BARE_X.search(rest) or label.rstrip("*") != name:
                continue
            own = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9])")
            groups.setdefault(("*" if label.endswith("*") else "") + own.sub("X", rest), []).append(
                (index, name)
            )
        dropped: set[int] = set()
        for shape, members in groups.items():
            if len(members) < 2:
                continue
            star, rest = (shape[0], shape[1:]) if shape.startswith("*") else ("", shape)
            names = "|".join(name for _, name in members)
            self.lines[members[0][0]] = "  " * depth + f"{names}{star}: {rest}"
            dropped.update(index for index, _ in members[1:])
        if dropped:
            self.lines[:] = [line for i, line in enumerate(self.lines) if i not in dropped]

    def body(self, depth: int, node: Mapping[str, Any]) -> None:
        required = set(node.get("required", []) or [])
        properties = node.get("properties") or {}
        # Scalar fields share lines (the bulk of a block part); nested ones get their own.
        cells: list[str] = []
        one_liners: list[tuple[int, str]] = []  # (line index, field name) of nested fields on one line
        for name, raw in properties.items():
            spec = self.resolve(raw)
            scalar = _scalar(spec) if isinstance(spec, Mapping) else None
            label = f"{name}{'*' if name in required else ''}"
            if scalar is None or (self.level >= 2 and _short(spec.get("description"))):
                self.flush(depth, cells)
                start = len(self.lines)
                self.field(depth, label, raw)
                if len(self.lines) == start + 1:
                    one_liners.append((start, str(name)))
            else:
                cells.append(f"{label}: {scalar}{self.suffix(spec)}")
        self.flush(depth, cells)
        self.share_shapes(depth, one_liners)
        for pattern, spec in (node.get("patternProperties") or {}).items():
            self.field(depth, f"<key ~/{pattern}/>", spec)
        for name, spec in _stray_fields(node).items():
            self.field(depth, name, spec)
        extra = node.get("additionalProperties")
        if isinstance(extra, Mapping) and extra:
            names = node.get("propertyNames")
            pattern = names.get("pattern") if isinstance(names, Mapping) else None
            self.field(depth, f"<key ~/{pattern}/>" if pattern else "<any key>", extra)
        missing = sorted(required - set(properties))
        if missing:
            self.emit(depth, f"required: {', '.join(missing)}")
        for line in _conditions(node):
            self.emit(depth, line)
        for key in ("anyOf", "oneOf"):
            label = "any of" if key == "anyOf" else "exactly one of"
            for alt in node.get(key, []) or []:
                if isinstance(alt, Mapping) and "properties" in alt and "if" not in alt:
                    inline = self.inline(alt)
                    if inline is not None:
                        self.emit(depth, f"{label}: {inline}")
                    else:
                        self.emit(depth, f"{label}:")
                        self.body(depth + 1, alt)


_SCHEMA_KEYS = frozenset(
    {"type", "properties", "patternProperties", "items", "enum", "const", "allOf", "anyOf", "oneOf", "$ref"}
)
_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$ref",
        "$defs",
        "definitions",
        "title",
        "description",
        "type",
        "properties",
        "patternProperties",
        "additionalProperties",
        "required",
        "items",
        "enum",
        "const",
        "default",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependencies",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "uniqueItems",
        "pattern",
        "minLength",
        "maxLength",
        "enumDescriptions",
        "examples",
        "format",
        "minProperties",
        "maxProperties",
        "propertyNames",
        "contains",
    }
)


def _looks_like_schema(node: Any) -> bool:
    return isinstance(node, Mapping) and bool(_SCHEMA_KEYS & set(node))


def _stray_fields(node: Mapping[str, Any]) -> dict[str, Any]:
    """Schema-shaped entries placed beside the keywords rather than under ``properties``.

    The real service's ``stream_data`` puts ``flow`` there: no validator checks it, but the service
    reads it, so the agent must see it.
    """
    return {k: v for k, v in node.items() if k not in _KEYWORDS and _looks_like_schema(v)}


def render_part(name: str, document: Mapping[str, Any], level: int = 2) -> str:
    """One schema part (``base``, ``Heater`` ...) as compact text at a detail level (0, 1 or 2).

    A part is either a JSON Schema (``base``) or, as the real service's block parts are, an object
    whose keys are config sections (``{"blocks_Heater_data": {schema}}``); both render the same way.
    """
    renderer = _Renderer(level, document)
    renderer.emit(0, f"## {name}")
    if level >= 2 and isinstance(document.get("description"), str):
        renderer.emit(0, _short(document["description"], 120))
    if _looks_like_schema(document) or "required" in document:
        renderer.body(0, document)
    else:
        for section, spec in document.items():
            if isinstance(spec, Mapping):
                renderer.field(0, section, spec)
    return "\n".join(renderer.lines)


def render_level(parts: Mapping[str, Any], level: int) -> str:
    """The legend and every part at one detail level, repeated patterns and choice lists named once."""
    return LEGEND + "\n" + _name_repeats("\n".join(render_part(n, _as_dict(parts[n]), level) for n in parts))


def render_schemas(parts: Mapping[str, Any], max_chars: int | None = None) -> str:
    """Schema parts as compact text within ``max_chars`` (richest detail level that fits).

    Args:
        parts: ``{part name: JSON Schema}``, e.g. the ``schemas`` of ``GET /api/schema``.
        max_chars: Budget for the whole text; ``None`` for no limit.

    Returns:
        The legend and one section per part. When even the bare structure is longer than the
        budget, the text is cut at a line boundary and ends with a note naming the parts left out.
    """
    names = list(parts)
    text = ""
    for level in (2, 1, 0):
        text = render_level(parts, level)
        if max_chars is None or len(text) <= max_chars:
            return text
    assert max_chars is not None  # the loop returned when there is no limit
    return _cut(text, max_chars, names)


_PATTERN = re.compile(r"~/(\S+?)/(?=[>\s,;}\]]|$)")
_CHOICES = re.compile(r"(?<=: )([^\s|:;,{}\[\]]+(?:\|[^\s|:;,{}\[\]]+){3,})(?=[\s,;}=]|$)")


def _name_repeats(text: str, at_least: int = 3) -> str:
    """``text`` with each name pattern and each list of 4+ choices it repeats ``at_least`` times named once.

    ``<key ~/^[A-Z][0-9A-Z]*$/>`` (a block name) stands under every block part, 20 tokens each time, and
    ``bar|kPa|MPa|atm|N/sqm`` beside every pressure: after this ``<key ~P1>`` and ``PRES_UNITS: L1``, with
    ``P1 = /^[A-Z][0-9A-Z]*$/`` and ``L1 = bar|kPa|MPa|atm|N/sqm`` on the lines before the parts.
    """
    header = []
    for regex, prefix, wrap, label in ((_PATTERN, "P", "/", "Patterns"), (_CHOICES, "L", "", "Lists")):
        counts: dict[str, int] = {}
        for match in regex.finditer(text):
            counts[match.group(1)] = counts.get(match.group(1), 0) + 1
        repeated = (value for value, n in counts.items() if n >= at_least)
        named = {value: f"{prefix}{i}" for i, value in enumerate(repeated, start=1)}
        if not named:
            continue
        mark = "~" if prefix == "P" else ""

        def short(match: re.Match[str], names: dict[str, str] = named, mark: str = mark) -> str:
            return f"{mark}{names[match.group(1)]}" if match.group(1) in names else match.group(0)

        text = regex.sub(short, text)
        entries = "; ".join(f"{name} = {wrap}{value}{wrap}" for value, name in named.items())
        header.append(f"{label}: {entries}")
    return "\n".join([*header, text])


def _as_dict(document: Any) -> Mapping[str, Any]:
    return document if isinstance(document, Mapping) else {}


def _cut(text: str, max_chars: int, names: Iterable[str]) -> str:
    names = list(names)

    def note(left: list[str]) -> str:
        tail = f"; ask get_schema for fewer parts: not shown: {', '.join(left)}]" if left else "]"
        return "\n[schema cut to fit the context budget" + tail

    room = len(note(names))  # the longest the note can be: it never pushes the text past the budget
    kept = text[: max(0, max_chars - room)]
    kept = kept[: kept.rfind("\n")] if "\n" in kept else kept
    left = [n for n in names if f"## {n}" not in kept]
    return (kept + note(left))[:max_chars]

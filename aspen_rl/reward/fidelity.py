"""Task fidelity: how much of what the requirement fixes a config keeps, against the task's reference config.

Six aspects, each a share ``s`` in [0, 1]:

- ``components``: the reference's components the config has (by the CAS number of ``database_name``,
  so synonyms match; else ``cas_number``, else ``name``);
- ``method``: the basis property method (``is_basis_method``, else the first) is the reference's;
- ``blocks``: the reference's blocks matched by a config block of the same type;
- ``topology``: the reference's streams whose two ends (block type and port, or none for a feed or a
  product) the config has between the matched blocks;
- ``feeds``: the reference's feed streams whose state (``MIXED_SPEC`` and its variables) and
  per-component flows the config's matched feed has;
- ``specs``: the reference's block inputs (``blocks_<Type>_data``), ``reactions`` and ``design_specs``
  the config has, leaf by leaf.

A share with extras (blocks, streams, components the reference has not) is ``matched / (reference +
0.25 * extra)``: an extra costs a quarter of what a missing one costs (a product sent on into an extra
block is still that product). ``fidelity`` is the product of one factor per
aspect with the costs of :data:`ASPECT_COSTS`: ``1 - cost * (1 - s)`` for components, method, blocks and
topology; ``(1 - cost) ** wrong`` for feeds and specs, each feed or block spec that differs being a
different problem however many others are right. A wrong property method halves it, each changed feed
or block spec keeps 30 % of it, and an unrelated flowsheet keeps next to nothing.

Free, because the requirement does not fix them: block, stream and component-id names (blocks are
matched by type and neighbours, streams by their ends, components by identity, and names inside the
data are translated), units (every ``<X>_VALUE`` with a ``<X>_UNITS`` sibling is compared in the
reference's unit; feed temperature, pressure and flows too), convergence settings (``convergence``,
``MAXIT``/``TOL`` leaves), a leaf the config omits where the reference writes Aspen's default 0, a block
pressure written as Aspen's drop (``PRES_VALUE`` <= 0) or absolute where the block's feeds state the
inlet pressure, and equivalent forms of a feed (total flow with fractions or component flows, mole or
mass basis: all read as component molar flows).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from aspen_rl.reward import quantities

ASPECT_COSTS = {"components": 0.8, "method": 0.5, "blocks": 0.8, "topology": 0.5, "feeds": 0.7, "specs": 0.7}
"""How much of the fidelity an aspect takes away when it is wholly wrong (``s = 0``)."""
EXTRA_WEIGHT = 0.25
REL_TOL = 1e-3
PRESSURE_KEY = "PRES_VALUE"
OPTIONAL_KEYS = re.compile(r"^(?:FLASH_)?(?:MAXIT|TOL)(?:_VALUE)?$|^CONV_METH$", re.IGNORECASE)
"""Convergence settings inside a block's data: free."""
DATA_SECTIONS = ("reactions", "design_specs")


# -- the flowsheet as a graph -------------------------------------------------------------------


@dataclass
class Flowsheet:
    """The parts of a config fidelity compares: blocks, stream ends, components, method."""

    config: dict[str, Any]
    blocks: dict[str, str] = field(default_factory=dict)
    sources: dict[str, tuple[str, str]] = field(default_factory=dict)
    sinks: dict[str, tuple[str, str]] = field(default_factory=dict)
    streams: list[str] = field(default_factory=list)
    components: dict[str, str] = field(default_factory=dict)
    method: str | None = None

    @classmethod
    def of(cls, config: dict[str, Any]) -> Flowsheet:
        sheet = cls(config)
        for block in _list(config.get("blocks")):
            if isinstance(block, dict) and isinstance(block.get("name"), str):
                sheet.blocks[block["name"]] = str(block.get("type", "")).upper()
        connections = config.get("block_connections")
        for block, ports in (connections or {}).items() if isinstance(connections, dict) else ():
            if not isinstance(ports, dict):
                continue
            for stream, port in ports.items():
                port = str(port).upper()
                end = (str(block), port)
                (sheet.sources if "OUT" in port else sheet.sinks)[str(stream)] = end
        named = [s for s in _list(config.get("streams")) if isinstance(s, str)]
        sheet.streams = list(dict.fromkeys([*named, *sheet.sources, *sheet.sinks]))
        for component in _list(config.get("components")):
            if isinstance(component, dict) and isinstance(component.get("cid"), str):
                sheet.components[component["cid"]] = _identity(component)
        methods = [m for m in _list(config.get("property_methods")) if isinstance(m, dict)]
        first = methods[0] if methods else None
        basis = next((m for m in methods if m.get("is_basis_method") is True), first)
        if basis is not None and isinstance(basis.get("method_name"), str):
            sheet.method = basis["method_name"].strip().upper()
        return sheet

    def end(self, stream: str, side: str, rename: dict[str, str] | None = None) -> tuple[str, str] | None:
        """``(block type or mapped name, port)`` of one end of a stream (``None``: a feed or product)."""
        found = (self.sources if side == "source" else self.sinks).get(stream)
        if found is None:
            return None
        block, port = found
        return ((rename or {}).get(block, "?" + self.blocks.get(block, "")), port)

    def signature(self, stream: str) -> tuple[Any, ...]:
        """The stream's two ends by block type and port: what a renamed flowsheet keeps."""
        ends = []
        for side in ("source", "sink"):
            found = (self.sources if side == "source" else self.sinks).get(stream)
            ends.append(None if found is None else (self.blocks.get(found[0], ""), found[1]))
        return tuple(ends)

    def feeds(self) -> list[str]:
        return [s for s in self.streams if s not in self.sources and s in self.sinks]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _identity(component: dict[str, Any]) -> str:
    """The component as the simulator identifies it: its ``cas_number`` when that resolves (the mock, like
    Aspen, then looks nothing else up, and a CAS lookup does not load chemicals' name database), else the
    CAS number ``chemicals`` reads from its database name (``WATER`` and ``H2O`` are 7732-18-5), else its
    stated name or id."""
    for key in ("cas_number", "database_name"):
        value = component.get(key)
        if isinstance(value, str) and value.strip():
            cas = cas_of(value.strip().upper())
            if cas is not None:
                return cas
    for key in ("cas_number", "database_name", "name", "cid"):
        value = component.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip().upper()
    return ""


@cache
def cas_of(name: str) -> str | None:
    """The CAS number ``chemicals`` finds for a name, formula or CAS number, or ``None``."""
    try:
        from chemicals.identifiers import CAS_from_any

        return str(CAS_from_any(name))
    except Exception:  # unknown name, or chemicals missing: the name stands for itself
        return None


# -- matching names -----------------------------------------------------------------------------


def _share(matched: int, reference: int, extra: int) -> float:
    denominator = reference + EXTRA_WEIGHT * extra
    return matched / denominator if denominator else 1.0


def _match_blocks(ref: Flowsheet, cand: Flowsheet) -> dict[str, str]:
    """Reference block -> config block: same name and type, else same type and most shared stream ends."""
    mapping: dict[str, str] = {}
    free = dict(cand.blocks)
    for name, kind in ref.blocks.items():
        if free.get(name) == kind:
            mapping[name] = name
            del free[name]

    def neighbourhood(sheet: Flowsheet, block: str) -> Counter[tuple[Any, ...]]:
        return Counter(
            sheet.signature(s)
            for s in sheet.streams
            if sheet.sources.get(s, ("",))[0] == block or sheet.sinks.get(s, ("",))[0] == block
        )

    for name, kind in ref.blocks.items():
        if name in mapping:
            continue
        mine = neighbourhood(ref, name)
        candidates = [b for b, k in free.items() if k == kind]
        if not candidates:
            continue
        best = max(candidates, key=lambda b: sum((mine & neighbourhood(cand, b)).values()))
        mapping[name] = best
        del free[best]
    return mapping


def _match_streams(ref: Flowsheet, cand: Flowsheet, blocks: dict[str, str]) -> dict[str, str]:
    """Reference stream -> config stream with the same ends (block names mapped); same name first."""
    back = {c: r for r, c in blocks.items()}
    by_ends: dict[tuple[Any, ...], list[str]] = {}
    for stream in cand.streams:
        key = (cand.end(stream, "source", back), cand.end(stream, "sink", back))
        by_ends.setdefault(key, []).append(stream)
    same = {b: b for b in ref.blocks}
    mapping: dict[str, str] = {}
    pending: list[tuple[str, list[str]]] = []
    for stream in ref.streams:
        key = (ref.end(stream, "source", same), ref.end(stream, "sink", same))
        pool = by_ends.get(key, [])
        if stream in pool:
            mapping[stream] = stream
            pool.remove(stream)
        else:
            pending.append((stream, pool))
    # a product the config sends on into a block the reference lacks (or a feed it takes from one) is
    # still that product (feed): the extra block is charged as a block, not as a broken stream
    extended: dict[tuple[Any, ...], list[str]] = {}
    for key, streams in by_ends.items():
        for side in (0, 1):
            end = key[side]
            if end is not None and end[0].startswith("?"):
                open_key = (None, key[1]) if side == 0 else (key[0], None)
                extended.setdefault(open_key, []).extend(s for s in streams if s not in mapping.values())
    for stream, pool in pending:
        if not pool:
            key = (ref.end(stream, "source", same), ref.end(stream, "sink", same))
            pool = [c for c in extended.get(key, []) if c not in mapping.values()]
        if not pool:
            continue
        # several feeds of one mixer share their ends: the one with the same feed data first
        alike = [c for c in pool if _feed(ref, stream) is not None and _feed(ref, stream) == _feed(cand, c)]
        chosen = (alike or pool)[0]
        mapping[stream] = chosen
        pool.remove(chosen)
    return mapping


# -- feeds --------------------------------------------------------------------------------------


def _number(node: Any, key: str) -> float | None:
    return quantities.finite_number(node.get(key) if isinstance(node, dict) else None)


def _in(value: float | None, unit: Any, canonical: str) -> float | None:
    if value is None:
        return None
    return quantities.convert(value, unit if isinstance(unit, str) and unit.strip() else None, canonical)


@cache
def molar_mass(identity: str) -> float | None:
    """Molar mass (g/mol) of a component by its database name or CAS number (``chemicals``), or ``None``."""
    try:
        from chemicals.identifiers import search_chemical

        return float(search_chemical(identity).MW)
    except Exception:  # unknown name, or chemicals missing: no mass-to-mole conversion
        return None


def _component_flows(sheet: Flowsheet, flow: dict[str, Any]) -> dict[str, float] | None:
    """Per-component molar flows (kmol/hr, by component identity) of a feed's ``flow`` part."""
    entries = {
        cid: entry for cid, entry in flow.items() if isinstance(entry, dict) and cid in sheet.components
    }
    base = str(flow.get("FLOWBASE") or flow.get("BASIS") or "MOLE").upper()
    mass = base.startswith("MASS")
    total = _in(_number(flow, "TOTFLOW_VALUE"), flow.get("TOTFLOW_UNITS"), "kg/hr" if mass else "kmol/hr")
    raw: dict[str, tuple[float, bool]] = {}
    fractions = [
        _number(e, "FLOW_VALUE")
        for e in entries.values()
        if str(e.get("FLOW_BASIS") or flow.get("BASIS") or "").upper().endswith("FRAC")
    ]
    frac_sum = sum(f for f in fractions if f is not None)
    for cid, entry in entries.items():
        value = _number(entry, "FLOW_VALUE")
        basis = str(entry.get("FLOW_BASIS") or flow.get("BASIS") or "").upper()
        entry_mass = basis.startswith("MASS") if basis else mass
        if value is None:
            return None
        if basis.endswith("FRAC"):
            if total is None or frac_sum <= 0:
                return None
            amount = value / frac_sum * total
            entry_mass = mass
        else:
            converted = _in(value, entry.get("FLOW_UNITS"), "kg/hr" if entry_mass else "kmol/hr")
            if converted is None:
                return None
            amount = converted
        raw[cid] = (amount, entry_mass)
    flows: dict[str, float] = {}
    for cid, (amount, is_mass) in raw.items():
        identity = sheet.components[cid]
        if is_mass:
            weight = molar_mass(identity)
            if weight is None:
                return None
            amount /= weight
        flows[identity] = flows.get(identity, 0.0) + amount
    return flows


def _feed(sheet: Flowsheet, stream: str) -> tuple[Any, ...] | None:
    """A feed's state and flows in canonical units, rounded to the comparison tolerance."""
    data = sheet.config.get("stream_data")
    node = data.get(stream) if isinstance(data, dict) else None
    if not isinstance(node, dict):
        return None
    temperature, pressure, vfrac = (_dict(node.get(key)) for key in ("temperature", "pressure", "vfrac"))
    state = (
        str(node.get("MIXED_SPEC", "")).upper(),
        _round(_in(_number(temperature, "TEMP_VALUE"), temperature.get("TEMP_UNITS"), "K")),
        _round(_in(_number(pressure, "PRES_VALUE"), pressure.get("PRES_UNITS"), "bar")),
        _round(_number(vfrac, "VFRAC_VALUE")),
    )
    flow = node.get("flow")
    flows = _component_flows(sheet, flow) if isinstance(flow, dict) else None
    if flows is None:
        return (*state, None)
    return (*state, tuple(sorted((k, _round(v)) for k, v in flows.items() if abs(v) > 1e-9)))


def _round(value: float | None) -> float | None:
    """Rounded to about 3 significant digits (the comparison tolerance of :data:`REL_TOL`)."""
    if value is None:
        return None
    if value == 0:
        return 0.0
    return round(value, 2 - math.floor(math.log10(abs(value))))


# -- block data ---------------------------------------------------------------------------------


def _leaves(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any, str | None]]:
    """``(path, value, unit)`` of every leaf; a number's unit is its ``<X>_UNITS`` sibling."""
    if isinstance(node, dict):
        for key, value in node.items():
            key = str(key)
            if key.upper().endswith("_UNITS") or OPTIONAL_KEYS.match(key):
                continue
            if isinstance(value, dict | list):
                yield from _leaves(value, (*path, key))
            else:
                unit = node.get(f"{key.removesuffix('_VALUE')}_UNITS")
                yield (*path, key), value, unit if isinstance(unit, str) else None
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _leaves(value, (*path, str(i)))


def _translate(text: str, names: dict[str, str]) -> str:
    return names.get(text, text)


def _data_equal(ref: Any, cand: Any, names: dict[str, str], inlet_bar: float | None = None) -> bool:
    """Whether the config's data (names translated to the reference's) has every reference leaf.

    ``inlet_bar``: the block's inlet pressure where the reference states it (a feed's), so that an outlet
    pressure written as Aspen's pressure drop (a value <= 0) equals the same outlet written absolute.
    """
    mine: dict[tuple[str, ...], tuple[Any, str | None]] = {}
    for path, value, unit in _leaves(cand):
        key = tuple(_translate(p, names) for p in path)
        mine[key] = (_translate(value, names) if isinstance(value, str) else value, unit)
    for path, value, unit in _leaves(ref):
        if path not in mine:
            if isinstance(value, int | float) and not isinstance(value, bool) and value == 0:
                continue  # Aspen's default (no pressure drop, no duty)
            return False
        other, other_unit = mine[path]
        if path[-1] == PRESSURE_KEY and inlet_bar is not None:
            value, unit = _absolute_bar(value, unit, inlet_bar), "bar"
            other, other_unit = _absolute_bar(other, other_unit, inlet_bar), "bar"
        if not _leaf_equal(value, unit, other, other_unit):
            return False
    return True


def _absolute_bar(value: Any, unit: str | None, inlet_bar: float) -> Any:
    """A block's pressure spec in bar absolute: Aspen reads a value <= 0 as a drop from the inlet."""
    number = quantities.finite_number(value)
    if number is None:
        return value
    in_bar = quantities.convert(number, unit, "bar") if unit else number
    if in_bar is None:
        return value
    return in_bar if value > 0 else inlet_bar + in_bar


def _leaf_equal(value: Any, unit: str | None, other: Any, other_unit: str | None) -> bool:
    if isinstance(value, bool) or isinstance(other, bool):
        return value == other
    if isinstance(value, int | float) and isinstance(other, int | float):
        converted = quantities.finite_number(other)  # an int past a float's range equals nothing
        if converted is not None and unit:
            converted = quantities.convert(converted, other_unit or unit, unit)
        if converted is None:
            return False
        return abs(converted - value) <= REL_TOL * abs(value) + 1e-9
    if isinstance(value, str) and isinstance(other, str):
        return value.strip().upper() == other.strip().upper()
    return bool(value == other)


def _inlet_bar(sheet: Flowsheet, block: str) -> float | None:
    """The pressure (bar) of the feeds entering ``block`` when they state one and agree, else ``None``."""
    inlets = [s for s, (sink, _) in sheet.sinks.items() if sink == block]
    if not inlets or any(s in sheet.sources for s in inlets):
        return None
    data = _dict(sheet.config.get("stream_data"))
    pressures = set()
    for stream in inlets:
        pressure = _dict(_dict(data.get(stream)).get("pressure"))
        pressures.add(_round(_in(_number(pressure, "PRES_VALUE"), pressure.get("PRES_UNITS"), "bar")))
    return pressures.pop() if len(pressures) == 1 and None not in pressures else None


def _block_data(config: dict[str, Any], kind: str, name: str) -> Any:
    for key, section in config.items():
        is_kind = key.startswith("blocks_") and key.endswith("_data") and key[7:-5].upper() == kind
        if is_kind and isinstance(section, dict) and name in section:
            return section[name]
    return None


# -- the score ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fidelity:
    """How faithful one config is to the task's reference config.

    Attributes:
        value: The product of the aspects' factors (1 when faithful; see the module docstring).
        parts: The share ``s`` of each aspect (keys of :data:`ASPECT_COSTS`).
        names: Reference name -> the config's name, for blocks, streams and component ids.
    """

    value: float
    parts: dict[str, float]
    names: dict[str, str]


FAITHFUL = Fidelity(1.0, dict.fromkeys(ASPECT_COSTS, 1.0), {})
"""What a config of a task without a reference config gets: nothing to compare with."""


def fidelity(reference: dict[str, Any] | None, config: Any) -> Fidelity:
    """How much of the reference config's task ``config`` keeps (see the module docstring).

    Args:
        reference: The task's reference config (``None``: nothing to compare, fidelity 1).
        config: A config the rollout sent (anything that is not a JSON object has fidelity 0).
    """
    if reference is None:
        return FAITHFUL
    if not isinstance(config, dict):
        return Fidelity(0.0, dict.fromkeys(ASPECT_COSTS, 0.0), {})
    ref, cand = Flowsheet.of(reference), Flowsheet.of(config)

    ref_ids, cand_ids = set(ref.components.values()), set(cand.components.values())
    components = _share(len(ref_ids & cand_ids), len(ref_ids), len(cand_ids - ref_ids))
    method = 1.0 if ref.method is not None and ref.method == cand.method else 0.0 if ref.method else 1.0

    blocks = _match_blocks(ref, cand)
    streams = _match_streams(ref, cand, blocks)
    block_share = _share(len(blocks), len(ref.blocks), len(cand.blocks) - len(blocks))
    topology = _share(len(streams), len(ref.streams), len(cand.streams) - len(streams))

    by_id = {ident: cid for cid, ident in cand.components.items()}
    component_names = {cid: by_id[ident] for cid, ident in ref.components.items() if ident in by_id}
    names = {**blocks, **streams, **component_names}
    to_ref = {c: r for r, c in names.items()}

    ref_feeds = ref.feeds()
    kept = sum(1 for s in ref_feeds if s in streams and _feed(ref, s) == _feed(cand, streams[s]))
    feeds = kept / len(ref_feeds) if ref_feeds else 1.0
    wrong = {"feeds": len(ref_feeds) - kept}

    checks: list[bool] = []
    for name, kind in ref.blocks.items():
        data = _block_data(reference, kind, name)
        if data is None:
            continue
        other = _block_data(config, kind, blocks[name]) if name in blocks else None
        checks.append(other is not None and _data_equal(data, other, to_ref, _inlet_bar(ref, name)))
    for section in DATA_SECTIONS:
        if reference.get(section):
            checks.append(_data_equal(reference[section], config.get(section), to_ref))
    specs = sum(checks) / len(checks) if checks else 1.0
    wrong["specs"] = len(checks) - sum(checks)

    parts = {
        "components": components,
        "method": method,
        "blocks": block_share,
        "topology": topology,
        "feeds": feeds,
        "specs": specs,
    }
    value = math.prod(
        (1.0 - ASPECT_COSTS[k]) ** wrong[k] if k in wrong else 1.0 - ASPECT_COSTS[k] * (1.0 - min(1.0, s))
        for k, s in parts.items()
    )
    return Fidelity(value, parts, names)

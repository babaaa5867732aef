"""Flowsheet: build components, property package, blocks and feeds from a config, then solve in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simulator_mock.errors import SpecificationError, UnknownComponentError, UnknownPropertyMethodError
from simulator_mock.flowsheet.blocks import BLOCK_CLASSES, Block, BlockContext
from simulator_mock.flowsheet.convergence import ConvergenceSettings, LoopReport, converge
from simulator_mock.flowsheet.kinetics import parse_reactions
from simulator_mock.flowsheet.schema_registry import SECTION_PARTS, schema
from simulator_mock.flowsheet.streams import Stream, feed_stream, flash_stream
from simulator_mock.flowsheet.time_budget import check_time
from simulator_mock.flowsheet.topology import Step, Topology, build_topology, calculation_order
from simulator_mock.properties.components import canonical_method, resolve_component
from simulator_mock.properties.property_package import PropertyPackage, get_property_package


@dataclass
class Solution:
    """A solved flowsheet: every stream, the blocks with their results, and the recycle loops."""

    streams: dict[str, Stream]
    blocks: dict[str, Block]
    loops: list[LoopReport] = field(default_factory=list)


def _basis_method(config: dict[str, Any]) -> str:
    methods = config["property_methods"]
    basis = [m for m in methods if m.get("is_basis_method", len(methods) == 1)]
    if len(basis) != 1:
        raise UnknownPropertyMethodError(
            f"property_methods: exactly one entry needs is_basis_method true, found {len(basis)}"
        )
    return canonical_method(basis[0]["method_name"])


def _components(config: dict[str, Any], warnings: list[str]) -> tuple[list[str], tuple[str, ...]]:
    cids: list[str] = []
    CASs: list[str] = []
    for component in config["components"]:
        cid = component["cid"]
        if cid in cids:
            raise SpecificationError(f"components: cid {cid} is declared twice", error_type="DuplicateName")
        cas, notes = resolve_component(
            cid, component.get("name"), component.get("cas_number"), component.get("database_name")
        )
        if cas in CASs:
            other = cids[CASs.index(cas)]
            raise UnknownComponentError(f"components: {cid} and {other} are the same chemical (CAS {cas})")
        warnings.extend(notes)
        cids.append(cid)
        CASs.append(cas)
    return cids, tuple(CASs)


def _note_ignored_sections(config: dict[str, Any], warnings: list[str]) -> None:
    """Top-level keys the real service does not read are accepted (its schema allows them) and named in
    a warning, so that a misspelt section is not silently lost."""
    properties = schema("base")["properties"]
    for key in config:
        if key in SECTION_PARTS or key in properties:
            continue
        if not (key.startswith("blocks_") and key.endswith("_data")):
            warnings.append(f"{key}: not a section of the config; ignored (as by the Aspen service)")
    setup = config.get("setup")
    for key in setup if isinstance(setup, dict) else ():
        if key not in properties["setup"]["properties"]:
            warnings.append(f"setup.{key}: not a setup option; ignored (as by the Aspen service)")


#: A component's mole-fraction difference between the two liquids that counts as taking sides in a split.
_SIDES = 0.02


def _vle_fitted_splits(package: PropertyPackage, streams: dict[str, Stream]) -> list[str]:
    """A warning per two-liquid split decided by a pair whose parameters were fitted to vapour-liquid data.

    A pair decides a split when its two components go to different liquids. ChemSep's NRTL and UNIQUAC pairs
    are vapour-liquid fits; the liquid-liquid tie lines they predict can be far off (water/1-butanol, NRTL,
    25 C: 1-butanol mole fraction 0.0055 in the aqueous liquid and water 0.601 in the organic one; measured
    0.019 and 0.512).
    """
    found: dict[tuple[int, int], list[str]] = {}
    for name, stream in streams.items():
        state = stream.state
        if not package.vle_fitted_pairs or state is None or not state.LF2 or state.x1s is None:
            continue
        if state.x2s is None:
            continue
        diff = np.asarray(state.x1s, dtype=float) - np.asarray(state.x2s, dtype=float)
        for i, j in package.vle_fitted_pairs:
            if diff[i] * diff[j] < 0 and min(abs(diff[i]), abs(diff[j])) > _SIDES:
                found.setdefault((i, j), []).append(name)
    return [
        f"two liquid phases in {', '.join(names)}: the {package.names[i]}/{package.names[j]} split rests on "
        f"ChemSep {package.method} parameters fitted to vapour-liquid data; the liquid compositions may be "
        "far off (water/1-butanol with NRTL at 25 C: 0.0055 butanol in water, measured 0.019)"
        for (i, j), names in found.items()
    ]


class Flowsheet:
    """A checked flowsheet ready to solve.

    Attributes:
        cids: component ids in config order. package: the basis property package.
        topology: stream connections. steps: calculation order. warnings: notes for the results.
    """

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.warnings: list[str] = []
        _note_ignored_sections(config, self.warnings)
        method = _basis_method(config)
        self.cids, CASs = _components(config, self.warnings)
        self.package: PropertyPackage = get_property_package(CASs, method)
        self.warnings.extend(self.package.warnings)
        self.topology: Topology = build_topology(config, BLOCK_CLASSES)
        self.settings = ConvergenceSettings.from_config(config)
        self.steps, notes = calculation_order(self.topology, list(self.settings.tear_streams))
        self.warnings.extend(notes)
        self.ctx = BlockContext(
            self.package, self.cids, self.warnings, parse_reactions(config.get("reactions"), self.cids)
        )
        self.blocks = self._blocks()

    def _blocks(self) -> dict[str, Block]:
        topo = self.topology
        data_of: dict[str, dict[str, Any]] = {}
        for key, section in self.config.items():
            if not (key.startswith("blocks_") and key.endswith("_data")):
                continue
            block_type = key[len("blocks_") : -len("_data")]
            for name, data in section.items():
                if topo.block_types.get(name) != block_type:
                    actual = topo.block_types.get(name)
                    what = f"is a {actual}" if actual else "does not exist"
                    raise SpecificationError(f"{key}.{name}: block {name} {what}, not a {block_type}")
                data_of[name] = data
        return {
            name: BLOCK_CLASSES[block_type](
                name, data_of.get(name), self.ctx, topo.inlets[name], topo.outlets[name]
            )
            for name, block_type in topo.block_types.items()
        }

    def solve(self) -> Solution:
        """Compute every stream: feeds from stream_data, then blocks in order, loops to convergence."""
        stream_data = self.config.get("stream_data", {})
        streams: dict[str, Stream] = {
            name: feed_stream(self.package, self.cids, name, stream_data[name], self.warnings)
            for name in self.topology.feeds
        }
        loops: list[LoopReport] = []
        for step in self.steps:
            if step.tears:
                loops.append(self._solve_loop(step, streams, stream_data))
            else:
                self._run_block(step.blocks[0], streams)
        for name, block in self.blocks.items():
            check_time(f"block {name}")
            block.finalize()
        self.warnings.extend(_vle_fitted_splits(self.package, streams))
        return Solution(streams, self.blocks, loops)

    def _run_block(self, name: str, streams: dict[str, Stream]) -> None:
        check_time(f"block {name}")
        block = self.blocks[name]
        feeds = {port: [streams[s] for s in names] for port, names in block.inlets.items()}
        outlets = block.run(feeds)
        streams.update(outlets)

    def _solve_loop(self, step: Step, streams: dict[str, Stream], stream_data: dict[str, Any]) -> LoopReport:
        n = len(self.cids)
        width = n + 3  # component flows, T, P, vapour fraction
        tears = step.tears
        for tear in tears:
            if tear in stream_data:
                streams[tear] = feed_stream(self.package, self.cids, tear, stream_data[tear], self.warnings)
            else:
                streams[tear] = Stream(tear, np.zeros(n), 298.15, 101325.0, None)

        def pack() -> np.ndarray:
            return np.concatenate(
                [np.r_[streams[t].flows, streams[t].T, streams[t].P, streams[t].VF] for t in tears]
            )

        def unpack(x: np.ndarray) -> None:
            for k, tear in enumerate(tears):
                part = x[k * width : (k + 1) * width]
                flows, T, P, VF = (
                    np.maximum(part[:n], 0.0),
                    part[n],
                    part[n + 1],
                    min(max(part[n + 2], 0.0), 1.0),
                )
                where = f"tear stream {tear}"
                if flows.sum() > 0 and 0.0 < VF < 1.0 and np.count_nonzero(flows) == 1:
                    streams[tear] = flash_stream(self.package, tear, flows, where, P=P, VF=VF)
                else:
                    streams[tear] = flash_stream(self.package, tear, flows, where, T=T, P=P)

        def evaluate(x: np.ndarray) -> np.ndarray:
            unpack(x)
            for name in step.blocks:
                self._run_block(name, streams)
            return pack()

        def scale(g: np.ndarray) -> np.ndarray:
            out = np.empty_like(g)
            total_feed = sum(streams[s].total for s in self.topology.feeds) or 1.0
            for k in range(len(tears)):
                part = g[k * width : (k + 1) * width]
                out[k * width : k * width + n] = max(part[:n].sum(), 1e-9 * total_feed)
                out[k * width + n] = part[n]
                out[k * width + n + 1] = part[n + 1]
                out[k * width + n + 2] = 1.0
            return out

        return converge(pack(), evaluate, scale, self.settings, tears)

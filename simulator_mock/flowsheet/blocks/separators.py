"""Separators: Flash2 (vapour-liquid equilibrium drum) and Sep (component split fractions)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import InfeasibleSpecificationError, SpecificationError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality
from simulator_mock.flowsheet.blocks.outlet_spec import OutletSpec
from simulator_mock.flowsheet.result_sheet import (
    LIQ_RATIO_NOTE,
    POWER,
    PRESSURE,
    BlockView,
    PortView,
    Rows,
    equilibrium_rows,
    flash_drum_rows,
)
from simulator_mock.flowsheet.schema_fields import block_entry, flash_drum_spec, num, section, string
from simulator_mock.flowsheet.streams import Stream, phase_stream
from simulator_mock.properties.units import to_si


class Flash2(Block):
    """Two-outlet flash drum (Aspen ``Flash2``): vapour to V(OUT), liquid to L(OUT)."""

    type_name = "Flash2"
    listing_order = 7
    description = "Two-phase flash drum: the mixed feed settles to vapour-liquid equilibrium at the specified conditions. Ports: F(IN) one or more, V(OUT) one (vapour), L(OUT) one (liquid)."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = {
        "LIQ_RATIO": LIQ_RATIO_NOTE,
        "X_<CID>, Y_<CID>, K_<CID>": "X only with liquid, Y only with vapour, K only when both exist",
    }
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"V(OUT)": (1, 1), "L(OUT)": (1, 1)}

    def parse(self, data: dict[str, Any]) -> None:
        self.spec = OutletSpec.parse(
            data["SPEC_DATA"], f"{self.where}.SPEC_DATA", offered=("TP", "PD", "TV", "PV")
        )

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        v_name, l_name = self.outlet_name("V(OUT)"), self.outlet_name("L(OUT)")
        flows = feed.flows
        total = float(flows.sum())
        if total <= 0.0:
            empty = self.spec.empty_outlet(self, v_name, feed, flows)
            return {v_name: empty, l_name: empty.renamed(l_name)}
        spec = self.spec.flash_spec(self, feed, flows)
        bulk, vapor, liquid = self.package.flash_split(flows / total, f"block {self.name} drum", **spec)
        V = total * bulk.VF
        outlets = {
            v_name: phase_stream(v_name, vapor, V, bulk, flows.size),
            l_name: phase_stream(l_name, liquid, total - V, bulk, flows.size),
        }
        self.heat = self.spec.duty(total * bulk.H, feed)
        self.report = {
            "vapor_fraction": bulk.VF,
            "vapor_flow_kmol_hr": V * 3.6,
            "liquid_flow_kmol_hr": (total - V) * 3.6,
        }
        return outlets

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        return section(
            "Flash2",
            cls.description,
            block_entry({"SPEC_DATA": flash_drum_spec()}, ["SPEC_DATA"], closed=True),
            {"additionalProperties": False},
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""
        d = b.doc
        vapor_out, liquid_out = b.outlet("V(OUT)"), b.outlet("L(OUT)")
        flash_drum_rows(rows, b)
        rows.add("PDROP", b.pressure_drop(d.get("outlet_pressure_bar")), PRESSURE)

        def flowing(item: PortView | None) -> dict | None:
            if item is None or item.doc.get("molar_flow_kmol_hr", 0.0) <= 0.0:
                return None
            return item.doc.get("mole_fractions")

        equilibrium_rows(rows, b, ("F", "X", "Y", "K"), flowing(liquid_out), flowing(vapor_out))


class Sep(Block):
    """Component separator (Aspen ``Sep``): split fractions or flows per component and outlet."""

    type_name = "Sep"
    listing_order = 8
    description = "Component separator with per-component split fractions. Ports: F(IN) one or more, P(OUT) two or more."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = {
        "COMPFRAC_MIXED_<CID>": "a folder node in Aspen's tree, read as a value: empty in the real export",
        "COMPFRAC_MIXED_<CID>_OVERHEAD, COMPFRAC_MIXED_<CID>_BOT": (
            "read from outlet streams literally named OVERHEAD and BOT, names the stream-name pattern "
            "forbids: empty in the real export"
        ),
    }
    # Aspen's outlet port of FSplit and Sep is P(OUT), one stream per branch (the real enum's O(OUT) belongs
    # to other blocks; the service would fail to connect it here).
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"P(OUT)": (2, None)}

    def parse(self, data: dict[str, Any]) -> None:
        outlets = self.outlets.get("P(OUT)", [])
        n = len(self.ctx.cids)
        # per outlet: ("frac"|"flow", value) per component index
        specs: dict[str, dict[int, tuple[str, float]]] = {s: {} for s in outlets}
        for stream, entries in data["SPEC_DATA"].items():
            where = f"{self.where}.SPEC_DATA.{stream}"
            if stream not in specs:
                raise SpecificationError(
                    f"{where}: {stream} is not an outlet of {self.name} ({', '.join(outlets)})"
                )
            for k, entry in enumerate(entries):
                i = self.ctx.index(entry["COMP_ID"], f"{where}[{k}].COMP_ID")
                if i in specs[stream]:
                    raise SpecificationError(f"{where}[{k}]: component {entry['COMP_ID']} specified twice")
                if entry.get("FRACS") is not None:
                    specs[stream][i] = ("frac", float(entry["FRACS"]))
                elif entry.get("FLOWS") is not None:
                    # The service writes FLOWS without a unit and never writes the basis (it reads the key
                    # FLOWBASIS_VALUE): Aspen takes a mole flow in kmol/hr (the METCBAR set).
                    flow = to_si(float(entry["FLOWS"]), "kmol/hr", "molar_flow", f"{where}[{k}].FLOWS")
                    specs[stream][i] = ("flow", flow)
        self.specs = specs
        self.remainder: dict[int, str | None] = {}
        for i in range(n):
            free = [s for s in outlets if i not in specs[s]]
            if len(free) > 1:
                raise SpecificationError(
                    f"{self.where}.SPEC_DATA: component {self.ctx.cids[i]} has no split for outlets "
                    f"{', '.join(free)}; leave at most one outlet unspecified per component"
                )
            self.remainder[i] = free[0] if free else None
            fracs = sum(v for s in outlets if i in specs[s] for kind, v in [specs[s][i]] if kind == "frac")
            if fracs > 1.0 + 1e-9:
                raise SpecificationError(
                    f"{self.where}.SPEC_DATA: fractions of component {self.ctx.cids[i]} sum to {fracs:.6g} "
                    "> 1"
                )

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        outlets = list(self.specs)
        f = feed.flows
        flows = {s: np.zeros_like(f) for s in outlets}
        for i in range(f.size):
            assigned = 0.0
            for s in outlets:
                kind, value = self.specs[s].get(i, ("none", 0.0))
                amount = value * f[i] if kind == "frac" else value if kind == "flow" else 0.0
                flows[s][i] = amount
                assigned += amount
            rest = self.remainder[i]
            if rest is not None:
                leftover = f[i] - assigned
                if leftover < -1e-9 * max(f[i], 1e-12):
                    raise InfeasibleSpecificationError(
                        f"{self.where}.SPEC_DATA: component {self.ctx.cids[i]} specs take "
                        f"{assigned * 3.6:.6g} "
                        f"kmol/hr but the feed has {f[i] * 3.6:.6g} kmol/hr"
                    )
                flows[rest][i] = max(leftover, 0.0)
            elif abs(assigned - f[i]) > 1e-9 * max(f[i], 1e-12):
                raise InfeasibleSpecificationError(
                    f"{self.where}.SPEC_DATA: component {self.ctx.cids[i]} splits add up to "
                    f"{assigned * 3.6:.6g} "
                    f"kmol/hr, the feed has {f[i] * 3.6:.6g} kmol/hr; leave one outlet unspecified"
                )
        base = feed.stream()
        out = {s: self.flash(s, flows[s], f"outlet {s}", T=base.T, P=base.P) for s in outlets}
        self.heat = sum(s.enthalpy_flow for s in out.values()) - feed.H_total
        self.report = {
            "split_fractions": {
                s: {
                    cid: (float(flows[s][i] / f[i]) if f[i] > 0 else 0.0)
                    for i, cid in enumerate(self.ctx.cids)
                }
                for s in outlets
            }
        }
        return out

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        spec = {
            "type": "object",
            "description": (
                "Splits per outlet stream: {outlet stream: [{COMP_ID, FLOWBASIS, FRACS}, ...]}. FRACS is the fraction "  # noqa: E501
                "(0..1) of the component's feed flow sent to that outlet. For each component, one outlet may be left "  # noqa: E501
                "without an entry and takes the rest; a component with no entry at all goes to that outlet entirely."  # noqa: E501
            ),
            "additionalProperties": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "COMP_ID": string("Component id (cid)."),
                        "FLOWBASIS": string(
                            "Basis of the split (MOLE, MASS, STDVOL). A split fraction is the same on every basis; the Aspen service does not write this field."  # noqa: E501
                        ),
                        "FRACS": num(
                            "Fraction of the component's feed flow sent to this outlet (0..1).",
                            minimum=0,
                            maximum=1,
                        ),
                    },
                    "required": ["COMP_ID", "FLOWBASIS"],
                },
            },
        }
        return section(
            "Sep",
            cls.description + " Outlets leave at the feed's temperature and pressure.",
            block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False),
        )

    result_table = (("QCALC", "duty_kW", POWER),)

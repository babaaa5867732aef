# ruff: noqa: E501  (schema description strings)
"""Three-phase separators: Flash3 (vapour-liquid-liquid drum) and Decanter (liquid-liquid settler)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import SpecificationError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality, Mixed, given
from simulator_mock.flowsheet.blocks.outlet_spec import OutletSpec
from simulator_mock.flowsheet.result_sheet import (
    POWER,
    PRESSURE,
    TEMPERATURE,
    BlockView,
    Rows,
    flash_drum_rows,
)
from simulator_mock.flowsheet.schema_fields import (
    DUTY_UNITS,
    PRES_UNITS,
    TEMP_UNITS,
    block_entry,
    flash_drum_spec,
    num,
    section,
    string,
    units,
)
from simulator_mock.flowsheet.streams import Stream, phase_stream
from simulator_mock.properties.phase_state import PhaseState
from simulator_mock.properties.units import read_pair


def _fractions(cids: list[str], xs: np.ndarray | None) -> dict[str, float] | None:
    return None if xs is None else dict(zip(cids, (float(v) for v in xs), strict=True))


def _order_liquids(
    liquids: list[PhaseState], betas: list[float], key: list[int], cutoff: float | None
) -> tuple[tuple[PhaseState | None, float], tuple[PhaseState | None, float]]:
    """(1st liquid, its amount), (2nd liquid, its amount). With key components the 2nd liquid is the one
    richer in them (a single liquid is the 2nd when their mole fraction in it exceeds ``cutoff``); without,
    the package's order stands (the denser liquid is the 2nd)."""
    if not liquids:
        return (None, 0.0), (None, 0.0)
    if len(liquids) == 1:
        only = (liquids[0], betas[0])
        if key and cutoff is not None and float(liquids[0].zs[key].sum()) > cutoff:
            return (None, 0.0), only
        return only, (None, 0.0)
    pairs = list(zip(liquids, betas, strict=True))
    if key and float(pairs[0][0].zs[key].sum()) > float(pairs[1][0].zs[key].sum()):
        pairs.reverse()
    return pairs[0], pairs[1]


class Flash3(Block):
    """Three-outlet flash drum (Aspen ``Flash3``): vapour to V(OUT), 1st liquid to L1(OUT), 2nd to L2(OUT)."""

    type_name = "Flash3"
    listing_order = 13
    description = (
        "Three-phase flash drum: the mixed feed settles to vapour-liquid-liquid equilibrium at the specified "
        "conditions (a stability test finds the second liquid). Ports: F(IN) one or more, V(OUT) one (vapour), "
        "L1(OUT) one (1st liquid), L2(OUT) one (2nd liquid: the one richer in L2_COMP, else the denser)."
    )
    not_written: ClassVar[dict[str, str]] = {
        "X1_<CID>, X2_<CID>, Y_<CID>, K1_<CID>, K2_<CID>": (
            "written only for the phases present (K1 with vapour and 1st liquid, K2 with vapour and 2nd liquid)"
        ),
    }
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"V(OUT)": (1, 1), "L1(OUT)": (1, 1), "L2(OUT)": (1, 1)}

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        self.spec = OutletSpec.parse(spec, f"{self.where}.SPEC_DATA", offered=("TP", "PD", "TV", "PV"))
        key = spec.get("L2_COMP")
        self.key = [self.ctx.index(key, f"{self.where}.SPEC_DATA.L2_COMP")] if key else []

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        names = [self.outlet_name(p) for p in ("V(OUT)", "L1(OUT)", "L2(OUT)")]
        flows = feed.flows
        total = float(flows.sum())
        if total <= 0.0:
            empty = self.spec.empty_outlet(self, names[0], feed, flows)
            return {n: empty.renamed(n) for n in names}
        spec = self.spec.flash_spec(self, feed, flows)
        bulk, vapor, liquids = self.package.flash_phases(
            flows / total, f"block {self.name} drum", liquid_only=False, **spec
        )
        betas = [bulk.LF1, bulk.LF2] if len(liquids) == 2 else [1.0 - bulk.VF]
        (l1, b1), (l2, b2) = _order_liquids(liquids, betas, self.key, 0.5 if self.key else None)
        n = flows.size
        outlets = {
            names[0]: phase_stream(names[0], vapor, total * bulk.VF, bulk, n),
            names[1]: phase_stream(names[1], l1, total * b1, bulk, n),
            names[2]: phase_stream(names[2], l2, total * b2, bulk, n),
        }
        self.heat = self.spec.duty(total * bulk.H, feed)
        cids = self.ctx.cids
        self.report = {
            "vapor_fraction": bulk.VF,
            "liquid1_fraction": b1,
            "liquid2_fraction": b2,
            "liquid_ratio": b1 / (b1 + b2) if b1 + b2 > 0 else None,
            "vapor_mole_fractions": _fractions(cids, vapor.zs if vapor is not None else None),
            "liquid1_mole_fractions": _fractions(cids, l1.zs if l1 is not None else None),
            "liquid2_mole_fractions": _fractions(cids, l2.zs if l2 is not None else None),
        }
        return outlets

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        """The ``blocks_Flash3_data`` part: SPEC_OPT with its values, and the 2nd liquid's key component."""
        spec = flash_drum_spec(
            extra={
                "L2_COMP": string(
                    "Key component of the 2nd liquid (a component cid): the liquid richer in it leaves by L2(OUT). "
                    "Without it the denser liquid is the 2nd liquid."
                )
            },
        )
        return section(
            cls.type_name,
            cls.description + " TD is refused (UnsupportedOption), as in Flash2.",
            block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True),
            {"additionalProperties": False},
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """Flash3 outputs in the real export's order; K1 = Y/X1, K2 = Y/X2."""
        d = b.doc
        flash_drum_rows(rows, b)
        rows.add("LIQ_RATIO", d.get("liquid_ratio"))
        rows.add("PDROP", b.pressure_drop(d.get("outlet_pressure_bar")), PRESSURE)
        overall = b.overall()
        x1, x2, y = (
            d.get("liquid1_mole_fractions"),
            d.get("liquid2_mole_fractions"),
            d.get("vapor_mole_fractions"),
        )
        for prefix, values in (("F", overall), ("X1", x1), ("X2", x2), ("Y", y)):
            for cid in b.cids:
                rows.add(f"{prefix}_{cid}", values.get(cid) if values else None)
        for prefix, liquid in (("K1", x1), ("K2", x2)):
            for cid in b.cids:
                x = liquid.get(cid, 0.0) if liquid else 0.0
                rows.add(f"{prefix}_{cid}", y[cid] / x if y and x > 0 else None)


class Decanter(Block):
    """Liquid-liquid settler (Aspen ``Decanter``): 1st liquid to L1(OUT), 2nd liquid to L2(OUT); no vapour."""

    type_name = "Decanter"
    listing_order = 14
    description = (
        "Decanter: the mixed feed settles into two liquids at the specified temperature (or duty) and pressure "
        "(liquid-liquid equilibrium; no vapour is computed). Ports: F(IN) one or more, L1(OUT) one (1st "
        "liquid), L2(OUT) one (2nd liquid: the one richer in the L2_COMPS key components)."
    )
    not_written: ClassVar[dict[str, str]] = {
        "X2_<CID>, B_K_<CID>": "written only when the feed splits into two liquids (B_K = X2 / X1)",
    }
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"L1(OUT)": (1, 1), "L2(OUT)": (1, 1)}

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        where = f"{self.where}.SPEC_DATA"
        self.T = read_pair(spec, "TEMP_VALUE", "TEMP_UNITS", "temperature", where)
        self.Q = read_pair(spec, "DUTY_VALUE", "DUTY_UNITS", "power", where)
        read_pair(spec, "PRES_VALUE", "PRES_UNITS", "pressure", where)
        if (self.T is None) == (self.Q is None):
            raise SpecificationError(f"{where}: give either TEMP_VALUE or DUTY_VALUE (with its units)")
        self.P_value, self.P_units = float(spec["PRES_VALUE"]), spec["PRES_UNITS"]
        self.key = [self.ctx.index(c, f"{where}.L2_COMPS") for c in spec["L2_COMPS"]]
        self.cutoff = float(spec["L2_CUTOFF"])

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed: Mixed = self.mixed(feeds["F(IN)"])
        names = [self.outlet_name("L1(OUT)"), self.outlet_name("L2(OUT)")]
        flows = feed.flows
        total = float(flows.sum())
        P = self.pressure(self.P_value, self.P_units, "SPEC_DATA.PRES_VALUE", feed.P)
        if total <= 0.0:
            if self.Q:
                raise SpecificationError(f"{self.where}: a duty is specified but the block has no flow")
            T = self.T if self.T is not None else feed.T_hint
            return {n: Stream(n, flows, T, P, None) for n in names}
        spec = (
            {"T": self.T, "P": P}
            if self.T is not None
            else {"P": P, "H": (feed.H_total + given(self.Q, "DUTY")) / total}
        )
        bulk, _, liquids = self.package.flash_phases(
            flows / total, f"block {self.name} decanter", liquid_only=True, **spec
        )
        betas = [bulk.LF1, bulk.LF2] if len(liquids) == 2 else [1.0]
        (l1, b1), (l2, b2) = _order_liquids(liquids, betas, self.key, self.cutoff)
        n = flows.size
        outlets = {
            names[0]: phase_stream(names[0], l1, total * b1, bulk, n),
            names[1]: phase_stream(names[1], l2, total * b2, bulk, n),
        }
        self.heat = float(self.Q) if self.Q is not None else total * bulk.H - feed.H_total
        cids = self.ctx.cids
        self.report = {
            "liquid1_fraction": b1,
            "liquid2_fraction": b2,
            "liquid_ratio": b1 / (b1 + b2) if b1 + b2 > 0 else None,
            "liquid1_mole_fractions": _fractions(cids, l1.zs if l1 is not None else None),
            "liquid2_mole_fractions": _fractions(cids, l2.zs if l2 is not None else None),
        }
        return outlets

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        """The ``blocks_Decanter_data`` part, with the real part's fields and its temperature-or-duty rule."""
        props: dict[str, Any] = {
            "TEMP_VALUE": num("Decanter temperature, in TEMP_UNITS (give it or DUTY_VALUE, not both)."),
            # the real part's unit enums, narrowed to the units the service can write (no F, psi, MW, W)
            "TEMP_UNITS": units("TEMP_VALUE", TEMP_UNITS),
            "PRES_VALUE": num(
                "Decanter pressure, in PRES_UNITS: > 0 absolute; 0 = the (lowest) inlet pressure (Aspen's convention).",
                minimum=0,
            ),
            "PRES_UNITS": units("PRES_VALUE", [u for u in PRES_UNITS if u in ("bar", "kPa", "MPa")]),
            "DUTY_VALUE": num("Heat added, in DUTY_UNITS (0 = adiabatic; give it or TEMP_VALUE, not both)."),
            "DUTY_UNITS": units("DUTY_VALUE", [u for u in DUTY_UNITS if u == "kW"]),
            "L2_CUTOFF": num(
                "Key-component mole fraction above which a single liquid is taken as the 2nd liquid (0..1).",
                minimum=0,
                maximum=1,
            ),
            "L2_COMPS": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "description": "Key components of the 2nd liquid (component cids): of two liquids, the one richer in them leaves by L2(OUT).",
            },
        }
        one_of = [
            {"required": ["DUTY_VALUE", "DUTY_UNITS"], "not": {"required": ["TEMP_VALUE", "TEMP_UNITS"]}},
            {"required": ["TEMP_VALUE", "TEMP_UNITS"], "not": {"required": ["DUTY_VALUE", "DUTY_UNITS"]}},
        ]
        spec = {
            "type": "object",
            "description": "Decanter specification: pressure, temperature or duty, and the 2nd liquid's key components.",
            "properties": props,
            "required": ["PRES_VALUE", "PRES_UNITS", "L2_CUTOFF", "L2_COMPS"],
            "allOf": [{"anyOf": one_of}],
            "dependencies": {f"{q}_VALUE": [f"{q}_UNITS"] for q in ("TEMP", "PRES", "DUTY")},
            "additionalProperties": False,
        }
        return section(
            cls.type_name,
            cls.description,
            block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True),
            {"additionalProperties": False},
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """Decanter outputs in the real export's order; B_K = X2 / X1 (liquid-liquid distribution)."""
        d = b.doc
        rows.add("B_TEMP", d.get("outlet_temperature_C"), TEMPERATURE)
        rows.add("B_PRES", d.get("outlet_pressure_bar"), PRESSURE)
        rows.add("QCALC", d.get("duty_kW"), POWER)
        rows.add("QNET2", d.get("duty_kW"), POWER)
        rows.add("LIQ_RATIO", d.get("liquid_ratio"))
        rows.add("PDROP", b.pressure_drop(d.get("outlet_pressure_bar")), PRESSURE)
        x1, x2 = d.get("liquid1_mole_fractions"), d.get("liquid2_mole_fractions")
        for prefix, values in (("F", b.overall()), ("X1", x1), ("X2", x2)):
            for cid in b.cids:
                rows.add(f"{prefix}_{cid}", values.get(cid) if values else None)
        for cid in b.cids:
            x = x1.get(cid, 0.0) if x1 else 0.0
            rows.add(f"B_K_{cid}", x2[cid] / x if x2 and x > 0 else None)

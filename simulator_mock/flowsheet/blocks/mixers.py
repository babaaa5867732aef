"""Mixer and FSplit: merge streams adiabatically, or divide one feed into same-state branches."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import SpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality
from simulator_mock.flowsheet.result_sheet import (
    LIQ_RATIO_NOTE,
    PRESSURE,
    BlockView,
    Rows,
    outlet_state_rows,
)
from simulator_mock.flowsheet.schema_fields import (
    PRES_MEANING,
    PRES_UNITS,
    block_entry,
    num,
    p_value,
    section,
    spec_object,
    string,
    units,
)
from simulator_mock.flowsheet.streams import Stream


class Mixer(Block):
    """Adiabatic mixer (Aspen ``Mixer``); outlet at the lowest inlet pressure unless specified."""

    type_name = "Mixer"
    listing_order = 1
    description = "Adiabatic mixer. Ports: F(IN) one or more, P(OUT) one."
    not_written: ClassVar[dict[str, str]] = {"LIQ_RATIO": LIQ_RATIO_NOTE}
    data_required = False

    def parse(self, data: dict[str, Any]) -> None:
        # Aspen's Mixer PRES: > 0 outlet pressure, <= 0 drop below the lowest inlet; default 0.
        # MAXIT_VALUE and TOL_VALUE are never written by the real service (it reads other keys).
        spec = data.get("SPEC_DATA", {})
        self.P_value = float(spec.get("PRES_VALUE", 0.0))
        self.P_units = spec.get("PRES_UNITS", "bar")

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        name = self.outlet_name("P(OUT)")
        P = self.pressure(self.P_value, self.P_units, "SPEC_DATA.PRES_VALUE", feed.P)
        if P == feed.P:
            return {name: feed.stream().renamed(name)}
        if feed.empty:
            return {name: Stream(name, feed.flows, feed.T_hint, P, None)}
        return {name: self.flash(name, feed.flows, "outlet", P=P, H=feed.H_total / feed.total)}

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        spec = spec_object(
            "Outlet pressure and flash convergence settings.",
            {
                "PRES_VALUE": p_value(f"{PRES_MEANING}. Aspen's default is 0"),
                "PRES_UNITS": units("PRES_VALUE", PRES_UNITS),
                "MAXIT_VALUE": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 1000,
                    "description": "Maximum flash iterations (Aspen default 30). The Aspen service does not write it; the mock ignores it.",  # noqa: E501
                },
                "TOL_VALUE": num(
                    "Flash tolerance (Aspen default 0.0001). The Aspen service does not write it; the mock ignores it.",  # noqa: E501
                    minimum=1e-10,
                    maximum=0.1,
                ),
            },
            required=["PRES_VALUE", "PRES_UNITS", "MAXIT_VALUE", "TOL_VALUE"],
        )
        return section(
            "Mixer",
            cls.description
            + " Mixing is adiabatic. A Mixer without an entry here mixes at the lowest inlet pressure.",
            block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False),
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""
        outlet_state_rows(rows, b)
        rows.add("PDROP", b.pressure_drop(b.doc.get("outlet_pressure_bar")), PRESSURE)


class FSplit(Block):
    """Stream splitter (Aspen ``FSplit``): outlets share the feed's composition and state."""

    type_name = "FSplit"
    listing_order = 2
    description = "Splitter: outlets share the feed's composition and state. Ports: F(IN) one or more, P(OUT) two or more."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = {}
    # Aspen's outlet port of FSplit and Sep is P(OUT), one stream per branch (the real enum's O(OUT) belongs
    # to other blocks; the service would fail to connect it here).
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"P(OUT)": (2, None)}

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        where = f"{self.where}.SPEC_DATA"
        for key, value in spec.items():
            if key != "FRAC" and value:
                raise UnsupportedOptionError(
                    f"{where}.{key}: the mock splits by fraction of the total feed only (FRAC); {key} is not "
                    "simulated"
                )
        outlets = self.outlets.get("P(OUT)", [])
        fracs: dict[str, float] = {}
        for stream, entry in (spec.get("FRAC") or {}).items():
            if entry.get("FRAC_VALUE") is None:
                raise SpecificationError(f"{where}.FRAC.{stream}.FRAC_VALUE: missing split fraction")
            value = float(entry["FRAC_VALUE"])
            if not 0.0 <= value <= 1.0:
                raise SpecificationError(f"{where}.FRAC.{stream}.FRAC_VALUE: {value:g} is not within 0..1")
            fracs[stream] = value
        unknown = [s for s in fracs if s not in outlets]
        if unknown:
            raise SpecificationError(
                f"{where}.FRAC: {', '.join(unknown)} not an outlet of {self.name} "
                f"(outlets: {', '.join(outlets)})"
            )
        missing = [s for s in outlets if s not in fracs]
        given = sum(fracs.values())
        if len(missing) > 1:
            raise SpecificationError(
                f"{self.where}.SPEC_DATA.FRAC: give a fraction for every outlet but one; "
                f"{', '.join(missing)} have none"
            )
        if given > 1.0 + 1e-9:
            raise SpecificationError(f"{self.where}.SPEC_DATA.FRAC: fractions sum to {given:.6g} > 1")
        if not missing and abs(given - 1.0) > 1e-6:
            raise SpecificationError(
                f"{self.where}.SPEC_DATA.FRAC: fractions of all outlets sum to {given:.6g}, not 1"
            )
        if missing:
            fracs[missing[0]] = max(0.0, 1.0 - given)
        total = sum(fracs.values())
        self.fractions = {s: fracs[s] / total for s in outlets}
        # The real schema has no pressure for FSplit: Aspen's default (no pressure drop) applies.
        self.P_value = 0.0
        self.P_units = "bar"

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        P = self.pressure(self.P_value, self.P_units, "SPEC_DATA.PRES_VALUE", feed.P)
        if P == feed.P or feed.empty:
            base = feed.stream()
            state, T = base.state, base.T
        else:
            base = self.flash("feed", feed.flows, "outlet", P=P, H=feed.H_total / feed.total)
            state, T = base.state, base.T
        outlets: dict[str, Stream] = {}
        for name, frac in self.fractions.items():
            flows = feed.flows * frac
            empty = state is None or frac == 0.0
            outlets[name] = Stream(
                name, np.zeros_like(flows) if empty else flows, T, P, None if empty else state
            )
        self.report = {"split_fractions": dict(self.fractions)}
        return outlets

    @classmethod
    def schema_part(cls) -> dict[str, Any]:

        def per_stream(key: str, value_key: str, units_key: str | None, desc: str) -> dict[str, Any]:
            props: dict[str, Any] = {value_key: num(desc)}
            if units_key:
                props[units_key] = string(f"Unit of {value_key}.")
            return {
                "type": "object",
                "description": desc
                + " Keyed by outlet stream name. Not simulated by the mock: a non-empty one is refused (UnsupportedOption)."  # noqa: E501
                if key != "FRAC"
                else desc,
                "additionalProperties": {"type": "object", "properties": props},
            }

        props: dict[str, Any] = {
            "FRAC": {
                "type": "object",
                "description": "Split fraction of the total feed per outlet, keyed by outlet stream name: {stream: {FRAC_VALUE: fraction}}. Fractions are 0..1; one outlet may be left out and takes the rest; given for all outlets they must sum to 1.",  # noqa: E501
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "FRAC_VALUE": num("Fraction of the total feed sent to this outlet (0..1).")
                    },
                },
            },
            "COMPS": {
                "type": "object",
                "description": "Key components of a key-component split. Not simulated by the mock (refused when non-empty).",  # noqa: E501
                "additionalProperties": {
                    "type": "object",
                    "properties": {"MIXED": {"type": "object", "additionalProperties": {"type": "number"}}},
                },
            },
        }
        for key, vk, uk in [
            ("BASIS_C_LIM", "BASIS_C_LIM_VALUE", "BASIS_C_LIM_UNITS"),
            ("BASIS_FLOW", "BASIS_FLOW_VALUE", "BASIS_FLOW_UNITS"),
            ("BASIS_KEYNO", "BASIS_KEYNO_VALUE", None),
            ("BASIS_LIMIT", "BASIS_LIMIT_VALUE", "BASIS_LIMIT_UNITS"),
            ("C_LIM_BASIS", "C_LIM_BASIS_VALUE", None),
            ("DUTY", "DUTY_VALUE", "DUTY_UNITS"),
            ("FLOW_BASIS", "FLOW_BASIS_VALUE", None),
            ("LIMIT_BASIS", "LIMIT_BASIS_VALUE", None),
            ("ORDER", "ORDER_VALUE", None),
            ("POWER", "POWER_VALUE", "POWER_UNITS"),
            ("R_FRAC", "R_FRAC_VALUE", None),
            ("VOL_C_LIM", "VOL_C_LIM_VALUE", "VOL_C_LIM_UNITS"),
            ("VOL_FLOW", "VOL_FLOW_VALUE", "VOL_FLOW_UNITS"),
            ("VOL_LIMIT", "VOL_LIMIT_VALUE", "VOL_LIMIT_UNITS"),
        ]:
            props[key] = per_stream(key, vk, uk, f"Aspen FSplit input {key} per outlet stream.")
        spec = spec_object(
            "Split specification (the outlets leave at the feed's temperature and lowest inlet pressure).",
            props,
        )
        return section(
            "FSplit", cls.description, block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False)
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""
        fractions = b.doc.get("split_fractions", {})
        for order, item in enumerate(b.outlets, start=1):
            rows.add(f"STREAMFRAC_{item.stream}", fractions.get(item.stream))
            rows.add(f"STREAM_ORDER_{item.stream}", order)

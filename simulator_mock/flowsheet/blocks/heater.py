"""Heater: bring the mixed feed to a specified outlet state (SPEC_OPT) and report the duty."""

from __future__ import annotations

from typing import Any, ClassVar

from simulator_mock.flowsheet.blocks.base import Block
from simulator_mock.flowsheet.blocks.outlet_spec import OutletSpec
from simulator_mock.flowsheet.result_sheet import (
    LIQ_RATIO_NOTE,
    POWER,
    PRESSURE,
    BlockView,
    Rows,
    equilibrium_rows,
    outlet_state_rows,
    phase_compositions,
)
from simulator_mock.flowsheet.schema_fields import (
    ALL_OUTLET_FIELDS,
    HEATER_OPTIONS,
    block_entry,
    outlet_spec,
    section,
)
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.units import from_si


class Heater(Block):
    """Heater / cooler (Aspen ``Heater``)."""

    type_name = "Heater"
    listing_order = 3
    description = "Heater or cooler bringing the mixed feed to a specified outlet state. Ports: F(IN) one or more, P(OUT) one."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = {
        "LIQ_RATIO": LIQ_RATIO_NOTE,
        "COR_PDRP_FAC": "pressure-drop correlation factor: no pressure-drop correlation is modelled",
        "Y_<CID>, B_K_<CID>": "written only when the outlet has a vapour phase (both only when two-phase)",
        "X_<CID>": "written only when the outlet has a liquid phase",
    }

    def parse(self, data: dict[str, Any]) -> None:
        self.spec = OutletSpec.parse(
            data["SPEC_DATA"],
            f"{self.where}.SPEC_DATA",
            offered=("TP", "PD", "TV", "PV", "PDT", "DTV", "PDEGSUB", "PDEGSUP"),
        )

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        out, self.heat = self.spec.solve(self, self.outlet_name("P(OUT)"), feed)
        self.report = {
            "inlet_temperature_C": from_si(feed.T, "temperature"),
            "outlet_vapor_fraction": out.VF,
        }
        return {out.name: out}

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        spec = outlet_spec(HEATER_OPTIONS, ALL_OUTLET_FIELDS)
        return section(
            "Heater",
            cls.description + " Results report the duty (kW) and the outlet state.",
            block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True),
            {"additionalProperties": False},
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""
        d = b.doc
        outlet_state_rows(rows, b)
        rows.add("QCALC", d.get("duty_kW"), POWER)
        rows.add("QNET", d.get("duty_kW"), POWER)
        rows.add("PDROP", b.pressure_drop(d.get("outlet_pressure_bar")), PRESSURE)
        liquid, vapor = phase_compositions(p.doc for p in b.outlets)
        equilibrium_rows(rows, b, ("F", "X", "Y", "B_K"), liquid, vapor)

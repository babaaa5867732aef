"""Heater: bring the mixed feed to a specified outlet state (SPEC_OPT) and report the duty."""

from __future__ import annotations

from typing import Any

from simulator_mock.blocks.base import Block
from simulator_mock.blocks.outlet_spec import OutletSpec
from simulator_mock.streams import Stream
from simulator_mock.units import from_si


class Heater(Block):
    """Heater / cooler (Aspen ``Heater``)."""

    type_name = "Heater"

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

"""The TP / PV / TV / PQ outlet specification shared by Heater, Flash2 and RStoic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator_mock.blocks.base import Block, Mixed
from simulator_mock.errors import SpecificationError
from simulator_mock.streams import Stream
from simulator_mock.units import to_si


@dataclass(frozen=True, slots=True)
class OutletSpec:
    """Two fixed outlet variables: SPEC_OPT TP, PV, TV or PQ (SI values; P may be a drop, see
    ``Block.pressure``)."""

    kind: str
    T: float | None
    dT: float | None
    P_value: float | None
    P_units: str | None
    VF: float | None
    Q: float | None

    @classmethod
    def parse(cls, spec: dict[str, Any], where: str) -> OutletSpec:
        """Read a SPEC_DATA object (schema-valid) found at config path ``where``."""
        T = dT = Q = None
        if "TEMP_VALUE" in spec:
            T = to_si(spec["TEMP_VALUE"], spec.get("TEMP_UNITS"), "temperature", f"{where}.TEMP_UNITS")
        elif "DELT_VALUE" in spec:
            dT = to_si(spec["DELT_VALUE"], spec.get("DELT_UNITS"), "delta_temperature", f"{where}.DELT_UNITS")
        if "DUTY_VALUE" in spec:
            Q = to_si(spec["DUTY_VALUE"], spec.get("DUTY_UNITS"), "power", f"{where}.DUTY_UNITS")
        if "PRES_UNITS" in spec:
            to_si(0.0, spec["PRES_UNITS"], "pressure", f"{where}.PRES_UNITS")
        kind = spec["SPEC_OPT"]
        return cls(kind, T, dT, spec.get("PRES_VALUE"), spec.get("PRES_UNITS"), spec.get("VFRAC_VALUE"), Q)

    def flash_spec(self, block: Block, feed: Mixed, flows: np.ndarray) -> dict[str, float]:
        """The two flash variables (SI; H on formation basis) of the outlet with component flows ``flows``."""
        P = None
        if self.P_value is not None:
            P = block.pressure(float(self.P_value), self.P_units, "SPEC_DATA.PRES_VALUE", feed.P)
        T = self.T
        if T is None and self.dT is not None:
            T = feed.T + self.dT
        if self.kind == "TP":
            return {"T": T, "P": P}
        if self.kind == "PV":
            return {"P": P, "VF": self.VF}
        if self.kind == "TV":
            return {"T": T, "VF": self.VF}
        return {"P": P, "H": (feed.H_total + self.Q) / float(flows.sum())}

    def solve(
        self, block: Block, name: str, feed: Mixed, flows: np.ndarray | None = None
    ) -> tuple[Stream, float]:
        """Outlet stream ``name`` and the heat duty [W] that brings ``feed`` to this spec.

        Args:
            block: the block (for pressure conventions and error messages).
            name: outlet stream name.
            feed: the block's mixed feed; its enthalpy is the energy balance's inlet term.
            flows: outlet component flows when they differ from the feed's (reactors).
        """
        flows = feed.flows if flows is None else flows
        if float(flows.sum()) <= 0.0:
            return self.empty_outlet(block, name, feed, flows), 0.0
        out = block.flash(name, flows, "outlet", **self.flash_spec(block, feed, flows))
        return out, self.duty(out.enthalpy_flow, feed)

    def duty(self, H_out: float, feed: Mixed) -> float:
        """Heat duty [W] given the outlet enthalpy flow (the specified one for PQ)."""
        return float(self.Q) if self.kind == "PQ" else H_out - feed.H_total

    def empty_outlet(self, block: Block, name: str, feed: Mixed, flows: np.ndarray) -> Stream:
        """Outlet of a block without flow: at the spec's T and P where given, else the feed's."""
        if self.kind == "PQ" and self.Q:
            raise SpecificationError(f"{block.where}: a duty is specified but the block has no flow")
        P = feed.P
        if self.P_value is not None:
            P = block.pressure(float(self.P_value), self.P_units, "SPEC_DATA.PRES_VALUE", feed.P)
        T = self.T if self.T is not None else feed.T_hint + (self.dT or 0.0)
        return Stream(name, flows, T, P, None)

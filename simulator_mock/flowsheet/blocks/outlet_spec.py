"""The outlet specification (SPEC_OPT with two fixed outlet variables) shared by Heater, Flash2 and RStoic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator_mock.errors import SpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block, Mixed, given
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.units import read_pair

#: SPEC_OPT values the mock simulates -> what they fix. PD (Heater, Flash2) and DP (RStoic) both mean
#: pressure and duty.
SIMULATED = {
    "TP": "temperature and pressure",
    "PD": "pressure and duty",
    "DP": "pressure and duty",
    "TV": "temperature and vapour fraction",
    "PV": "pressure and vapour fraction",
    "PDT": "pressure and temperature change",
    "DTV": "temperature change and vapour fraction",
    "PDEGSUB": "pressure and degrees of subcooling",
    "PDEGSUP": "pressure and degrees of superheat",
}

#: The *_VALUE fields each simulated SPEC_OPT reads.
NEEDS = {
    "TP": ("TEMP", "PRES"),
    "PD": ("PRES", "DUTY"),
    "DP": ("PRES", "DUTY"),
    "TV": ("TEMP", "VFRAC"),
    "PV": ("PRES", "VFRAC"),
    "PDT": ("PRES", "DELT"),
    "DTV": ("DELT", "VFRAC"),
    "PDEGSUB": ("PRES", "DEGSUB"),
    "PDEGSUP": ("PRES", "DEGSUP"),
}

#: Why the other SPEC_OPT values of the real schema are refused.
REFUSED = {
    "TD": "temperature and duty leave the pressure to be found from the energy balance",
    "DTD": "temperature change and duty leave the pressure to be found from the energy balance",
    "DDPPARM": "pressure-drop correlation parameters are not modelled",
    "TDPPARM": "pressure-drop correlation parameters are not modelled",
    "DTDPPARM": "pressure-drop correlation parameters are not modelled",
    "VDPPARM": "pressure-drop correlation parameters are not modelled",
    "DEGSUPDPPARM": "pressure-drop correlation parameters are not modelled",
    "DEGSUBDPPARM": "pressure-drop correlation parameters are not modelled",
}


@dataclass(frozen=True, slots=True)
class OutletSpec:
    """Two fixed outlet variables named by SPEC_OPT (SI values; the pressure may be a drop, see
    ``Block.pressure``)."""

    kind: str
    T: float | None
    dT: float | None
    P_value: float | None
    P_units: str | None
    VF: float | None
    Q: float | None
    degsub: float | None
    degsup: float | None

    @classmethod
    def parse(
        cls,
        spec: dict[str, Any],
        where: str,
        offered: tuple[str, ...],
        refused: dict[str, str] | None = None,
    ) -> OutletSpec:
        """Read a SPEC_DATA object (schema-valid) found at config path ``where``.

        Args:
            offered: the SPEC_OPT values of the block's schema part that the mock simulates (for the hint).
            refused: extra SPEC_OPT values this block refuses, with the reason.

        Raises:
            UnsupportedOptionError: a SPEC_OPT the mock does not simulate.
        """
        kind = spec["SPEC_OPT"]
        reasons = {**REFUSED, **(refused or {})}
        if kind in reasons or kind not in SIMULATED:
            raise UnsupportedOptionError(
                f"{where}.SPEC_OPT: {kind} is not simulated by the mock "
                f"({reasons.get(kind, 'unknown option')}); "
                f"use one of {', '.join(offered)}"
            )
        T = read_pair(spec, "TEMP_VALUE", "TEMP_UNITS", "temperature", where)
        dT = read_pair(spec, "DELT_VALUE", "DELT_UNITS", "delta_temperature", where)
        Q = read_pair(spec, "DUTY_VALUE", "DUTY_UNITS", "power", where)
        degsub = read_pair(spec, "DEGSUB_VALUE", "DEGSUB_UNITS", "delta_temperature", where)
        degsup = read_pair(spec, "DEGSUP_VALUE", "DEGSUP_UNITS", "delta_temperature", where)
        read_pair(spec, "PRES_VALUE", "PRES_UNITS", "pressure", where)  # checks the unit
        given = {"TEMP": T, "DELT": dT, "DUTY": Q, "DEGSUB": degsub, "DEGSUP": degsup}
        given["PRES"] = spec.get("PRES_VALUE")
        given["VFRAC"] = spec.get("VFRAC_VALUE")
        for field in NEEDS[kind]:
            if given[field] is None:
                raise SpecificationError(f"{where}.{field}_VALUE: SPEC_OPT {kind} needs it")
        return cls(
            kind,
            T,
            dT,
            spec.get("PRES_VALUE"),
            spec.get("PRES_UNITS"),
            spec.get("VFRAC_VALUE"),
            Q,
            degsub,
            degsup,
        )

    @property
    def fixes_duty(self) -> bool:
        """True when the duty is specified (PD / DP)."""
        return self.kind in ("PD", "DP")

    def flash_spec(self, block: Block, feed: Mixed, flows: np.ndarray) -> dict[str, float]:
        """The two flash variables (SI; H on formation basis) of the outlet with component flows ``flows``."""
        kind = self.kind

        def need(value: float | None) -> float:
            # parse() refuses a SPEC_OPT whose NEEDS fields are missing, so a needed value is set here
            return given(value, f"SPEC_OPT {kind}")

        def pressure() -> float:
            return block.pressure(float(need(self.P_value)), self.P_units, "SPEC_DATA.PRES_VALUE", feed.P)

        if kind == "TP":
            return {"T": need(self.T), "P": pressure()}
        if kind == "PV":
            return {"P": pressure(), "VF": need(self.VF)}
        if kind == "TV":
            return {"T": need(self.T), "VF": need(self.VF)}
        if kind == "PDT":
            return {"T": feed.T + need(self.dT), "P": pressure()}
        if kind == "DTV":
            return {"T": feed.T + need(self.dT), "VF": need(self.VF)}
        if kind == "PDEGSUB":
            P = pressure()
            bubble = block.flash("bubble point", flows, "outlet bubble point", P=P, VF=0.0)
            return {"T": bubble.T - need(self.degsub), "P": P}
        if kind == "PDEGSUP":
            P = pressure()
            dew = block.flash("dew point", flows, "outlet dew point", P=P, VF=1.0)
            return {"T": dew.T + need(self.degsup), "P": P}
        return {"P": pressure(), "H": (feed.H_total + need(self.Q)) / float(flows.sum())}

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
        """Heat duty [W] given the outlet enthalpy flow (the specified one for PD / DP)."""
        return float(self.Q) if self.fixes_duty and self.Q is not None else H_out - feed.H_total

    def empty_outlet(self, block: Block, name: str, feed: Mixed, flows: np.ndarray) -> Stream:
        """Outlet of a block without flow: at the spec's T and P where given, else the feed's."""
        if self.fixes_duty and self.Q:
            raise SpecificationError(f"{block.where}: a duty is specified but the block has no flow")
        P = feed.P
        if self.P_value is not None:
            P = block.pressure(float(self.P_value), self.P_units, "SPEC_DATA.PRES_VALUE", feed.P)
        T = self.T if self.T is not None else feed.T_hint + (self.dT or 0.0)
        return Stream(name, flows, T, P, None)

"""Mixer and FSplit: merge streams adiabatically, or divide one feed into same-state branches."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.blocks.base import Block, Cardinality
from simulator_mock.errors import SpecificationError, UnsupportedOptionError
from simulator_mock.streams import Stream


class Mixer(Block):
    """Adiabatic mixer (Aspen ``Mixer``); outlet at the lowest inlet pressure unless specified."""

    type_name = "Mixer"
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


class FSplit(Block):
    """Stream splitter (Aspen ``FSplit``): outlets share the feed's composition and state."""

    type_name = "FSplit"
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

"""Helpers shared by the simulator tests (importable as a plain module: tests/simulator is on sys.path)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class LiveService:
    """A running ``python -m simulator_mock`` process."""

    url: str
    results_dir: Path
    process: subprocess.Popen


def assert_closed(results: dict[str, Any]) -> None:
    """Mass balance closes within 1e-6 and energy within 1e-4 (relative)."""
    balances = results["balances"]
    assert balances["mass_relative_error"] < 1e-6, balances
    assert balances["energy_relative_error"] < 1e-4, balances
    assert balances["mass_in_kg_hr"] > 0


def direct_flasher(names: list[str], method: str = "NRTL") -> Any:
    """A thermo flasher built straight from the library (independent of simulator_mock's package code)."""
    from thermo import (
        NRTL,
        PRMIX,
        CEOSGas,
        CEOSLiquid,
        ChemicalConstantsPackage,
        FlashPureVLS,
        FlashVL,
        GibbsExcessLiquid,
        IdealGas,
    )
    from thermo.interaction_parameters import IPDB

    constants, props = ChemicalConstantsPackage.from_IDs(names)
    n = len(names)
    zs = [1.0 / n] * n
    if method == "PENG-ROB":
        kijs = IPDB.get_ip_asymmetric_matrix("ChemSep PR", constants.CASs, "kij")
        eos = {"Tcs": constants.Tcs, "Pcs": constants.Pcs, "omegas": constants.omegas, "kijs": kijs}
        gas = CEOSGas(PRMIX, eos, HeatCapacityGases=props.HeatCapacityGases, T=300, P=1e5, zs=zs)
        liquid = CEOSLiquid(PRMIX, eos, HeatCapacityGases=props.HeatCapacityGases, T=300, P=1e5, zs=zs)
    else:
        gas = IdealGas(HeatCapacityGases=props.HeatCapacityGases, T=300, P=1e5, zs=zs)
        kwargs = {}
        if method == "NRTL" and n > 1:
            kwargs["GibbsExcessModel"] = NRTL(
                T=300,
                xs=zs,
                tau_bs=IPDB.get_ip_asymmetric_matrix("ChemSep NRTL", constants.CASs, "bij"),
                alpha_cs=IPDB.get_ip_asymmetric_matrix("ChemSep NRTL", constants.CASs, "alphaij"),
            )
        liquid = _liquid_heat_capacity_class(GibbsExcessLiquid, constants, props)(
            VaporPressures=props.VaporPressures,
            HeatCapacityGases=props.HeatCapacityGases,
            VolumeLiquids=props.VolumeLiquids,
            EnthalpyVaporizations=props.EnthalpyVaporizations,
            equilibrium_basis="Psat",
            caloric_basis="Hvap",
            T=300,
            P=1e5,
            zs=zs,
            **kwargs,
        )
    if n == 1:
        return FlashPureVLS(constants, props, liquids=[liquid], gas=gas, solids=[]), constants
    return FlashVL(constants, props, liquid=liquid, gas=gas), constants


def _liquid_heat_capacity_class(base: Any, constants: Any, props: Any) -> Any:
    """``base`` (thermo's GibbsExcessLiquid) with pure-liquid enthalpies from the liquid heat capacity:
    H_L(T) = -Hvap(298.15 K) + integral of Cp_L from 298.15 K (ideal-gas enthalpy 0 at 298.15 K), written here
    from thermo's correlations, up to 0.8 Tc (the simulator's documented liquid-enthalpy model); the same
    per-component hook thermo's enthalpy, entropy and heat capacity read (``Hvaps``, ``dHvaps_dT``)."""
    T_ref = 298.15
    usable = []
    for i, Tc in enumerate(constants.Tcs):
        CpL, Hvap = props.HeatCapacityLiquids[i], props.EnthalpyVaporizations[i]
        limit = CpL.T_limits.get(CpL.method, (None, None))[1] if CpL.method else None
        switch = min(0.8 * Tc, limit) if limit is not None else 0.8 * Tc
        if CpL.method and Hvap.method and props.HeatCapacityGases[i].method and switch > T_ref + 50:
            usable.append((i, switch))

    class Liquid(base):  # type: ignore[misc,valid-type]
        def transfer_data(self, new: Any, zs: Any, T: float, T_equal: bool) -> None:
            super().transfer_data(new, zs, T, T_equal)

        def Hvaps(self) -> list[float]:
            values = list(super().Hvaps())
            for i, switch in usable:
                assert switch >= self.T, "test temperatures stay below the switch"
                Hig = props.HeatCapacityGases[i].T_dependent_property_integral(T_ref, self.T)
                HL = -props.EnthalpyVaporizations[i](T_ref) + props.HeatCapacityLiquids[
                    i
                ].T_dependent_property_integral(T_ref, self.T)
                values[i] = Hig - HL
            self._Hvaps = values
            return values

        def dHvaps_dT(self) -> list[float]:
            values = list(super().dHvaps_dT())
            for i, _ in usable:
                values[i] = props.HeatCapacityGases[i](self.T) - props.HeatCapacityLiquids[i](self.T)
            self._dHvaps_dT = values
            return values

    return Liquid

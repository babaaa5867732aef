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
        liquid = GibbsExcessLiquid(
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

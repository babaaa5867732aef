"""Liquid enthalpy of the activity-coefficient methods from the liquid heat capacity.

thermo's ``GibbsExcessLiquid`` with ``caloric_basis="Hvap"`` takes a pure liquid's enthalpy as the ideal-gas
enthalpy less the enthalpy of vaporization, H_L(T) = H_ig(T) - Hvap(T). That is exact only where the saturated
vapour is an ideal gas: for water it is not (its second virial coefficient is large), and the liquid enthalpy
rises 2.8 % too fast from 25 to 80 C and 15 % too fast from 100 to 180 C against IAPWS-95, so a hot water
let-down flashes too much vapour. Process simulators integrate the liquid heat capacity instead:

    H_L(T) = H_ig(T_ref) - Hvap(T_ref) + integral from T_ref to T of Cp_L dT,   T_ref = 298.15 K,

anchored where the vapour is ideal (water's saturation pressure at 25 C is 3.2 kPa). :class:`CpLiquid` does
this per component through the hook thermo's enthalpy, entropy and heat capacity all read, ``Hvaps()`` (and
``dHvaps_dT()``): it returns the effective H_ig(T) - H_L(T). A component uses it up to ``T_switch`` = 0.8 Tc
(and the heat-capacity correlation's upper limit); above, the enthalpy of vaporization takes over, shifted to
stay continuous. Components without a liquid heat capacity, or with Tc below 373 K (dissolved gases), keep
H_ig - Hvap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from thermo import GibbsExcessLiquid

#: Reference temperature of the anchor [K] (thermo's ideal-gas reference, where H_ig = 0).
T_REF = 298.15
#: Fraction of the critical temperature up to which the liquid heat capacity is integrated.
SWITCH_TR = 0.8


@dataclass(frozen=True)
class CpLiquidData:
    """What one component needs: its liquid and ideal-gas heat capacities and the anchor."""

    index: int
    Cp_liquid: Any
    Cp_gas: Any
    Hvap: Any
    Hvap_ref: float
    T_switch: float
    offset: float

    def H_liquid(self, T: float) -> float:
        """H_L(T) - H_ig(T_ref) [J/mol] below T_switch."""
        return -self.Hvap_ref + float(self.Cp_liquid.T_dependent_property_integral(T_REF, T))

    def Hvap_effective(self, T: float) -> float:
        """H_ig(T) - H_L(T) [J/mol]."""
        if self.T_switch >= T:
            return float(self.Cp_gas.T_dependent_property_integral(T_REF, T)) - self.H_liquid(T)
        return float(self.Hvap(T) or 0.0) + self.offset

    def dHvap_effective_dT(self, T: float) -> float:
        if self.T_switch >= T:
            return float(self.Cp_gas(T)) - float(self.Cp_liquid(T))
        return float(self.Hvap.T_dependent_property_derivative(T) or 0.0)


def cp_liquid_data(Tcs: list[float | None], correlations: Any) -> tuple[CpLiquidData, ...]:
    """The components of a correlation package whose liquid enthalpy comes from their liquid heat capacity."""
    out = []
    for i, Tc in enumerate(Tcs):
        Cp_liquid = correlations.HeatCapacityLiquids[i]
        Cp_gas = correlations.HeatCapacityGases[i]
        Hvap = correlations.EnthalpyVaporizations[i]
        if Tc is None or Cp_liquid.method is None or Cp_gas.method is None or Hvap.method is None:
            continue
        T_switch = SWITCH_TR * Tc
        T_max = getattr(Cp_liquid, "T_limits", {}).get(Cp_liquid.method, (None, None))[1]
        if T_max is not None:
            T_switch = min(T_switch, float(T_max))
        Hvap_ref = Hvap(T_REF)
        if T_switch <= T_REF + 50.0 or Hvap_ref is None:
            continue
        data = CpLiquidData(i, Cp_liquid, Cp_gas, Hvap, float(Hvap_ref), T_switch, 0.0)
        below = data.Hvap_effective(T_switch)
        offset = below - float(Hvap(T_switch) or 0.0)
        out.append(CpLiquidData(i, Cp_liquid, Cp_gas, Hvap, float(Hvap_ref), T_switch, offset))
    return tuple(out)


class CpLiquid(GibbsExcessLiquid):
    """``GibbsExcessLiquid`` whose pure-liquid enthalpies come from the liquid heat capacity (see the module
    docstring). Build it as ``GibbsExcessLiquid`` with ``caloric_basis="Hvap"``, then set ``cp_liquid``."""

    cp_liquid: tuple[CpLiquidData, ...] = ()

    def transfer_data(self, new: Any, zs: Any, T: float, T_equal: bool) -> None:
        super().transfer_data(new, zs, T, T_equal)
        new.cp_liquid = self.cp_liquid

    def Hvaps(self) -> list[float]:
        try:
            return self._Hvaps  # type: ignore[has-type]  # set by thermo at run time; its stubs do not declare it
        except AttributeError:
            pass
        if not self.cp_liquid:
            return super().Hvaps()
        T = self.T
        Cpig_integrals = self.Cpig_integrals_pure()  # from T_REF, cached by the phase
        by_index = {data.index: data for data in self.cp_liquid}
        values = []
        for i in range(self.N):
            data = by_index.get(i)
            if data is not None and data.T_switch >= T:
                values.append(Cpig_integrals[i] - data.H_liquid(T))
            else:
                Hvap = self.EnthalpyVaporizations[i](T) or 0.0
                values.append(Hvap + (data.offset if data is not None else 0.0))
        self._Hvaps = values
        return values

    def dHvaps_dT(self) -> list[float]:
        try:
            return self._dHvaps_dT  # type: ignore[has-type]  # set by thermo at run time; its stubs do not declare it
        except AttributeError:
            pass
        if not self.cp_liquid:
            return super().dHvaps_dT()
        T = self.T
        Cpigs = self.Cpigs_pure()
        by_index = {data.index: data for data in self.cp_liquid}
        values = []
        for i in range(self.N):
            data = by_index.get(i)
            if data is not None and data.T_switch >= T:
                values.append(Cpigs[i] - float(data.Cp_liquid(T)))
            else:
                values.append(float(self.EnthalpyVaporizations[i].T_dependent_property_derivative(T) or 0.0))
        self._dHvaps_dT = values
        return values

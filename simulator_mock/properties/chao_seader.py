"""Aspen's CHAO-SEA liquid: Chao-Seader pure-liquid fugacity with Scatchard-Hildebrand activity coefficients.

Chao, K. C.; Seader, J. D. "A general correlation of vapor-liquid equilibria in hydrocarbon mixtures",
AIChE J. 7 (1961) 598-605. A component's liquid fugacity is

    f_i = x_i * gamma_i * nu_i * P

- ``nu_i``, the fugacity coefficient of the pure liquid, is the Chao-Seader correlation in reduced
  temperature and pressure and the acentric factor (special coefficients for hydrogen and methane). The mock
  evaluates it with thermo's :class:`thermo.phases.ChaoSeader` (the 1961 coefficients).
- ``gamma_i`` is regular-solution theory (Scatchard-Hildebrand), thermo's
  :class:`thermo.regular_solution.RegularSolution`:
  ``ln gamma_i = V_i (delta_i - sum_j phi_j delta_j)^2 / (R T)``, ``phi_j`` the volume fractions, with each
  component's liquid molar volume ``V`` and solubility parameter ``delta`` at 25 C, constant in temperature as
  in the paper.

Components that are liquids well below their critical point at 25 C (reduced temperature under
:data:`DATABASE_TR_MAX`) take ``V`` and ``delta`` from the ``chemicals`` database (its values agree with the
paper's: n-hexane 131.6 cm3/mol and 7.27 (cal/cm3)^0.5, benzene 89.4 and 9.16). The light ends are gases
or near-critical at 25 C, and the paper gives hypothetical liquid values for them (:data:`LIGHT_ENDS`). Any
other component is refused with :class:`~simulator_mock.errors.ComponentDataError`: a value computed near or
above the critical point would be a silent substitute.

The liquid's enthalpy and entropy are, as in Aspen's CHAO-SEA, the ideal gas's plus the Lee-Kesler departures
of the liquid mixture (:mod:`.lee_kesler`); its volume is the pure-liquid correlations' (Aspen:
API). The vapour is the Redlich-Kwong equation of state (thermo's ``RKMIX``) for fugacities, volume and
enthalpy alike, built by the property package.

The correlation was fitted to hydrocarbon systems with hydrogen from about -18 to 260 C (0.5 < Tr < 1.3 for
the heavier components) and up to about 140 bar; like Aspen, the mock applies it outside that range without
complaint.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from thermo import CEOSGas, FlashVL

from simulator_mock.errors import ComponentDataError
from simulator_mock.properties.lee_kesler import liquid_departures
from simulator_mock.properties.liquid_enthalpy import CpLiquid

#: cm3/mol -> m3/mol; (cal/cm3)^0.5 -> Pa^0.5.
_CM3 = 1e-6
_CAL_CM3_SQRT = math.sqrt(4.184e6)

#: Chao and Seader's (1961, Table 1) hypothetical liquid molar volume [cm3/mol] and solubility parameter
#: [(cal/cm3)^0.5] at 25 C for the light ends, by CAS number.
LIGHT_ENDS: dict[str, tuple[str, float, float]] = {
    "1333-74-0": ("hydrogen", 31.0, 3.25),
    "74-82-8": ("methane", 52.0, 5.68),
    "74-84-0": ("ethane", 68.0, 6.05),
    "74-85-1": ("ethylene", 61.0, 6.08),
    "74-98-6": ("propane", 84.0, 6.40),
    "115-07-1": ("propylene", 79.0, 6.43),
    "106-97-8": ("n-butane", 101.4, 6.73),
    "75-28-5": ("isobutane", 105.5, 6.73),
}
#: Largest reduced temperature at 25 C for which the database's V and delta are taken (n-pentane: 0.635).
DATABASE_TR_MAX = 0.65
_T25 = 298.15
#: Relative step of the finite differences of ln nu in T and P.
_STEP = 1e-6
#: Upper end of the reduced temperatures the correlation was fitted to; beyond it its acentric-factor term
#: is held at its value here (see :meth:`ChaoSeaderLiquid._ln_nus`).
TR_FITTED_MAX = 1.3
#: Gibbs energy [J/mol] given to a Redlich-Kwong phase on a liquid-like root: never the stable vapour.
_NOT_A_VAPOUR = 1e100
_R = 8.314462618


def _log10_nu1(Tr: float, Pr: float) -> float:
    """Chao and Seader's acentric-factor term of log10 nu."""
    return -4.23893 + 8.65808 * Tr - 1.22060 / Tr - 3.15224 * Tr**3 - 0.025 * (Pr - 0.6)


def regular_solution_parameters(
    CASs: list[str],
    names: list[str],
    Tcs: list[float | None],
    Vs_25C: list[float | None],
    SPs: list[float | None],
) -> tuple[list[float], list[float]]:
    """Liquid molar volumes [m3/mol] and solubility parameters [Pa^0.5] of the components for CHAO-SEA.

    Raises:
        ComponentDataError: a component that is neither in :data:`LIGHT_ENDS` nor a database liquid at 25 C.
    """
    Vs, deltas = [], []
    for CAS, name, Tc, V, SP in zip(CASs, names, Tcs, Vs_25C, SPs, strict=True):
        if CAS in LIGHT_ENDS:
            _, V_cm3, delta = LIGHT_ENDS[CAS]
            Vs.append(V_cm3 * _CM3)
            deltas.append(delta * _CAL_CM3_SQRT)
            continue
        if Tc is None or V is None or SP is None or _T25 / Tc >= DATABASE_TR_MAX:
            light = ", ".join(entry[0] for entry in LIGHT_ENDS.values())
            raise ComponentDataError(
                f"component {name}: CHAO-SEA needs its regular-solution liquid volume and solubility "
                "parameter at 25 C; it is not a liquid well below its critical point there, and Chao and "
                f"Seader's table of hypothetical values covers only {light}: use PENG-ROB or RK-SOAVE for it"
            )
        Vs.append(float(V))
        deltas.append(float(SP))
    return Vs, deltas


class ChaoSeaderLiquid(CpLiquid):
    """Liquid phase of CHAO-SEA: ``phi_i = gamma_i * nu_i`` (see the module docstring).

    Build it as :class:`~.liquid_enthalpy.CpLiquid` with a ``RegularSolution`` excess model,
    then set ``chao_seader`` to a ``thermo.phases.ChaoSeader`` of the same components (it supplies ``nu``).
    """

    chao_seader: Any = None

    def transfer_data(self, new: Any, zs: Any, T: float, T_equal: bool) -> None:
        super().transfer_data(new, zs, T, T_equal)
        new.chao_seader = self.chao_seader

    def _ln_nus(self, T: float, P: float) -> list[float]:
        """ln nu of every component. Beyond Tr 1.3 the acentric-factor term (its -3.15 Tr^3) is held at its
        Tr = 1.3 value: extrapolated, it drops n-hexane's nu 100-fold from Tr 1.3 to 2, and a hydrogen /
        hydrocarbon gas at 100 bar would condense on heating."""
        cs = self.chao_seader
        ln_nus = [math.log(nu) for nu in cs.to_TP_zs(T=T, P=P, zs=self.zs).nus()]
        for i, regular in enumerate(cs.regular):
            Tr = T / cs._Tcs[i]
            if regular and Tr > TR_FITTED_MAX:
                Pr = P / cs._Pcs[i]
                shift = _log10_nu1(TR_FITTED_MAX, Pr) - _log10_nu1(Tr, Pr)
                ln_nus[i] += cs._omegas[i] * math.log(10.0) * shift
        return ln_nus

    def lnphis(self) -> list[float]:
        try:
            return self._cs_lnphis  # type: ignore[has-type]
        except AttributeError:
            pass
        gammas = self.gammas()
        self._cs_lnphis = [
            math.log(g) + ln_nu for g, ln_nu in zip(gammas, self._ln_nus(self.T, self.P), strict=True)
        ]
        return self._cs_lnphis

    lnphis_G_min = lnphis
    lnphis_lowest_Gibbs = lnphis

    def phis(self) -> list[float]:
        return [math.exp(v) for v in self.lnphis()]

    def dlnphis_dT(self) -> list[float]:
        T, P = self.T, self.P
        h = T * _STEP
        up, down = self._ln_nus(T + h, P), self._ln_nus(T - h, P)
        dlngammas = self.GibbsExcessModel.dlngammas_dT()
        return [d + (u - w) / (2.0 * h) for d, u, w in zip(dlngammas, up, down, strict=True)]

    def dphis_dT(self) -> list[float]:
        return [phi * d for phi, d in zip(self.phis(), self.dlnphis_dT(), strict=True)]

    def dlnphis_dP(self) -> list[float]:
        T, P = self.T, self.P
        h = P * _STEP
        up, down = self._ln_nus(T, P + h), self._ln_nus(T, P - h)
        return [(u - w) / (2.0 * h) for u, w in zip(up, down, strict=True)]

    def dphis_dP(self) -> list[float]:
        return [phi * d for phi, d in zip(self.phis(), self.dlnphis_dP(), strict=True)]

    # ---- caloric properties: ideal gas + Lee-Kesler departures ------------------------------------------

    def _departures_at(self, T: float, P: float) -> tuple[float, float]:
        cs = self.chao_seader
        return liquid_departures(
            T, P, np.asarray(self.zs), np.asarray(cs._Tcs), np.asarray(cs._Pcs), np.asarray(cs._omegas)
        )

    def _departures(self) -> tuple[float, float]:
        try:
            return self._lk  # type: ignore[has-type]
        except AttributeError:
            pass
        self._lk = self._departures_at(self.T, self.P)
        return self._lk

    def G_dep(self) -> float:
        """Residual Gibbs energy from the fugacity model, R T sum x ln phi, so that every Gibbs-energy
        comparison thermo makes between phases (which phase a pure component or a feed is) agrees with
        the K-values; the enthalpy and entropy stay Lee-Kesler's, as in Aspen's K-value methods."""
        return _R * self.T * float(np.dot(self.zs, self.lnphis()))

    def G(self) -> float:
        return float(self.H_ideal_gas()) - self.T * float(self.S_ideal_gas()) + self.G_dep()

    def H_dep(self) -> float:
        return self._departures()[0]

    def S_dep(self) -> float:
        return self._departures()[1]

    def H(self) -> float:
        return float(self.H_ideal_gas()) + self.H_dep()

    def S(self) -> float:
        return float(self.S_ideal_gas()) + self.S_dep()

    def Cp(self) -> float:
        T, P = self.T, self.P
        h = T * _STEP * 10.0
        slope = (self._departures_at(T + h, P)[0] - self._departures_at(T - h, P)[0]) / (2.0 * h)
        return float(self.Cp_ideal_gas()) + slope

    dH_dT = dH_dT_P = Cp

    def dS_dT(self) -> float:
        return self.Cp() / self.T

    dS_dT_P = dS_dT

    def dH_dP(self) -> float:
        T, P = self.T, self.P
        h = P * _STEP * 10.0
        return (self._departures_at(T, P + h)[0] - self._departures_at(T, P - h)[0]) / (2.0 * h)

    dH_dP_T = dH_dP

    def dS_dP(self) -> float:
        T, P = self.T, self.P
        h = P * _STEP * 10.0
        slope = (self._departures_at(T, P + h)[1] - self._departures_at(T, P - h)[1]) / (2.0 * h)
        return slope - _R / P  # the ideal gas's -R/P

    dS_dP_T = dS_dP


class RedlichKwongVapour(CEOSGas):
    """Vapour of CHAO-SEA: thermo's cubic-EOS gas phase, always identified as the vapour.

    The liquid of CHAO-SEA is another model, so which phase is the vapour follows the model, as with the ideal
    gas of the activity-coefficient methods (thermo's volume-based test would call a compressed, hydrogen-rich
    Redlich-Kwong phase a liquid).
    """

    force_phase = "g"

    def vapour_like(self) -> bool:
        """True on a vapour root, or above the phase's pseudo-critical temperature (Kay's rule): a
        liquid-like root below it is the equation's liquid, which CHAO-SEA takes from Chao-Seader."""
        pseudo_critical = float(np.dot(self.zs, self.eos_mix.Tcs))
        return bool(self.eos_mix.phase != "l" or pseudo_critical <= self.T)

    def G(self) -> float:
        return float(super().G()) if self.vapour_like() else _NOT_A_VAPOUR

    def G_dep(self) -> float:
        return float(super().G_dep()) if self.vapour_like() else _NOT_A_VAPOUR


class ChaoSeaderFlash(FlashVL):
    """thermo's vapour-liquid flasher, choosing which single phase to test for stability from the K-value
    model itself.

    CHAO-SEA is a K-value method: its phase equilibrium comes from the fugacity coefficients alone
    (Chao-Seader with Scatchard-Hildebrand against Redlich-Kwong). The feed is tested as the phase with the
    lower ``sum z (ln z + ln phi)``, and as the liquid where the Redlich-Kwong phase of the feed is not a
    vapour (a liquid-like root below the pseudo-critical temperature: a heavy feed at high pressure); a
    two-phase answer whose "vapour" is such a root is the single liquid.
    """

    def flash_TP_stability_test(
        self,
        T: float,
        P: float,
        zs: list[float],
        liquid: Any,
        gas: Any,
        solution: Any = None,
        LL: bool = False,
        phases_ready: bool = False,
    ) -> Any:
        if not phases_ready:
            gas, liquid = self.phases_at_TP_binary(T, P, zs, liquid, gas)
        z = np.asarray(zs)
        g_liquid = float(np.dot(z, liquid.lnphis()))
        g_gas = float(np.dot(z, gas.lnphis())) if gas.vapour_like() else math.inf
        min_phase, other_phase = (liquid, gas) if g_liquid <= g_gas else (gas, liquid)
        result = self._stability_and_split(T, P, zs, liquid, gas, min_phase, other_phase, LL)
        found_gas = result[0]
        if found_gas is not None and result[1] and not found_gas.vapour_like():
            # a "vapour" on the equation's liquid-like root is a liquid: the feed stays one liquid
            return None, [liquid], [], [1.0], {"iterations": 0, "err": 0.0, "stab_info": None}
        return result

    def _stability_and_split(
        self,
        T: float,
        P: float,
        zs: list[float],
        liquid: Any,
        gas: Any,
        min_phase: Any,
        other_phase: Any,
        LL: bool,
    ) -> Any:
        stable, found = self.stability_test_Michelsen(
            T,
            P,
            zs,
            min_phase,
            other_phase,
            highest_comp_diff=self.SS_2P_STAB_HIGHEST_COMP_DIFF,
            min_comp_diff=self.SS_2P_STAB_COMP_DIFF_MIN,
        )
        if stable:
            gas_out, liquids = (None, [liquid]) if min_phase is liquid else (gas, [])
            return gas_out, liquids, [], [1.0], {"iterations": 0, "err": 0.0, "stab_info": None}
        trial_zs, appearing_zs, _, guess_name = found[:4]
        return self.flash_2P(
            T,
            P,
            zs,
            trial_zs,
            appearing_zs,
            min_phase,
            other_phase,
            gas,
            liquid,
            V_over_F_guess=None,
            stab_info={"stab_guess_name": guess_name},
            LL=LL,
        )

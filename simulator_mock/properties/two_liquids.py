"""The search for a second liquid phase behind a flash: where thermo's vapour-liquid answer hides a
liquid-liquid split, the equilibrium over isothermal three-phase flashes (`multiphase.VLLE`) replaces it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simulator_mock.errors import FlashError
from simulator_mock.properties.components import ComponentData
from simulator_mock.properties.flash_bounds import P_MAX_PA, P_MIN_PA, T_MAX_K, T_MIN_K
from simulator_mock.properties.multiphase import VLLE, Phase, Split
from simulator_mock.properties.phase_models import PhaseModels, PhaseModelSet
from simulator_mock.properties.phase_state import PhaseState, phase_state


def vl_split(res: Any, T: float, P: float) -> Split:
    """thermo's vapour-liquid answer as a :class:`Split` (the start of the liquid stability test)."""
    phases = []
    VF = min(max(float(res.VF), 0.0), 1.0)
    if res.gas is not None and VF > 0.0:
        phases.append(Phase("V", VF, np.asarray(res.gas.zs, dtype=float), res.gas))
    if res.liquid_count and VF < 1.0:
        phases.append(Phase("L", 1.0 - VF, np.asarray(res.liquid0.zs, dtype=float), res.liquid0))
    return Split(T, P, phases)


def is_balanced(split: Split, zs: np.ndarray) -> bool:
    """True when the phases of ``split`` add up to the overall composition (thermo's saturation flashes can
    return the phases of another saturation point)."""
    total = sum(p.beta * p.zs for p in split.phases)
    return bool(np.max(np.abs(total - zs)) < 1e-6)


def bracket(
    tp: Callable[[float], Split], vlle: VLLE, guess: float, what: str, target: float, lo_b: float, hi_b: float
) -> tuple[float, float]:
    """An interval [lo, hi] of the free variable around ``guess`` where ``what`` crosses ``target``."""

    def side(x: float) -> int:
        s = tp(x)
        if what == "H":
            return -1 if vlle.H_total(s) < target else 1
        if target <= 0.0:
            return 1 if s.VF > 1e-12 else -1
        if target >= 1.0:
            return -1 if s.VF < 1.0 - 1e-12 else 1
        return -1 if target > s.VF else 1

    step = max(abs(guess) * 0.02, 5.0)
    x0 = min(max(guess, lo_b), hi_b)
    s0 = side(x0)
    x1 = x0
    for _ in range(60):
        x1 = min(max(x1 - s0 * step, lo_b), hi_b)
        if side(x1) != s0:
            return (x1, x0) if s0 > 0 else (x0, x1)
        x0 = x1
        if x1 in (lo_b, hi_b):
            break
        step *= 2.0
    raise FlashError(f"no equilibrium with {what} = {target:g} found")


class TwoLiquidSearch:
    """Equilibria with two liquid phases (and a vapour) for the components of one property package."""

    def __init__(self, data: ComponentData, models: PhaseModelSet) -> None:
        self.data = data
        self.models = models

    def states(
        self,
        idx: tuple[int, ...],
        sub: np.ndarray,
        spec: dict[str, float],
        res: Any,
        liquid_only: bool = False,
    ) -> tuple[PhaseState, PhaseState | None, list[PhaseState]] | None:
        """The equilibrium with two liquid phases where the liquid of thermo's answer ``res`` is unstable (or
        ``res`` is None: thermo failed); None when ``res`` stands (no second liquid)."""
        models = self.models.get(idx)
        vlle = models.vlle

        def tp(T: float, P: float) -> Split:
            if liquid_only:
                start = Split(T, P, [Phase("L", 1.0, sub, vlle.liq(T, P, sub))])
            else:
                start = vl_split(models.flash(T=T, P=P, zs=sub.tolist()), T, P)
            return vlle.flash_TP(T, P, sub, start, allow_vapor=not liquid_only)

        if res is not None:
            start = vl_split(res, float(res.T), float(res.P))
            if set(spec) == {"T", "P"}:
                found = vlle.flash_TP(spec["T"], spec["P"], sub, start)
                return None if found is start else self._from_split(found, idx, models)
            liquid = next(iter(start.liquids), None)
            balanced = is_balanced(start, sub)
            if balanced and liquid is not None and vlle.unstable_liquid(start.T, start.P, liquid.zs) is None:
                return None
            if balanced and liquid is None and not self._liquid_hidden(start, vlle):
                return None
        elif set(spec) == {"T", "P"}:
            return self._from_split(tp(spec["T"], spec["P"]), idx, models)
        if "P" in spec:
            P = spec["P"]
            what, target = ("H", spec["H"]) if "H" in spec else ("VF", spec.get("VF", 0.0))
            guess = float(res.T) if res is not None else 350.0
            lo, hi = bracket(lambda T: tp(T, P), vlle, guess, what, target, T_MIN_K, T_MAX_K)
            found = vlle.solve_free(lambda T: tp(T, P), lo, hi, target, what, sub)
        else:
            T = spec["T"]
            guess = float(res.P) if res is not None else 101325.0
            lo, hi = bracket(lambda u: tp(T, -u), vlle, -guess, "VF", spec["VF"], -P_MAX_PA, -P_MIN_PA)
            found = vlle.solve_free(lambda u: tp(T, -u), lo, hi, spec["VF"], "VF", sub)
        return self._from_split(found, idx, models)

    def _liquid_density(self, xs: np.ndarray, idx: tuple[int, ...], T: float) -> float:
        """Mass density [kg/m3] of a liquid of composition ``xs`` (over ``idx``) from the pure-component
        liquid volume correlations, mixed ideally."""
        volume = 0.0
        for x, i in zip(xs, idx, strict=True):
            Vm = self.data.correlations.VolumeLiquids[i].T_dependent_property(T)
            if Vm is None:
                Vm = self.data.correlations.VolumeLiquids[i].T_dependent_property(298.15) or 1e-4
            volume += float(x) * float(Vm)
        return float(np.dot(xs, self.data.MWs[list(idx)])) / 1000.0 / volume

    def _liquid_hidden(self, start: Split, vlle: VLLE) -> bool:
        """A vapour-only answer may hide a heterogeneous dew point: True when a liquid of near-pure
        composition would condense from the vapour (its fugacity below the vapour's)."""
        vapor = start.vapor
        if vapor is None:
            return False
        n = len(vapor.zs)
        lnphi_v = vlle.lnphi_v(start.T, start.P, vapor.zs)
        for k in range(n):
            x = np.full(n, 1e-6)
            x[k] = 1.0
            x = x / x.sum()
            lnphi_l = vlle.lnphi_l(start.T, start.P, x)
            if np.log(x[k]) + lnphi_l[k] < np.log(max(vapor.zs[k], 1e-300)) + lnphi_v[k] - 1e-9:
                return True
        return False

    def _from_split(
        self, found: Split, idx: tuple[int, ...], models: PhaseModels
    ) -> tuple[PhaseState, PhaseState | None, list[PhaseState]]:
        """Bulk and phase states of a multiphase answer (2nd liquid = the denser)."""
        n = len(self.data.CASs)
        vapor_phase = found.vapor
        liquid_phases = found.liquids
        if len(liquid_phases) == 2:
            # the 2nd liquid is the denser (Aspen's rule without key components); densities from the liquid
            # volume correlations (a cubic EOS's liquid volumes can be 30 % off and swap the order)
            density = [self._liquid_density(p.zs, idx, found.T) for p in liquid_phases]
            if density[0] > density[1]:
                liquid_phases = liquid_phases[::-1]
        vapor = phase_state(vapor_phase.obj, idx, models.Hfs, n, 1.0) if vapor_phase is not None else None
        liquids = [phase_state(p.obj, idx, models.Hfs, n, 0.0) for p in liquid_phases]
        betas = [p.beta for p in liquid_phases]
        VF = vapor_phase.beta if vapor_phase is not None else 0.0
        parts = ([(VF, vapor)] if vapor is not None else []) + list(zip(betas, liquids, strict=True))
        total = sum(b for b, _ in parts)
        zs = np.zeros(n)
        for b, st in parts:
            zs += b / total * st.zs
        L = sum(betas)
        xs = sum(b / L * st.zs for b, st in zip(betas, liquids, strict=True)) if liquids else zs.copy()
        V_liquid = sum(b / L * st.V for b, st in zip(betas, liquids, strict=True)) if liquids else None
        state = PhaseState(
            T=float(found.T),
            P=float(found.P),
            VF=min(max(VF / total, 0.0), 1.0),
            H=sum(b / total * st.H for b, st in parts),
            S=sum(b / total * st.S for b, st in parts),
            V=sum(b / total * st.V for b, st in parts),
            zs=zs,
            xs=np.asarray(xs),
            ys=vapor.zs if vapor is not None else zs.copy(),
            V_liquid=V_liquid,
            x1s=liquids[0].zs if len(liquids) == 2 else None,
            x2s=liquids[1].zs if len(liquids) == 2 else None,
            LF2=betas[1] / total if len(liquids) == 2 else 0.0,
        )
        return state, vapor, liquids

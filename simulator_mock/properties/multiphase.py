"""Vapour-liquid-liquid equilibrium on top of thermo's phase models: stability test and three-phase flash.

thermo's ``FlashVL`` finds one liquid; its ``FlashVLN`` (0.6) keeps metastable vapour-liquid answers below
a heteroazeotrope (water/benzene at 1 atm and 67 C: vapour supersaturated in benzene) and solves no
vapour-fraction spec with two liquids. This module adds what a process simulator's VLL flash does, with
thermo's liquid and gas models (activity-coefficient liquids or cubic-EOS phases) for the fugacities:

- a tangent-plane stability test of a liquid (Michelsen, *Fluid Phase Equilib.* 9 (1982) 1-19), with trial
  phases started near each pure component;
- a three-phase isothermal flash by successive substitution on the K-values of vapour and second liquid
  against the first liquid, with the phase fractions from the convex multiphase Rachford-Rice function
  (Michelsen and Mollerup, *Thermodynamic Models: Fundamentals & Computational Aspects*, 2007, ch. 11);
- flashes at pressure with enthalpy or vapour fraction (and temperature with vapour fraction) as a 1-D search
  on the free variable over isothermal flashes. A binary has three phases at one temperature per pressure only
  (phase rule); there the search ends on a jump and the three phase amounts follow from the material balance
  and the specification, a linear system.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Below this tangent-plane distance (in units of RT) a trial phase is taken as a real instability.
TPD_TOL = -1e-7
#: Successive-substitution limits.
SS_MAXITER = 300
SS_TOL = 1e-11
#: Floor of the Rachford-Rice denominators 1 + sum beta (K - 1): they round to 0 for a component with K ~ 0
#: at a phase fraction ~ 1 (CHAO-SEA's regular-solution gammas of water/hydrocarbon pairs reach 1e22).
T_FLOOR = 1e-150
#: Fugacity ratio above which a liquid pair is considered able to split (binary screening).
_GRID = np.concatenate(([1e-4, 1e-3], np.linspace(0.02, 0.98, 25), [0.999, 0.9999]))


@dataclass
class Phase:
    """One equilibrium phase: kind ``"V"`` or ``"L"``, fraction of the total, composition, thermo phase."""

    kind: str
    beta: float
    zs: np.ndarray
    obj: Any


@dataclass
class Split:
    """An equilibrium state: temperature, pressure and its phases (vapour first, then liquids)."""

    T: float
    P: float
    phases: list[Phase]

    @property
    def VF(self) -> float:
        return float(sum(p.beta for p in self.phases if p.kind == "V"))

    @property
    def liquids(self) -> list[Phase]:
        return [p for p in self.phases if p.kind == "L"]

    @property
    def vapor(self) -> Phase | None:
        return next((p for p in self.phases if p.kind == "V"), None)


class VLLE:
    """Stability test and multiphase flashes for one set of components (thermo phase models).

    Args:
        gas, liquid: thermo phase objects (the liquid model is used for every liquid phase).
        ideal_gas: the gas is ideal (ln phi = 0), which saves the gas model calls.
        Hfs: formation enthalpies [J/mol] added to thermo's enthalpies (formation basis).
        vl_flash: the package's vapour-liquid flash ``(spec) -> thermo result``, used as a starting point.
    """

    def __init__(
        self, gas: Any, liquid: Any, ideal_gas: bool, Hfs: np.ndarray, Tcs: list[float | None]
    ) -> None:
        self.gas = gas
        self.liquid = liquid
        self.ideal_gas = ideal_gas
        self.Hfs = Hfs
        #: critical temperatures [K]: a trial liquid rich in a supercritical component is a gas, not a liquid
        self.Tcs = np.array([float(Tc) if Tc else 0.0 for Tc in Tcs])

    # ---- fugacities ------------------------------------------------------------------------------

    def liq(self, T: float, P: float, xs: np.ndarray) -> Any:
        return self.liquid.to(T=T, P=P, zs=[float(v) for v in xs])

    def lnphi_l(self, T: float, P: float, xs: np.ndarray) -> np.ndarray:
        return np.asarray(self.liq(T, P, xs).lnphis(), dtype=float)

    def lnphi_v(self, T: float, P: float, ys: np.ndarray) -> np.ndarray:
        if self.ideal_gas:
            return np.zeros(len(ys))
        return np.asarray(self.gas.to(T=T, P=P, zs=[float(v) for v in ys]).lnphis(), dtype=float)

    def H(self, phase: Phase) -> float:
        """Molar enthalpy of a phase on formation basis [J/mol]."""
        return float(phase.obj.H()) + float(np.dot(phase.zs, self.Hfs))

    # ---- screening and stability -----------------------------------------------------------------

    def binary_can_split(self, i: int, j: int, n: int, temperatures: tuple[float, ...]) -> bool:
        """True when the liquid of the pair (i, j) alone is unstable somewhere at one of ``temperatures``
        (its Gibbs energy of mixing is not convex in composition)."""
        P = 101325.0
        for T in temperatures:
            if 0.95 * min(self.Tcs[i], self.Tcs[j]) <= T:
                continue  # one of the pair is supercritical: no liquid of it to split from
            g = []
            for x in _GRID:
                xs = np.zeros(n)
                xs[i], xs[j] = x, 1.0 - x
                lnphi = self.lnphi_l(T, P, xs)
                g.append(x * (math.log(x) + lnphi[i]) + (1 - x) * (math.log(1 - x) + lnphi[j]))
            g_arr = np.asarray(g)
            # the common tangent test: g above the chord between the end points somewhere = non-convexity
            d2 = np.diff(np.diff(g_arr) / np.diff(_GRID))
            if (d2 < -1e-9).any():
                return True
        return False

    def unstable_liquid(self, T: float, P: float, xs: np.ndarray, gas: bool = False) -> np.ndarray | None:
        """A liquid composition that would form from the phase ``xs`` (a liquid, or the vapour when ``gas``)
        and lower the Gibbs energy (tangent-plane distance < 0), or None when there is none."""
        n = len(xs)
        present = xs > 0
        d = np.full(n, -np.inf)
        lnphi_x = self.lnphi_v(T, P, xs) if gas else self.lnphi_l(T, P, xs)
        d[present] = np.log(xs[present]) + lnphi_x[present]
        best: tuple[float, np.ndarray] | None = None
        for k in range(n):
            if not present[k] or 0.95 * self.Tcs[k] <= T:
                continue
            w = np.where(present, 1e-3 / max(n - 1, 1), 0.0)
            w[k] = 1.0 - 1e-3
            w = w / w.sum()
            if not gas and np.max(np.abs(w - xs)) < 1e-3:
                continue
            W = w
            for _ in range(200):
                lnW = d - self.lnphi_l(T, P, w)
                W = np.where(present, np.exp(np.clip(lnW, -700, 700)), 0.0)
                w_new = W / W.sum()
                if np.max(np.abs(w_new - w)) < 1e-12:
                    w = w_new
                    break
                w = w_new
            tpd = 1.0 - float(W.sum())
            distinct = gas or np.max(np.abs(w - xs)) > 1e-4
            if tpd < TPD_TOL and distinct and (best is None or tpd < best[0]):
                best = (tpd, w)
        return None if best is None else best[1]

    # ---- isothermal flash ------------------------------------------------------------------------

    def flash_TP(self, T: float, P: float, zs: np.ndarray, start: Split, allow_vapor: bool = True) -> Split:
        """Equilibrium at T, P from a vapour-liquid answer ``start``: the liquid is tested for a second
        liquid and, when unstable, the vapour-liquid-liquid (or liquid-liquid) split is solved."""
        liquids = start.liquids
        vapor = start.vapor
        y0 = vapor.zs if vapor is not None else None
        w = None
        if liquids:
            x_ref = liquids[0].zs
            w = self.unstable_liquid(T, P, x_ref)
        if w is None and vapor is not None and liquids:
            # a vapour supersaturated with respect to another liquid (below a heteroazeotrope)
            w = self.unstable_liquid(T, P, vapor.zs, gas=True)
        if w is None:
            return start
        # candidates: the liquid-liquid split, and the split with vapour; the lowest Gibbs energy wins
        candidates = [start, self._three_phase(T, P, zs, x_ref, w, None, allow_vapor=False)]
        if allow_vapor and y0 is not None:
            candidates.append(self._three_phase(T, P, zs, x_ref, w, y0, allow_vapor=True))
        found = [c for c in candidates if c is not None and _balanced(c, zs)]
        return min(found, key=lambda c: self.gibbs(c)) if found else start

    def gibbs(self, s: Split) -> float:
        """Gibbs energy of mixing of a state, G/RT per mole, relative to the ideal gas at T, P."""
        total = 0.0
        for p in s.phases:
            lnphi = self.lnphi_v(s.T, s.P, p.zs) if p.kind == "V" else self.lnphi_l(s.T, s.P, p.zs)
            present = p.zs > 0
            total += p.beta * float(np.sum(p.zs[present] * (np.log(p.zs[present]) + lnphi[present])))
        return total

    def _three_phase(
        self,
        T: float,
        P: float,
        zs: np.ndarray,
        x1: np.ndarray,
        x2: np.ndarray,
        y: np.ndarray | None,
        allow_vapor: bool = True,
    ) -> Split | None:
        present = zs > 0
        vapor_on = y is not None
        if y is None:
            y = zs.copy()
        betas = np.array([0.1 if vapor_on else 0.0, 0.5])
        for _attempt in range(4):
            lnK = None
            for _ in range(SS_MAXITER):
                l1, l2 = self.lnphi_l(T, P, x1), self.lnphi_l(T, P, x2)
                lnKV = l1 - self.lnphi_v(T, P, y)
                lnK2 = l1 - l2
                new = np.concatenate((lnKV, lnK2))
                KV, K2 = np.exp(np.clip(lnKV, -700, 700)), np.exp(np.clip(lnK2, -700, 700))
                betas = _rachford_rice(zs, KV, K2, betas, vapor_on)
                t = np.maximum(1.0 + betas[0] * (KV - 1.0) + betas[1] * (K2 - 1.0), T_FLOOR)
                x1 = np.where(present, zs / t, 0.0)
                x2 = K2 * x1
                y = KV * x1
                x1, x2, y = x1 / x1.sum(), x2 / x2.sum(), y / y.sum()
                if lnK is not None and np.max(np.abs(new - lnK)[np.concatenate((present, present))]) < SS_TOL:
                    break
                lnK = new
            if betas[1] <= 1e-12 or np.max(np.abs(x1 - x2)) < 1e-5:
                return None  # no second liquid: the vapour-liquid answer stands
            if not vapor_on and allow_vapor:
                # would a vapour appear? sum of incipient vapour mole fractions above 1
                lnKV = self.lnphi_l(T, P, x1) - self.lnphi_v(T, P, y)
                if float(np.sum(x1 * np.exp(lnKV))) > 1.0 + 1e-10:
                    vapor_on = True
                    y = x1 * np.exp(lnKV)
                    y = y / y.sum()
                    betas = np.array([1e-3, betas[1]])
                    continue
            elif betas[0] <= 0.0:
                vapor_on = False
                betas = np.array([0.0, betas[1]])
                continue
            break
        beta1 = 1.0 - betas[0] - betas[1]
        phases = []
        if vapor_on and betas[0] > 0.0:
            phases.append(Phase("V", float(betas[0]), y, self.gas.to(T=T, P=P, zs=[float(v) for v in y])))
        order = [(beta1, x1), (float(betas[1]), x2)]
        for beta, xs in order:
            if beta > 0.0:
                phases.append(Phase("L", float(beta), xs, self.liq(T, P, xs)))
        return Split(T, P, phases)

    # ---- specified flashes -----------------------------------------------------------------------

    def solve_free(
        self,
        tp: Callable[[float], Split],
        lo: float,
        hi: float,
        target: float,
        what: str,
        zs: np.ndarray,
    ) -> Split:
        """The state where ``what`` ("H" or "VF") of ``tp(x)`` is ``target``, x (T, or -P) in [lo, hi].

        ``what`` must increase with the variable on the interval (callers pass -P for pressure). Ends on a
        jump (three phases of a binary) by solving the phase amounts at the jump.
        """

        def value(s: Split) -> float:
            return self.H_total(s) if what == "H" else s.VF

        s_lo, s_hi = tp(lo), tp(hi)
        f_lo, f_hi = value(s_lo) - target, value(s_hi) - target
        if what == "VF" and target <= 0.0:
            f_lo, f_hi = (1.0 if s_lo.VF > 1e-12 else -1.0), (1.0 if s_hi.VF > 1e-12 else -1.0)
        elif what == "VF" and target >= 1.0:
            f_lo, f_hi = (-1.0 if s_lo.VF < 1.0 - 1e-12 else 1.0), (-1.0 if s_hi.VF < 1.0 - 1e-12 else 1.0)
        if f_lo > 0 or f_hi < 0:
            raise ValueError(f"{what} target not bracketed")
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            if abs(hi - lo) < 1e-9 * max(1.0, abs(mid)):
                break
            s = tp(mid)
            if what == "VF" and target <= 0.0:
                f = 1.0 if s.VF > 1e-12 else -1.0
            elif what == "VF" and target >= 1.0:
                f = -1.0 if s.VF < 1.0 - 1e-12 else 1.0
            else:
                f = value(s) - target
            if abs(f) < 1e-10 * max(1.0, abs(target)) and what == "H":
                return s
            if what == "VF" and 0.0 < target < 1.0 and abs(f) < 1e-12:
                return s
            if f < 0:
                lo, s_lo, f_lo = mid, s, f
            else:
                hi, s_hi, f_hi = mid, s, f
        if what == "VF" and target <= 0.0:
            return s_lo
        if what == "VF" and target >= 1.0:
            return s_hi
        if abs(f_lo) < 1e-8 * max(1.0, abs(target)):
            return s_lo
        if abs(f_hi) < 1e-8 * max(1.0, abs(target)):
            return s_hi
        return self._at_jump(s_lo, s_hi, target, what, zs)

    def H_total(self, s: Split) -> float:
        return float(sum(p.beta * self.H(p) for p in s.phases))

    def _at_jump(self, below: Split, above: Split, target: float, what: str, zs: np.ndarray) -> Split:
        """Phase amounts where the specification falls in a jump: the phases of both sides (at the same
        temperature and pressure to within the search tolerance) combined so that the material balance and the
        specification hold exactly."""
        candidates: list[Phase] = []
        for p in [*below.phases, *above.phases]:
            if not any(p.kind == q.kind and np.max(np.abs(p.zs - q.zs)) < 1e-6 for q in candidates):
                candidates.append(p)
        T, P = below.T, below.P
        cols = [p.zs for p in candidates]
        spec_row = [self.H(p) if what == "H" else (1.0 if p.kind == "V" else 0.0) for p in candidates]
        scale = max(abs(target), 1.0)
        A = np.vstack([np.array(cols).T, np.array(spec_row) / scale])
        b = np.concatenate([zs, [target / scale]])
        beta, *_ = np.linalg.lstsq(A, b, rcond=None)
        if (beta < -1e-9).any() or np.max(np.abs(A @ beta - b)) > 1e-7:
            raise ValueError("no three-phase solution at the jump")
        beta = np.clip(beta, 0.0, None)
        phases = [
            Phase(p.kind, float(bt), p.zs, p.obj.to(T=T, P=P, zs=[float(v) for v in p.zs]))
            for p, bt in zip(candidates, beta, strict=True)
            if bt > 0.0
        ]
        phases.sort(key=lambda p: p.kind != "V")
        return Split(T, P, phases)


def _balanced(split: Split, zs: np.ndarray) -> bool:
    """True when the phases of ``split`` add up to the overall composition ``zs``."""
    total = sum(p.beta * p.zs for p in split.phases)
    return bool(np.max(np.abs(total - zs)) < 1e-7)


def _rachford_rice(
    zs: np.ndarray, KV: np.ndarray, K2: np.ndarray, beta0: np.ndarray, vapor_on: bool
) -> np.ndarray:
    """Phase fractions (vapour, second liquid) minimising the convex Rachford-Rice function
    F = -sum z ln(1 + bV (KV - 1) + b2 (K2 - 1)), with bV, b2 >= 0 and b1 = 1 - bV - b2 >= 0."""
    present = zs > 0
    z, a, c = zs[present], KV[present] - 1.0, K2[present] - 1.0
    beta = np.array(beta0, dtype=float)
    if not vapor_on:
        beta[0] = 0.0
    active = [vapor_on, True]
    for _ in range(100):
        # t > 0 always; it rounds to 0 for a component with K ~ 0 at a phase fraction ~ 1
        t = np.maximum(1.0 + beta[0] * a + beta[1] * c, T_FLOOR)
        g = -np.array([np.sum(z * a / t), np.sum(z * c / t)])
        Haa, Hac, Hcc = np.sum(z * a * a / t**2), np.sum(z * a * c / t**2), np.sum(z * c * c / t**2)
        H = np.array([[Haa, Hac], [Hac, Hcc]])
        idx = [k for k in range(2) if active[k]]
        if not idx or max(abs(g[k]) for k in idx) < 1e-14:
            break
        step = np.zeros(2)
        sub = H[np.ix_(idx, idx)]
        try:
            step[idx] = -np.linalg.solve(sub + 1e-14 * np.eye(len(idx)), g[idx])
        except np.linalg.LinAlgError:
            break
        # keep every t > 0 and the fractions feasible
        lam = 1.0
        for _ in range(60):
            trial = beta + lam * step
            t_new = 1.0 + trial[0] * a + trial[1] * c
            if (t_new > 0).all():
                break
            lam *= 0.5
        trial = beta + lam * step
        changed = False
        for k in idx:
            if trial[k] < 0.0:
                trial[k] = 0.0
                active[k] = False
                changed = True
        if trial.sum() > 1.0:
            trial = trial / trial.sum()
        done = np.max(np.abs(trial - beta)) < 1e-13
        beta = trial
        if done and not changed:
            break
    return beta

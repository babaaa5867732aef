"""Kinetic reactor models: the contents' properties, plug-flow integration and the stirred-tank solve.

These are the numerical cores of RPlug and RCSTR, separate from the config reading so that tests can call
them directly: a plug-flow reactor integrates the component flows (and the temperature when adiabatic) along
the reactor volume with scipy's LSODA; a stirred tank solves the steady-state balances in the reaction
extents with a bounded least-squares Newton method (and, for a duty specification, the temperature with
Brent's method around it). Every right-hand side and residual checks the run's time budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from simulator_mock.errors import ConvergenceError, InfeasibleSpecificationError, SimulationError
from simulator_mock.flowsheet.kinetics import (
    P_STANDARD,
    GibbsData,
    PhaseComposition,
    Reaction,
    ReactionSet,
    ln_quotient,
    net_rate,
)
from simulator_mock.flowsheet.time_budget import check_time
from simulator_mock.properties.property_package import PropertyPackage

#: Valid-phase options of the reactor contents: one forced phase, or vapour-liquid equilibrium.
VALID_PHASES = ("V", "L", "VL")


@dataclass
class ContentsState:
    """The reactor contents at one point: each present phase with its volumetric flow, and the enthalpy.

    Attributes:
        phases: "V" / "L" -> (composition seen by the rates, volumetric flow [m3/s]).
        Q: total volumetric flow [m3/s]. H: enthalpy flow [W] (formation basis).
    """

    phases: dict[str, tuple[PhaseComposition, float]]
    Q: float
    H: float

    def volume_fraction(self, phase: str) -> float:
        """Share of the reactor volume held by ``phase`` (no slip: proportional to volumetric flow)."""
        entry = self.phases.get(phase)
        return 0.0 if entry is None or self.Q <= 0.0 else entry[1] / self.Q


class Contents:
    """Evaluates the reactor contents' properties from component flows, T and P.

    Args:
        package: the property package. valid: "V" or "L" (the contents are that one phase, as Aspen's
            vapour-only / liquid-only option) or "VL" (vapour-liquid equilibrium at each point).
        where: context for error messages.
    """

    def __init__(self, package: PropertyPackage, valid: str, where: str) -> None:
        self.package = package
        self.valid = valid
        self.where = where
        self.models = package.models(tuple(range(len(package.CASs))))

    def _single(self, phase: str, zs: np.ndarray, T: float, P: float) -> tuple[PhaseComposition, float]:
        model = self.models.gas if phase == "V" else self.models.liquid
        state = model.to(T=T, P=P, zs=zs.tolist())
        if phase == "V" and self.models.ideal_gas:
            ln_phi = np.zeros(len(zs))
        else:
            ln_phi = np.asarray(state.lnphis(), dtype=float)
        H = float(state.H()) + float(np.dot(zs, self.models.Hfs))
        return PhaseComposition(zs, float(state.V()), ln_phi + math.log(P / P_STANDARD)), H

    def evaluate(self, flows: np.ndarray, T: float, P: float, need_phases: bool = True) -> ContentsState:
        """Properties at component flows ``flows`` [mol/s], T [K], P [Pa]."""
        flows = np.maximum(flows, 0.0)
        total = float(flows.sum())
        if total <= 0.0:
            return ContentsState({}, 0.0, 0.0)
        zs = flows / total
        if self.valid in ("V", "L"):
            comp, H = self._single(self.valid, zs, T, P)
            return ContentsState({self.valid: (comp, total * comp.Vm)}, total * comp.Vm, total * H)
        state, vapor, liquid = self.package.flash_split(zs, self.where, T=T, P=P)
        phases: dict[str, tuple[PhaseComposition, float]] = {}
        if need_phases:
            for key, part, share in (("V", vapor, state.VF), ("L", liquid, 1.0 - state.VF)):
                if part is None or share <= 0.0:
                    continue
                comp, _ = self._single(key, part.zs, T, P)
                phases[key] = (comp, total * share * part.V)
        Q = sum(q for _, q in phases.values()) if phases else total * state.V
        return ContentsState(phases, Q, total * state.H)


def reaction_rates(
    reactions: Sequence[Reaction], state: ContentsState, T: float, ln_Ks: Sequence[float | None]
) -> np.ndarray:
    """Net rate of each kinetic reaction per unit reactor volume [mol/(s m3)] (0 for equilibrium ones and
    for reactions whose phase is absent)."""
    rates = np.zeros(len(reactions))
    for j, reaction in enumerate(reactions):
        if not reaction.kinetic:
            continue
        entry = state.phases.get(reaction.phase)
        if entry is None:
            continue
        rates[j] = 1000.0 * net_rate(reaction, T, entry[0], ln_Ks[j]) * state.volume_fraction(reaction.phase)
    return rates


def equilibrium_constants(
    reactions: Sequence[Reaction], gibbs: GibbsData | None, T: float
) -> list[float | None]:
    """ln K for every reaction that needs one (REVERSIBLE, EQUILIBRIUM), None for the others."""
    return [
        gibbs.ln_K(r, T) if gibbs is not None and r.kind in ("REVERSIBLE", "EQUILIBRIUM") else None
        for r in reactions
    ]


@dataclass
class PlugResult:
    """Outlet of a plug-flow integration."""

    flows: np.ndarray
    T: float
    residence_time: float
    T_min: float
    T_max: float
    extents: np.ndarray


def integrate_plug(
    contents: Contents,
    reactions: Sequence[Reaction],
    gibbs: GibbsData | None,
    flows_in: np.ndarray,
    T_in: float,
    P_in: float,
    P_out: float,
    volume: float,
    adiabatic: bool,
    where: str,
) -> PlugResult:
    """Integrate a plug-flow reactor from inlet to outlet.

    dF_i/dV = sum_j nu_ij r_j; adiabatic: dT/dV = -(dH/dF . dF/dV) / (dH/dT) with the contents' enthalpy
    differentiated numerically, so the enthalpy flow stays constant along the reactor; isothermal: T = T_in.
    The pressure falls linearly from P_in to P_out.

    Args:
        volume: reacting volume [m3] (fluid volume of the reactor).

    Raises:
        ConvergenceError: the integrator fails.
    """
    from scipy.integrate import solve_ivp

    n, m = len(flows_in), len(reactions)
    nu = np.array([r.nu for r in reactions])  # m x n
    scale = float(flows_in.sum())
    fixed_Ks = None if adiabatic else equilibrium_constants(reactions, gibbs, T_in)

    def rhs(V: float, y: np.ndarray) -> np.ndarray:
        check_time(where)
        F, T = y[:n], float(y[n])
        P = P_in + (P_out - P_in) * min(max(V / volume, 0.0), 1.0)
        ln_Ks = fixed_Ks if fixed_Ks is not None else equilibrium_constants(reactions, gibbs, T)
        state = contents.evaluate(F, T, P)
        rates = reaction_rates(reactions, state, T, ln_Ks)
        dF = rates @ nu
        out = np.empty(n + 2 + m)
        out[:n] = dF
        out[n + 1] = 1.0 / state.Q if state.Q > 0 else 0.0
        out[n + 2 :] = rates
        if adiabatic:
            dT = 1e-2
            cp = (contents.evaluate(F, T + dT, P, need_phases=False).H - state.H) / dT
            size = float(np.abs(dF).sum())
            if size > 0.0 and cp > 0.0:
                eps = 1e-6 * max(float(F.sum()), 1e-30) / size
                dH = (contents.evaluate(F + eps * dF, T, P, need_phases=False).H - state.H) / eps
                out[n] = -dH / cp
            else:
                out[n] = 0.0
        else:
            out[n] = 0.0
        return out

    y0 = np.concatenate([flows_in, [T_in, 0.0], np.zeros(m)])
    atol = np.concatenate([np.full(n, 1e-10 * scale), [1e-6, 1e-9], np.full(m, 1e-10 * scale)])
    try:
        sol = solve_ivp(rhs, (0.0, volume), y0, method="LSODA", rtol=1e-8, atol=atol)
    except SimulationError:
        raise
    except Exception as exc:
        raise ConvergenceError(
            f"{where}: the plug-flow integration failed ({type(exc).__name__}: {exc})"
        ) from None
    if not sol.success:
        raise ConvergenceError(f"{where}: the plug-flow integration failed ({sol.message})")
    y = sol.y[:, -1]
    temps = sol.y[n]
    return PlugResult(
        flows=y[:n].copy(),
        T=float(y[n]),
        residence_time=float(y[n + 1]),
        T_min=float(temps.min()),
        T_max=float(temps.max()),
        extents=y[n + 2 :].copy(),
    )


@dataclass
class TankResult:
    """Steady state of a stirred tank at a temperature."""

    flows: np.ndarray
    extents: np.ndarray
    state: ContentsState


def solve_tank(
    contents: Contents,
    reactions: Sequence[Reaction],
    gibbs: GibbsData | None,
    flows_in: np.ndarray,
    T: float,
    P: float,
    volume: float,
    where: str,
    guess: np.ndarray | None = None,
) -> TankResult:
    """Steady-state stirred tank at T and P: extents xi with F = F_in + nu^T xi such that xi_j = r_j(F) V for
    kinetic reactions and ln Q_j = ln K_j for equilibrium ones (bounded least squares).

    Raises:
        ConvergenceError: the balances are not met.
    """
    from scipy.optimize import least_squares

    nu = np.array([r.nu for r in reactions])
    m = len(reactions)
    total = float(flows_in.sum())
    ln_Ks = equilibrium_constants(reactions, gibbs, T)
    upper = np.empty(m)
    lower = np.empty(m)
    for j, r in enumerate(reactions):
        reac, prod = r.nu < 0, r.nu > 0
        upper[j] = float(np.min(flows_in[reac] / -r.nu[reac]))
        lower[j] = -float(np.min(flows_in[prod] / r.nu[prod])) if r.kind != "KINETIC" else 0.0
    span = np.maximum(upper - lower, 1e-12 * total)
    floor = 1e-14 * total

    def outlet(xi: np.ndarray) -> np.ndarray:
        return flows_in + xi @ nu

    # a reaction whose feed lacks what it needs in both directions cannot proceed: its extent stays 0
    active = np.flatnonzero(upper - lower > 1e-12 * total)

    def residual(x: np.ndarray) -> np.ndarray:
        check_time(where)
        xi = np.zeros(m)
        xi[active] = x
        F = np.maximum(outlet(xi), floor)
        state = contents.evaluate(F, T, P)
        rates = reaction_rates(reactions, state, T, ln_Ks)
        res = np.empty(len(active))
        for k, j in enumerate(active):
            r = reactions[int(j)]
            if r.kinetic:
                res[k] = (xi[j] - rates[j] * volume) / span[j]
            else:
                entry = state.phases.get(r.phase)
                if entry is None:
                    raise InfeasibleSpecificationError(
                        f"{where}: equilibrium reaction {r.label} is in phase {r.phase}, which the reactor "
                        "contents do not have"
                    )
                res[k] = ln_quotient(r, entry[0]) - float(ln_Ks[j])  # type: ignore[arg-type]
        return res

    x0 = (
        guess
        if guess is not None
        else lower
        + 0.5 * (upper - lower) * np.array([0.0 if r.kind == "KINETIC" else 1.0 for r in reactions])
    )
    x0 = np.clip(x0, lower, upper)[active]
    extents = np.zeros(m)
    if active.size:
        lo, hi = lower[active], upper[active]
        try:
            sol = least_squares(
                residual,
                np.clip(x0, lo, hi),
                bounds=(lo, np.maximum(hi, lo + 1e-300)),
                x_scale=span[active],
                xtol=1e-14,
                ftol=1e-14,
                gtol=1e-14,
                max_nfev=400,
            )
        except SimulationError:
            raise
        except Exception as exc:
            raise ConvergenceError(
                f"{where}: the stirred-tank balances failed ({type(exc).__name__}: {exc})"
            ) from None
        worst = float(np.max(np.abs(sol.fun)))
        if worst > 1e-7:
            raise ConvergenceError(
                f"{where}: the stirred-tank balances did not converge (largest scaled residual {worst:.3g})"
            )
        extents[active] = sol.x
    F = outlet(extents)
    if (-1e-9 * total > F).any():
        raise ConvergenceError(f"{where}: the stirred-tank solution has negative flows")
    F = np.maximum(F, 0.0)
    return TankResult(F, extents, contents.evaluate(F, T, P))


def solve_tank_energy(
    energy_residual: Callable[[float], float],
    T_start: float,
    where: str,
    T_bounds: tuple[float, float] = (200.0, 1500.0),
) -> float:
    """Temperature [K] at which ``energy_residual(T)`` (W) vanishes: a bracket grown from T_start, then Brent.

    Raises:
        ConvergenceError: no sign change found within T_bounds.
    """
    from scipy.optimize import brentq

    f0 = energy_residual(T_start)
    if f0 == 0.0:
        return T_start
    step = 10.0
    lo = hi = T_start
    f_lo = f_hi = f0
    for _ in range(40):
        lo, hi = max(T_bounds[0], lo - step), min(T_bounds[1], hi + step)
        f_lo, f_hi = energy_residual(lo), energy_residual(hi)
        if f_lo * f0 <= 0.0:
            hi, f_hi = T_start, f0
            break
        if f_hi * f0 <= 0.0:
            lo, f_lo = T_start, f0
            break
        if lo <= T_bounds[0] and hi >= T_bounds[1]:
            raise ConvergenceError(
                f"{where}: no reactor temperature between {T_bounds[0] - 273.15:.0f} and "
                f"{T_bounds[1] - 273.15:.0f} C meets the specified duty"
            )
        step *= 1.6
    else:
        raise ConvergenceError(f"{where}: no reactor temperature meets the specified duty")
    return float(brentq(energy_residual, lo, hi, xtol=1e-6, rtol=1e-12, maxiter=100))


def named_reactions(
    sets: dict[str, ReactionSet], rxn_ids: dict[str, str] | None, where: str, allow_equilibrium: bool
) -> list[Reaction]:
    """The reactions of the sets a reactor names in its RXN_ID object (values are set names).

    Raises:
        SpecificationError: a set that does not exist, or a REAC-DIST set (RadFrac only).
        UnsupportedOptionError: an equilibrium reaction in a reactor that does not allow one (RPlug).
    """
    from simulator_mock.errors import SpecificationError, UnsupportedOptionError

    out: list[Reaction] = []
    for key, set_name in (rxn_ids or {}).items():
        found = sets.get(set_name)
        if found is None:
            known = ", ".join(sets) or "none"
            raise SpecificationError(
                f"{where}.RXN_ID.{key}: no reaction set {set_name!r} in the reactions section (sets: {known})"
            )
        if found.type != "POWERLAW":
            raise SpecificationError(
                f"{where}.RXN_ID.{key}: reaction set {set_name} is {found.type}; Aspen's {found.type} sets "
                "are for RadFrac, reactors take POWERLAW sets"
            )
        for reaction in found.reactions:
            if not reaction.kinetic and not allow_equilibrium:
                raise UnsupportedOptionError(
                    f"reactions.{set_name}: reaction {reaction.rid} is an equilibrium reaction; {where} is a "
                    "plug-flow reactor and, as in Aspen, RPlug takes only rate-controlled (KINETIC, "
                    "REVERSIBLE) reactions"
                )
            out.append(reaction)
    return out

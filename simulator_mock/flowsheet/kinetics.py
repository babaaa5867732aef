"""Reaction sets of the config's ``reactions`` section: POWERLAW rates and equilibrium constants (pure math).

Aspen's power law (no reference temperature given, as the real schema has no field for one):

    r = k * T**n * exp(-E / (R T)) * prod_i C_i**a_i        [kmol / (s m3 of reacting phase)]

with the pre-exponential factor k in SI units (Aspen requires SI for it), T in K, the concentration basis
MOLARITY (C_i in kmol/m3 of the reacting phase, Aspen's default basis; the schema has no field for another
basis) and the rate basis REAC-VOL. The service writes no concentration exponents: the mock takes the
reactants' stoichiometric magnitudes (an elementary rate law) and 0 for products.

A REVERSIBLE reaction runs at ``r_forward * (1 - Q / K)``: Q is the activity quotient of the reacting phase
and K the equilibrium constant from ideal-gas Gibbs energies of formation (standard state 1 bar), so the rate
vanishes exactly at thermodynamic equilibrium (for an ideal phase this is Aspen's reverse rate with the
reverse kinetic factor k/K and exponents from the stoichiometry). An EQUIL / EQUILIBRIUM reaction is held at
Q = K (RCSTR only; RPlug does not allow equilibrium reactions, as in Aspen).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator_mock.errors import ComponentDataError, SpecificationError, UnsupportedOptionError
from simulator_mock.properties.units import to_si

#: Gas constant [J/(mol K)].
R_GAS = 8.314462618
#: Standard-state pressure of the Gibbs energies of formation [Pa].
P_STANDARD = 1e5
#: Reference temperature of formation properties [K].
T_REF = 298.15

KINETIC_TYPES = ("KINETIC", "FORWARD", "REVERSIBLE")
EQUILIBRIUM_TYPES = ("EQUIL", "EQUILIBRIUM")


@dataclass(frozen=True)
class Reaction:
    """One reaction of a set.

    Attributes:
        label: ``<set>/<REAC_ID>``, for messages and results. set_name, rid: the set and reaction number.
        kind: KINETIC (forward only), REVERSIBLE or EQUILIBRIUM. phase: "L" or "V", the reacting phase.
        nu: stoichiometric coefficients (products > 0), package component order.
        orders: concentration exponents. k: pre-exponential factor [SI, kmol/(s m3) per (kmol/m3)^order].
        n: temperature exponent. E: activation energy [J/mol].
    """

    label: str
    set_name: str
    rid: str
    kind: str
    phase: str
    nu: np.ndarray
    orders: np.ndarray
    k: float
    n: float
    E: float

    @property
    def kinetic(self) -> bool:
        """True for a rate-controlled reaction (KINETIC or REVERSIBLE)."""
        return self.kind != "EQUILIBRIUM"

    def rate_constant(self, T: float) -> float:
        """k T^n exp(-E/RT) [SI]."""
        return self.k * T**self.n * math.exp(-self.E / (R_GAS * T))

    def forward_rate(self, T: float, C_kmol_m3: np.ndarray) -> float:
        """Forward rate [kmol/(s m3)] at temperature T [K] and molarities [kmol/m3] of the reacting phase."""
        C = np.maximum(C_kmol_m3, 0.0)
        active = self.orders != 0.0
        return self.rate_constant(T) * float(np.prod(C[active] ** self.orders[active]))


@dataclass(frozen=True)
class ReactionSet:
    """A named entry of the ``reactions`` section."""

    name: str
    type: str
    reactions: tuple[Reaction, ...]


def parse_reactions(section: dict[str, Any] | None, cids: list[str]) -> dict[str, ReactionSet]:
    """Read the ``reactions`` section (schema-valid) into reaction sets.

    Args:
        section: ``{set name: {type, REAC_DATA: [...]}}``.
        cids: component ids in package order.

    Raises:
        UnsupportedOptionError: an LHHW set, a solid-phase reaction, a rate basis other than REAC-VOL.
        SpecificationError: unknown component ids, a kinetic reaction without PRE_EXP, a CONV reaction in a
            POWERLAW set, a component on both sides, duplicate reaction numbers.
    """
    out: dict[str, ReactionSet] = {}
    for name, body in (section or {}).items():
        where = f"reactions.{name}"
        kind = body.get("type", "POWERLAW")
        if kind == "LHHW":
            raise UnsupportedOptionError(
                f"{where}.type: LHHW is not simulated by the mock: the schema has no fields for the "
                "adsorption and driving-force terms an LHHW rate needs (the real service writes only the "
                "kinetic factor, leaving Aspen an incomplete LHHW set); write the reactions as POWERLAW"
            )
        items = body.get("REAC_DATA") or []
        if not items:
            raise SpecificationError(f"{where}.REAC_DATA: a reaction set needs at least one reaction")
        rids = [str(item["REAC_ID"]) for item in items]
        for rid in rids:
            if rids.count(rid) > 1:
                raise SpecificationError(f"{where}.REAC_DATA: reaction number REAC_ID {rid} is used twice")
        reactions = tuple(
            _reaction(name, kind, k, item, cids) for k, item in enumerate(items) if kind == "POWERLAW"
        )
        out[name] = ReactionSet(name, kind, reactions)
    return out


def _reaction(set_name: str, set_type: str, k: int, item: dict[str, Any], cids: list[str]) -> Reaction:
    where = f"reactions.{set_name}.REAC_DATA[{k}]"
    rid = str(item["REAC_ID"])
    reactype = item["REACTYPE"]
    if reactype == "CONV":
        raise SpecificationError(
            f"{where}.REACTYPE: CONV reactions belong to REAC-DIST sets (RadFrac); a {set_type} set takes "
            "KINETIC, REVERSIBLE or EQUIL reactions"
        )
    phase = item.get("PHASE") or "L"  # Aspen's default reacting phase
    if phase == "S":
        raise UnsupportedOptionError(f"{where}.PHASE: solid-phase reactions are not simulated; use L or V")
    basis = item.get("R_D_RBASIS") or "REAC-VOL"
    if basis != "REAC-VOL":
        raise UnsupportedOptionError(
            f"{where}.R_D_RBASIS: {basis} is not simulated (catalyst-weight rates need catalyst "
            "loading); use REAC-VOL"
        )
    nu = np.zeros(len(cids))
    for part, sign in (("COEF_DATA", -1.0), ("COEF1_DATA", 1.0)):
        for cid, coef in (item.get(part) or {}).items():
            if cid not in cids:
                raise SpecificationError(
                    f"{where}.{part}.{cid}: no component with cid {cid!r}; components are {', '.join(cids)}",
                    error_type="UnknownComponent",
                )
            i = cids.index(cid)
            if nu[i] != 0.0:
                raise SpecificationError(f"{where}: component {cid} is both a reactant and a product")
            # reactant coefficients are negative in the schema; a positive one is read as its magnitude
            nu[i] = sign * abs(float(coef))
    if not (nu < 0).any() or not (nu > 0).any():
        raise SpecificationError(f"{where}: a reaction needs at least one reactant and one product")
    orders = np.where(nu < 0, -nu, 0.0)
    if reactype in EQUILIBRIUM_TYPES:
        return Reaction(f"{set_name}/{rid}", set_name, rid, "EQUILIBRIUM", phase, nu, orders, 0.0, 0.0, 0.0)
    if item.get("PRE_EXP") is None:
        raise SpecificationError(f"{where}.PRE_EXP: a {reactype} reaction needs its pre-exponential factor")
    E = 0.0
    if item.get("ACT_ENERGY_VALUE") is not None:
        if not item.get("ACT_ENERGY_UNITS"):
            raise SpecificationError(
                f"{where}.ACT_ENERGY_VALUE is given without ACT_ENERGY_UNITS: the service would write the "
                "bare number in the run's unit set; give ACT_ENERGY_UNITS (cal/mol or Btu/lbmol)"
            )
        E = to_si(
            float(item["ACT_ENERGY_VALUE"]),
            item["ACT_ENERGY_UNITS"],
            "mole_enthalpy",
            f"{where}.ACT_ENERGY_UNITS",
        )
    kind = "REVERSIBLE" if reactype == "REVERSIBLE" else "KINETIC"
    return Reaction(
        f"{set_name}/{rid}",
        set_name,
        rid,
        kind,
        phase,
        nu,
        orders,
        float(item["PRE_EXP"]),
        float(item.get("T_EXP") or 0.0),
        E,
    )


class GibbsData:
    """Ideal-gas standard Gibbs energies of the components at any temperature (for equilibrium constants).

    G_i(T) = Hf_i + int_Tref^T Cp_i dT - T (Sf_i + int_Tref^T Cp_i/T dT), Sf_i = (Hf_i - Gf_i)/Tref: the
    elements' entropies cancel in any balanced reaction.
    """

    def __init__(self, package: Any, cids: list[str]) -> None:
        self.package = package
        self.cids = cids

    def check(self, reaction: Reaction, where: str) -> None:
        """ComponentDataError when a component of ``reaction`` lacks formation data."""
        c = self.package.constants
        for i in np.flatnonzero(reaction.nu):
            if c.Hfgs[i] is None or c.Gfgs[i] is None:
                raise ComponentDataError(
                    f"{where}: component {self.cids[i]} has no Gibbs energy of formation in the database; "
                    "the equilibrium constant cannot be computed"
                )

    def G(self, i: int, T: float) -> float:
        """Standard molar Gibbs energy of component i (ideal gas, 1 bar) on the formation basis [J/mol]."""
        c = self.package.constants
        cp = self.package.correlations.HeatCapacityGases[i]
        Hf, Gf = float(c.Hfgs[i]), float(c.Gfgs[i])
        dH = cp.T_dependent_property_integral(T_REF, T)
        dS = cp.T_dependent_property_integral_over_T(T_REF, T)
        return Hf + dH - T * ((Hf - Gf) / T_REF + dS)

    def ln_K(self, reaction: Reaction, T: float) -> float:
        """ln K = -dG(T)/(RT), activities f_i / 1 bar."""
        dG = sum(float(reaction.nu[i]) * self.G(int(i), T) for i in np.flatnonzero(reaction.nu))
        return -dG / (R_GAS * T)


@dataclass(frozen=True)
class PhaseComposition:
    """The reacting phase as the rates see it.

    Attributes:
        x: mole fractions. Vm: molar volume [m3/mol]. ln_f: ln(phi_i P / P0), so that the activity (fugacity
        over the standard pressure) of component i is x_i exp(ln_f_i).
    """

    x: np.ndarray
    Vm: float
    ln_f: np.ndarray

    @property
    def molarities(self) -> np.ndarray:
        """C_i [kmol/m3]."""
        return self.x / (1000.0 * self.Vm)

    def ln_activities(self, floor: float = 1e-300) -> np.ndarray:
        """ln a_i (absent components at a tiny floor, so that ln Q stays finite)."""
        return np.log(np.maximum(self.x, floor)) + self.ln_f


def ln_quotient(reaction: Reaction, phase: PhaseComposition) -> float:
    """ln Q = sum nu_i ln a_i over the components of the reaction."""
    idx = np.flatnonzero(reaction.nu)
    return float(np.dot(reaction.nu[idx], phase.ln_activities()[idx]))


def net_rate(reaction: Reaction, T: float, phase: PhaseComposition, ln_K: float | None) -> float:
    """Net rate [kmol/(s m3 of reacting phase)] of a kinetic reaction.

    REVERSIBLE: k(T) [prod_r C_r^|nu_r| - (1/K) prod_p a_p^nu_p prod_r (C_r/a_r)^|nu_r|], which is
    r_forward (1 - Q/K) and stays finite when a reactant is absent.
    """
    C = np.maximum(phase.molarities, 0.0)
    forward = reaction.forward_rate(T, C)
    if reaction.kind != "REVERSIBLE":
        return forward
    assert ln_K is not None
    reac = np.flatnonzero(reaction.nu < 0)
    prod = np.flatnonzero(reaction.nu > 0)
    x = np.maximum(phase.x, 0.0)
    if (x[prod] <= 0.0).any():
        return forward
    ln_reverse = (
        float(np.dot(reaction.nu[prod], np.log(x[prod]) + phase.ln_f[prod]))
        - float(np.dot(-reaction.nu[reac], phase.ln_f[reac] + math.log(1000.0 * phase.Vm)))
        - ln_K
    )
    return forward - reaction.rate_constant(T) * math.exp(min(ln_reverse, 700.0))


def check_balanced(reaction: Reaction, package: Any, cids: list[str], where: str) -> None:
    """SpecificationError (UnbalancedReaction) when the reaction does not conserve elements or mass."""
    involved = np.flatnonzero(reaction.nu)
    if all(package.atoms[i] for i in involved):
        for element in sorted({e for i in involved for e in package.atoms[i]}):
            net = sum(reaction.nu[i] * package.atoms[i].get(element, 0) for i in involved)
            if abs(net) > 1e-9:
                raise SpecificationError(
                    f"{where}: reaction {reaction.rid} is not balanced in {element} (net {net:+g} atoms per "
                    "reaction)",
                    error_type="UnbalancedReaction",
                )
    net_mass = float(np.dot(reaction.nu, package.MWs))
    if abs(net_mass) > 1e-6 * float(np.dot(np.abs(reaction.nu), package.MWs)):
        raise SpecificationError(
            f"{where}: reaction {reaction.rid} does not conserve mass ({net_mass:+.6g} g per mol of "
            "reaction)",
            error_type="UnbalancedReaction",
        )

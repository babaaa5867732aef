"""Lee-Kesler enthalpy and entropy departures of a mixture (the liquid caloric model of Aspen's CHAO-SEA).

Lee, B. I.; Kesler, M. G. "A generalized thermodynamic correlation based on three-parameter corresponding
states", AIChE J. 21 (1975) 510-527. A property X of a fluid with acentric factor omega interpolates
between the simple fluid (0) and the reference fluid n-octane (r), each described by a modified BWR equation
in reduced variables:

    X = X0 + omega / omega_r * (Xr - X0),   omega_r = 0.3978
    Z = Pr Vr / Tr = 1 + B/Vr + C/Vr^2 + D/Vr^5 + c4/(Tr^3 Vr^2) (beta + gamma/Vr^2) exp(-gamma/Vr^2)
    B = b1 - b2/Tr - b3/Tr^2 - b4/Tr^3,  C = c1 - c2/Tr + c3/Tr^3,  D = d1 + d2/Tr,  Vr = Pc V / (R Tc)

with the departures, E = c4 / (2 Tr^3 gamma) [beta + 1 - (beta + 1 + gamma/Vr^2) exp(-gamma/Vr^2)]:

    (H - H_ig) / (R Tc) = Tr [Z - 1 - (b2 + 2 b3/Tr + 3 b4/Tr^2)/(Tr Vr) - (c2 - 3 c3/Tr^2)/(2 Tr Vr^2)
                              + d2/(5 Tr Vr^5) + 3 E]
    (S - S_ig) / R = ln Z - (b1 + b3/Tr^2 + 2 b4/Tr^3)/Vr - (c1 - 2 c3/Tr^3)/(2 Vr^2) - d1/(5 Vr^5) + 2 E

(S_ig at the same T and P). A mixture uses the paper's pseudo-critical constants:
Zc_i = 0.2905 - 0.085 omega_i, Vc_i = Zc_i R Tc_i / Pc_i, Vc = 1/8 sum_ij x_i x_j (Vc_i^1/3 + Vc_j^1/3)^3,
Tc = 1/(8 Vc) sum_ij x_i x_j (Vc_i^1/3 + Vc_j^1/3)^3 (Tc_i Tc_j)^1/2, omega = sum_i x_i omega_i,
Pc = (0.2905 - 0.085 omega) R Tc / Vc.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

R = 8.314462618
OMEGA_REFERENCE = 0.3978


@dataclass(frozen=True, slots=True)
class Fluid:
    """Constants of one of the two Lee-Kesler fluids."""

    b1: float
    b2: float
    b3: float
    b4: float
    c1: float
    c2: float
    c3: float
    c4: float
    d1: float
    d2: float
    beta: float
    gamma: float

    def Z(self, Tr: float, Vr: float) -> float:
        """Compressibility factor at reduced temperature and (pseudo-)reduced volume."""
        B = self.b1 - self.b2 / Tr - self.b3 / Tr**2 - self.b4 / Tr**3
        C = self.c1 - self.c2 / Tr + self.c3 / Tr**3
        D = self.d1 + self.d2 / Tr
        g = self.gamma / Vr**2
        return (
            1.0 + B / Vr + C / Vr**2 + D / Vr**5 + self.c4 / (Tr**3 * Vr**2) * (self.beta + g) * math.exp(-g)
        )

    def liquid_volume(self, Tr: float, Pr: float) -> float:
        """The smallest reduced volume at which the fluid has the reduced pressure ``Pr`` (the liquid root;
        the only root above the critical point)."""
        grid = np.geomspace(0.02, max(100.0, 10.0 * Tr / Pr), 400)
        excess = [self.Z(Tr, v) * Tr / v - Pr for v in grid]
        for k in range(1, len(grid)):
            if excess[k - 1] > 0.0 >= excess[k]:
                return float(brentq(lambda v: self.Z(Tr, v) * Tr / v - Pr, grid[k - 1], grid[k], xtol=1e-14))
        raise ValueError(f"Lee-Kesler: no volume root at Tr={Tr:.4g}, Pr={Pr:.4g}")

    def departures(self, Tr: float, Vr: float) -> tuple[float, float]:
        """((H - H_ig)/(R Tc), (S - S_ig)/R) at reduced temperature and reduced volume."""
        Z = self.Z(Tr, Vr)
        g = self.gamma / Vr**2
        E = self.c4 / (2.0 * Tr**3 * self.gamma) * (self.beta + 1.0 - (self.beta + 1.0 + g) * math.exp(-g))
        H = Tr * (
            Z
            - 1.0
            - (self.b2 + 2.0 * self.b3 / Tr + 3.0 * self.b4 / Tr**2) / (Tr * Vr)
            - (self.c2 - 3.0 * self.c3 / Tr**2) / (2.0 * Tr * Vr**2)
            + self.d2 / (5.0 * Tr * Vr**5)
            + 3.0 * E
        )
        S = (
            math.log(Z)
            - (self.b1 + self.b3 / Tr**2 + 2.0 * self.b4 / Tr**3) / Vr
            - (self.c1 - 2.0 * self.c3 / Tr**3) / (2.0 * Vr**2)
            - self.d1 / (5.0 * Vr**5)
            + 2.0 * E
        )
        return H, S


#: Lee and Kesler (1975), Table 1.
SIMPLE = Fluid(
    0.1181193, 0.265728, 0.154790, 0.030323, 0.0236744, 0.0186984, 0.0, 0.042724, 0.155488e-4, 0.623689e-4,
    0.65392, 0.060167,
)  # fmt: skip
REFERENCE = Fluid(
    0.2026579, 0.331511, 0.027655, 0.203488, 0.0313385, 0.0503618, 0.016901, 0.041577, 0.48736e-4,
    0.0740336e-4, 1.226, 0.03754,
)  # fmt: skip


def pseudo_criticals(
    xs: np.ndarray, Tcs: np.ndarray, Pcs: np.ndarray, omegas: np.ndarray
) -> tuple[float, float, float]:
    """(Tc [K], Pc [Pa], omega) of a mixture by Lee and Kesler's rules."""
    Vcs = (0.2905 - 0.085 * omegas) * R * Tcs / Pcs
    cube = np.cbrt(Vcs)
    pair = (cube[:, None] + cube[None, :]) ** 3
    weights = np.outer(xs, xs) * pair
    Vc = float(weights.sum()) / 8.0
    Tc = float((weights * np.sqrt(np.outer(Tcs, Tcs))).sum()) / (8.0 * Vc)
    omega = float(np.dot(xs, omegas))
    return Tc, (0.2905 - 0.085 * omega) * R * Tc / Vc, omega


def liquid_departures(
    T: float, P: float, xs: np.ndarray, Tcs: np.ndarray, Pcs: np.ndarray, omegas: np.ndarray
) -> tuple[float, float]:
    """(H - H_ig [J/mol], S - S_ig [J/mol/K]) of a liquid mixture at T [K], P [Pa] (S_ig at the same T, P)."""
    Tc, Pc, omega = pseudo_criticals(xs, Tcs, Pcs, omegas)
    Tr, Pr = T / Tc, P / Pc
    H0, S0 = SIMPLE.departures(Tr, SIMPLE.liquid_volume(Tr, Pr))
    Hr, Sr = REFERENCE.departures(Tr, REFERENCE.liquid_volume(Tr, Pr))
    weight = omega / OMEGA_REFERENCE
    return R * Tc * (H0 + weight * (Hr - H0)), R * (S0 + weight * (Sr - S0))

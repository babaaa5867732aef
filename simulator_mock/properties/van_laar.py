"""Van Laar activity-coefficient model (two parameters per pair) as a `thermo` GibbsExcess model.

Van Laar (1910); binary form as in Prausnitz, Lichtenthaler and de Azevedo, Molecular Thermodynamics of
Fluid-Phase Equilibria (3rd ed., sec. 6.13): G^E/RT = A_ij A_ji x_i x_j / (A_ij x_i + A_ji x_j), with
A_ij = ln gamma_i at infinite dilution in j. Multicomponent: the sum of the pair terms (reduces to the binary
form for every pair; Aspen's own multicomponent Van Laar form is not reproduced). Parameters A_ij = B_ij / T
[B in K], so G^E does not depend on temperature (regular-solution behaviour: no excess entropy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from thermo.activity import GibbsExcess

R = 8.314462618


class VanLaar(GibbsExcess):
    """Multicomponent (pairwise) Van Laar with ``B`` [K]: A_ij = B[i][j] / T."""

    model_id = 90001

    def __init__(self, *, xs: list[float], T: float, B: list[list[float]]) -> None:
        self.T = T
        self.xs = xs
        self.N = len(xs)
        self.vectorized = False
        self.B = np.asarray(B, dtype=float)

    def to_T_xs(self, T: float, xs: list[float]) -> VanLaar:
        new = self.__class__.__new__(self.__class__)
        new.T, new.xs, new.N, new.vectorized, new.B = T, xs, len(xs), False, self.B
        return new

    def _terms(self) -> tuple[float, np.ndarray]:
        """(sum of the pair terms in K, its derivatives by x_k in K)."""
        x = np.asarray(self.xs, dtype=float)
        B = self.B
        total = 0.0
        grad = np.zeros(self.N)
        for i in range(self.N):
            for j in range(i + 1, self.N):
                a, b = B[i, j], B[j, i]
                if a == 0.0 and b == 0.0:
                    continue
                D = a * x[i] + b * x[j]
                if D == 0.0:
                    continue
                total += a * b * x[i] * x[j] / D
                grad[i] += a * b * b * x[j] ** 2 / D**2
                grad[j] += a * a * b * x[i] ** 2 / D**2
        return total, grad

    def GE(self) -> float:
        return R * self._terms()[0]

    def dGE_dxs(self) -> list[float]:
        return (R * self._terms()[1]).tolist()

    def dGE_dT(self) -> float:
        return 0.0

    def d2GE_dT2(self) -> float:
        return 0.0

    def d3GE_dT3(self) -> float:
        return 0.0

    def d2GE_dTdxs(self) -> list[float]:
        return [0.0] * self.N

    def d2GE_dxixjs(self) -> Any:
        h = 1e-7
        base = np.asarray(self.dGE_dxs())
        out = []
        for k in range(self.N):
            xs = list(self.xs)
            xs[k] += h
            out.append(((np.asarray(self.to_T_xs(self.T, xs).dGE_dxs()) - base) / h).tolist())
        return out

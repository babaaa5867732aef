"""The state of a flashed stream or phase (`PhaseState`), and what counts as a trace component."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: Mole fractions below this are treated as absent (flashed on the remaining subset).
TRACE = 1e-15


@dataclass(frozen=True, slots=True)
class PhaseState:
    """Intensive state of a material stream after a flash (all SI; H on formation basis).

    Attributes:
        T: temperature [K]. P: pressure [Pa]. VF: vapour mole fraction [-].
        H: molar enthalpy, ideal-gas elements at 298.15 K as zero (Aspen's basis) [J/mol].
        S: molar entropy [J/mol/K]. V: molar volume [m3/mol].
        zs, xs, ys: overall, liquid and vapour mole fractions (full component vectors).
        V_liquid: molar volume of the liquid phase [m3/mol], None when no liquid.
        x1s, x2s: compositions of the 1st and 2nd liquid when the liquid splits in two (None otherwise); xs is
            then the composition of both liquids together. The 2nd liquid is the denser one.
        LF2: mole fraction of the material in the 2nd liquid [-] (0 without a split).
    """

    T: float
    P: float
    VF: float
    H: float
    S: float
    V: float
    zs: np.ndarray
    xs: np.ndarray
    ys: np.ndarray
    V_liquid: float | None
    x1s: np.ndarray | None = None
    x2s: np.ndarray | None = None
    LF2: float = 0.0

    @property
    def two_liquids(self) -> bool:
        """True when the liquid is split in two phases."""
        return self.x1s is not None

    @property
    def LF1(self) -> float:
        """Mole fraction of the material in the 1st (or only) liquid [-]."""
        return max(1.0 - self.VF - self.LF2, 0.0)


def phase_state(phase: Any, idx: tuple[int, ...], Hfs: np.ndarray, n: int, VF: float) -> PhaseState:
    """State of one thermo phase of the components at positions ``idx`` (of ``n``), whose formation enthalpies
    are ``Hfs``; ``VF`` 1 for a vapour, 0 for a liquid."""
    zs = np.zeros(n)
    zs[list(idx)] = phase.zs
    H = float(phase.H()) + float(np.dot(phase.zs, Hfs))
    V = float(phase.V())
    return PhaseState(
        T=float(phase.T),
        P=float(phase.P),
        VF=VF,
        H=H,
        S=float(phase.S()),
        V=V,
        zs=zs,
        xs=zs,
        ys=zs,
        V_liquid=None if VF else V,
    )

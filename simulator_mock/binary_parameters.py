"""NRTL binary parameters: ChemSep's database, with missing pairs estimated from UNIFAC (as Aspen does)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import least_squares

#: Non-randomness of estimated pairs (Aspen's default for estimated NRTL pairs).
ALPHA = 0.3
#: Dilution used for "infinite dilution" activity coefficients.
DILUTE = 1e-5


def nrtl_parameters(
    CASs: list[str], names: list[str], unifac_groups: list[dict[int, int]], Tbs: list[float | None]
) -> tuple[list[list[float]], list[list[float]], list[str]]:
    """NRTL ``tau_bs`` [K] and ``alpha_cs`` matrices for a component list.

    Pairs in ChemSep's NRTL table (both orders present, checked with ``IPDB.has_ip_specific``) use its
    parameters. A missing pair is fitted to UNIFAC (original) infinite-dilution activity coefficients at
    the pair's mean normal boiling point, with tau_ij = b_ij / T; a pair whose UNIFAC groups are unknown
    stays ideal. Every substitution is reported.

    Returns:
        (tau_bs, alpha_cs, warnings).
    """
    from thermo.interaction_parameters import IPDB

    n = len(CASs)
    tau_bs = IPDB.get_ip_asymmetric_matrix("ChemSep NRTL", CASs, "bij")
    alpha_cs = IPDB.get_ip_asymmetric_matrix("ChemSep NRTL", CASs, "alphaij")
    estimated: list[str] = []
    ideal: list[str] = []
    for i in range(n):
        for j in range(i + 1, n):
            pair = [CASs[i], CASs[j]]
            if IPDB.has_ip_specific("ChemSep NRTL", pair, "bij") and IPDB.has_ip_specific(
                "ChemSep NRTL", pair[::-1], "bij"
            ):
                continue
            label = f"{names[i]}/{names[j]}"
            if not (unifac_groups[i] and unifac_groups[j]):
                tau_bs[i][j] = tau_bs[j][i] = 0.0
                ideal.append(label)
                continue
            T = _reference_temperature(Tbs[i], Tbs[j])
            b_ij, b_ji = _fit_pair(unifac_groups[i], unifac_groups[j], T)
            tau_bs[i][j], tau_bs[j][i] = b_ij, b_ji
            alpha_cs[i][j] = alpha_cs[j][i] = ALPHA
            estimated.append(f"{label} ({T:.0f} K)")
    warnings = []
    if estimated:
        warnings.append(
            "NRTL: no ChemSep binary parameters for "
            + ", ".join(estimated)
            + "; estimated from UNIFAC infinite-dilution activity coefficients (alpha 0.3)"
        )
    if ideal:
        warnings.append(
            f"NRTL: no ChemSep parameters and no UNIFAC groups for {', '.join(ideal)}; treated as ideal"
        )
    return tau_bs, alpha_cs, warnings


def _reference_temperature(Tb_i: float | None, Tb_j: float | None) -> float:
    known = [T for T in (Tb_i, Tb_j) if T]
    return float(np.clip(np.mean(known), 250.0, 550.0)) if known else 350.0


def _ln_gamma_inf(model: Any, T: float) -> tuple[float, float]:
    first = model.to_T_xs(T, [1.0 - DILUTE, DILUTE]).gammas()[1]
    second = model.to_T_xs(T, [DILUTE, 1.0 - DILUTE]).gammas()[0]
    return math.log(second), math.log(first)


def _fit_pair(groups_i: dict[int, int], groups_j: dict[int, int], T: float) -> tuple[float, float]:
    """(b_ij, b_ji) [K] reproducing UNIFAC's ln gamma-infinity of both components at T."""
    from thermo import NRTL, UNIFAC
    from thermo.unifac import UFIP, UFSG

    unifac = UNIFAC.from_subgroups(
        T=T, xs=[0.5, 0.5], chemgroups=[groups_i, groups_j], subgroups=UFSG, interaction_data=UFIP, version=0
    )
    target = np.array(_ln_gamma_inf(unifac, T))

    def residual(taus: np.ndarray) -> np.ndarray:
        nrtl = NRTL(
            T=T, xs=[0.5, 0.5], tau_as=[[0.0, taus[0]], [taus[1], 0.0]], alpha_cs=[[0.0, ALPHA], [ALPHA, 0.0]]
        )
        return np.array(_ln_gamma_inf(nrtl, T)) - target

    guess = np.clip(target[::-1] * 0.5, -5.0, 10.0)
    fit = least_squares(residual, guess, bounds=([-10.0, -10.0], [30.0, 30.0]))
    return float(fit.x[0] * T), float(fit.x[1] * T)

"""Binary parameters of the activity-coefficient methods (NRTL, UNIQUAC, WILSON): ChemSep's database, with
missing pairs estimated from UNIFAC infinite-dilution activity coefficients (as Aspen does)."""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import pairwise
from typing import Any

import numpy as np
from scipy.optimize import least_squares

#: Non-randomness of estimated pairs (Aspen's default for estimated NRTL pairs).
ALPHA = 0.3
#: Non-randomness of an estimated pair that UNIFAC splits into two liquids at 25 C: Renon and Prausnitz's
#: (1968) value for partially miscible systems. With 0.3 and the large taus such pairs need, NRTL predicts
#: a spurious water-rich liquid holding 43 mol % toluene (water/toluene, 25 C); with 0.2, 3e-5 (measured:
#: 1e-4).
ALPHA_IMMISCIBLE = 0.2
#: Temperature of that miscibility test [K], and how far apart UNIFAC's two liquids must be (mole fraction).
_SPLIT_T = 298.15
IMMISCIBLE_GAP = 0.5
#: Dilution used for "infinite dilution" activity coefficients.
DILUTE = 1e-5


#: ChemSep tables whose pairs were fitted to vapour-liquid equilibrium data, by liquid model (Wilson's cannot
#: split a liquid, so it is not listed).
VLE_FITTED_TABLES = {"NRTL": "ChemSep NRTL", "UNIQUAC": "ChemSep UNIQUAC"}


def chemsep_pairs(table: str, CASs: list[str]) -> list[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i < j``, whose parameters come from ChemSep's ``table`` (both orders)."""
    from thermo.interaction_parameters import IPDB

    key = "bij"
    return [
        (i, j)
        for i in range(len(CASs))
        for j in range(i + 1, len(CASs))
        if IPDB.has_ip_specific(table, [CASs[i], CASs[j]], key)
        and IPDB.has_ip_specific(table, [CASs[j], CASs[i]], key)
    ]


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
            alpha = ALPHA_IMMISCIBLE if _unifac_splits(unifac_groups[i], unifac_groups[j]) else ALPHA
            b_ij, b_ji = _fit_pair(unifac_groups[i], unifac_groups[j], T, alpha)
            tau_bs[i][j], tau_bs[j][i] = b_ij, b_ji
            alpha_cs[i][j] = alpha_cs[j][i] = alpha
            estimated.append(f"{label} ({T:.0f} K, alpha {alpha:g})")
    warnings = []
    if estimated:
        warnings.append(
            "NRTL: no ChemSep binary parameters for "
            + ", ".join(estimated)
            + "; estimated from UNIFAC infinite-dilution activity coefficients (alpha 0.2 where UNIFAC splits"
            " the pair into two liquids far apart at 25 C, else 0.3)"
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


def _unifac(groups_i: dict[int, int], groups_j: dict[int, int], T: float) -> Any:
    from thermo import UNIFAC
    from thermo.unifac import UFIP, UFSG

    return UNIFAC.from_subgroups(
        T=T, xs=[0.5, 0.5], chemgroups=[groups_i, groups_j], subgroups=UFSG, interaction_data=UFIP, version=0
    )


def _unifac_splits(groups_i: dict[int, int], groups_j: dict[int, int]) -> bool:
    """True when UNIFAC splits the pair at 25 C into two liquids differing by more than
    :data:`IMMISCIBLE_GAP` in mole fraction: the widest segment of the lower convex hull of its Gibbs energy
    of mixing. (Original UNIFAC also splits isopropanol/water and 1-propanol/water, narrowly (0.12), which
    are miscible: those keep alpha 0.3.)"""
    unifac = _unifac(groups_i, groups_j, _SPLIT_T)
    xs = np.linspace(0.001, 0.999, 400)
    g = []
    for x in xs:
        gammas = unifac.to_T_xs(_SPLIT_T, [float(x), float(1.0 - x)]).gammas()
        g.append(x * math.log(x * gammas[0]) + (1.0 - x) * math.log((1.0 - x) * gammas[1]))
    hull: list[int] = []
    for k in range(len(xs)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            if (g[b] - g[a]) * (xs[k] - xs[a]) >= (g[k] - g[a]) * (xs[b] - xs[a]):
                hull.pop()
            else:
                break
        hull.append(k)
    gap = max(float(xs[b] - xs[a]) for a, b in pairwise(hull))
    return gap > IMMISCIBLE_GAP


def _fit_pair(
    groups_i: dict[int, int], groups_j: dict[int, int], T: float, alpha: float = ALPHA
) -> tuple[float, float]:
    """(b_ij, b_ji) [K] reproducing UNIFAC's ln gamma-infinity of both components at T."""
    from thermo import NRTL

    target = np.array(_ln_gamma_inf(_unifac(groups_i, groups_j, T), T))

    def residual(taus: np.ndarray) -> np.ndarray:
        nrtl = NRTL(
            T=T, xs=[0.5, 0.5], tau_as=[[0.0, taus[0]], [taus[1], 0.0]], alpha_cs=[[0.0, alpha], [alpha, 0.0]]
        )
        return np.array(_ln_gamma_inf(nrtl, T)) - target

    guess = np.clip(target[::-1] * 0.5, -5.0, 10.0)
    fit = least_squares(residual, guess, bounds=([-10.0, -10.0], [30.0, 30.0]))
    return float(fit.x[0] * T), float(fit.x[1] * T)


#: ChemSep table, the thermo keyword per key, and the keys of each two-parameter method (tau or Lambda
#: = exp(a_ij + b_ij / T); thermo's UNIQUAC and Wilson forms, the forms of ChemSep's tables).
_TABLES: dict[str, tuple[str, dict[str, str]]] = {
    "UNIQUAC": ("ChemSep UNIQUAC", {"bij": "tau_bs"}),
    "WILSON": ("ChemSep Wilson", {"aij": "lambda_as", "bij": "lambda_bs"}),
}


def exp_parameters(
    method: str,
    CASs: list[str],
    names: list[str],
    unifac_groups: list[dict[int, int]],
    Tbs: list[float | None],
    rs: list[float | None],
    qs: list[float | None],
    Vs: list[float | None],
) -> tuple[dict[str, list[list[float]]], list[str]]:
    """Interaction matrices of UNIQUAC (``tau_as``, ``tau_bs``) or WILSON (``lambda_as``, ``lambda_bs``).

    Pairs in ChemSep's table (both orders) use its parameters. A missing pair is fitted to UNIFAC
    (original) infinite-dilution activity coefficients at the pair's mean normal boiling point with a
    temperature-only b_ij / T term (WILSON: a_ij = ln(V_j / V_i) from the liquid molar volumes at that
    temperature, Wilson's 1964 definition); a pair whose UNIFAC groups are unknown stays ideal. Every
    substitution is reported.

    Returns:
        ({thermo keyword: matrix}, warnings).
    """
    from thermo.interaction_parameters import IPDB

    table, keys = _TABLES[method]
    n = len(CASs)
    mats = {kw: IPDB.get_ip_asymmetric_matrix(table, CASs, key) for key, kw in keys.items()}
    a_kw = "lambda_as" if method == "WILSON" else "tau_as"
    b_kw = "lambda_bs" if method == "WILSON" else "tau_bs"
    if a_kw not in mats:
        mats[a_kw] = [[0.0] * n for _ in range(n)]
    estimated: list[str] = []
    ideal: list[str] = []
    for i in range(n):
        for j in range(i + 1, n):
            pair = [CASs[i], CASs[j]]
            if IPDB.has_ip_specific(table, pair, "bij") and IPDB.has_ip_specific(table, pair[::-1], "bij"):
                continue
            label = f"{names[i]}/{names[j]}"
            T = _reference_temperature(Tbs[i], Tbs[j])
            if method == "WILSON":
                a_ij, a_ji = _wilson_volume_terms(Vs[i], Vs[j])
            else:
                a_ij = a_ji = 0.0
            mats[a_kw][i][j], mats[a_kw][j][i] = a_ij, a_ji
            if not (unifac_groups[i] and unifac_groups[j]) or (
                method == "UNIQUAC" and not all((rs[i], rs[j], qs[i], qs[j]))
            ):
                # ideal: UNIQUAC tau = 1; Wilson Lambda_ij = 1 (a_ij = b_ij = 0)
                mats[a_kw][i][j] = mats[a_kw][j][i] = 0.0
                mats[b_kw][i][j] = mats[b_kw][j][i] = 0.0
                ideal.append(label)
                continue
            pair_rq = ([rs[i], rs[j]], [qs[i], qs[j]])
            b_ij, b_ji = _fit_exp_pair(method, unifac_groups[i], unifac_groups[j], T, (a_ij, a_ji), pair_rq)
            mats[b_kw][i][j], mats[b_kw][j][i] = b_ij, b_ji
            estimated.append(f"{label} ({T:.0f} K)")
    warnings = []
    if estimated:
        warnings.append(
            f"{method}: no ChemSep binary parameters for "
            + ", ".join(estimated)
            + "; estimated from UNIFAC infinite-dilution activity coefficients"
        )
    if ideal:
        warnings.append(
            f"{method}: no ChemSep parameters and no UNIFAC groups (or UNIQUAC r/q) for {', '.join(ideal)}; "
            "treated as ideal"
        )
    return mats, warnings


def _wilson_volume_terms(V_i: float | None, V_j: float | None) -> tuple[float, float]:
    if not (V_i and V_j):
        return 0.0, 0.0
    return math.log(V_j / V_i), math.log(V_i / V_j)


def _exp_model(
    method: str, T: float, a: tuple[float, float], b: tuple[float, float], rq: tuple[list, list]
) -> Any:
    from thermo import UNIQUAC, Wilson

    as_ = [[0.0, a[0]], [a[1], 0.0]]
    bs = [[0.0, b[0]], [b[1], 0.0]]
    if method == "WILSON":
        return Wilson(T=T, xs=[0.5, 0.5], lambda_as=as_, lambda_bs=bs)
    return UNIQUAC(T=T, xs=[0.5, 0.5], rs=rq[0], qs=rq[1], tau_as=as_, tau_bs=bs)


def _fit_exp_pair(
    method: str,
    groups_i: dict[int, int],
    groups_j: dict[int, int],
    T: float,
    a: tuple[float, float],
    rq: tuple[list, list],
) -> tuple[float, float]:
    """(b_ij, b_ji) [K] reproducing UNIFAC's ln gamma-infinity of both components at T."""
    from thermo import UNIFAC
    from thermo.unifac import UFIP, UFSG

    unifac = UNIFAC.from_subgroups(
        T=T, xs=[0.5, 0.5], chemgroups=[groups_i, groups_j], subgroups=UFSG, interaction_data=UFIP, version=0
    )
    target = np.array(_ln_gamma_inf(unifac, T))

    def residual(bs: np.ndarray) -> np.ndarray:
        return np.array(_ln_gamma_inf(_exp_model(method, T, a, (bs[0], bs[1]), rq), T)) - target

    fit = least_squares(residual, np.zeros(2), bounds=([-5000.0, -5000.0], [5000.0, 5000.0]))
    return float(fit.x[0]), float(fit.x[1])


@lru_cache(maxsize=1)
def _chemsep_pure() -> dict[str, dict[str, float]]:
    """ChemSep 8.32 pure-component UNIQUAC r, q and Wilson volume [m3/mol] by CAS number (the file the
    `chemicals` package ships)."""
    import os
    import xml.etree.ElementTree as ET

    import chemicals

    path = os.path.join(os.path.dirname(chemicals.__file__), "Misc", "ChemSep8.32.xml")
    out: dict[str, dict[str, float]] = {}
    for compound in ET.parse(path).getroot().iter("compound"):
        cas = compound.find("CAS")
        if cas is None:
            continue
        entry: dict[str, float] = {}
        for tag, key, scale in (("UniquacR", "r", 1.0), ("UniquacQ", "q", 1.0), ("WilsonVolume", "V", 1e-3)):
            node = compound.find(tag)
            if node is not None and node.get("value"):
                entry[key] = float(node.get("value", "nan")) * scale
        out[cas.get("value", "")] = entry
    return out


def chemsep_pure(CAS: str, key: str) -> float | None:
    """ChemSep's UNIQUAC ``r``, ``q`` or Wilson volume ``V`` [m3/mol] of a component, None when absent."""
    value = _chemsep_pure().get(CAS, {}).get(key)
    return value if value is not None and math.isfinite(value) else None


def van_laar_parameters(
    names: list[str], unifac_groups: list[dict[int, int]], Tbs: list[float | None]
) -> tuple[list[list[float]], list[str]]:
    """Van Laar ``B`` [K] (A_ij = B_ij / T) for every pair, from UNIFAC (original) infinite-dilution
    activity coefficients at the pair's mean normal boiling point: A_ij = ln gamma_i-infinity in j, the Van
    Laar constants' definition. No maintained Van Laar parameter table exists, so every pair is estimated
    and reported. A pair whose two constants differ in sign (Van Laar's form then diverges inside the
    composition range) takes their mean for both; a pair without UNIFAC groups is ideal.

    Returns:
        (B, warnings).
    """
    from thermo import UNIFAC
    from thermo.unifac import UFIP, UFSG

    n = len(names)
    B = [[0.0] * n for _ in range(n)]
    estimated, symmetric, ideal = [], [], []
    for i in range(n):
        for j in range(i + 1, n):
            label = f"{names[i]}/{names[j]}"
            if not (unifac_groups[i] and unifac_groups[j]):
                ideal.append(label)
                continue
            T = _reference_temperature(Tbs[i], Tbs[j])
            unifac = UNIFAC.from_subgroups(
                T=T,
                xs=[0.5, 0.5],
                chemgroups=[unifac_groups[i], unifac_groups[j]],
                subgroups=UFSG,
                interaction_data=UFIP,
                version=0,
            )
            A_ij, A_ji = _ln_gamma_inf(unifac, T)
            if A_ij * A_ji < 0.0:
                A_ij = A_ji = 0.5 * (A_ij + A_ji)
                symmetric.append(label)
            B[i][j], B[j][i] = A_ij * T, A_ji * T
            estimated.append(f"{label} ({T:.0f} K)")
    warnings = []
    if estimated:
        warnings.append(
            "VAN-LAAR: no maintained parameter source; A_ij for "
            + ", ".join(estimated)
            + " estimated from UNIFAC infinite-dilution activity coefficients (A_ij = B_ij / T)"
        )
    if symmetric:
        warnings.append(
            f"VAN-LAAR: UNIFAC gives constants of opposite sign for {', '.join(symmetric)}; "
            "their mean used for both"
        )
    if ideal:
        warnings.append(f"VAN-LAAR: no UNIFAC groups for {', '.join(ideal)}; treated as ideal")
    return B, warnings

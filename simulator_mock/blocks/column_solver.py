"""Equilibrium-stage column solver: MESH equations by the Wang-Henke bubble-point method.

Stages are numbered 0 (condenser) to N-1 (kettle reboiler). Each iteration evaluates K-values and phase
enthalpies of every stage with the rigorous property model, then

1. energy balances give the vapour flows (liquid flows follow from total mass balances),
2. one tridiagonal component balance per component (Thomas algorithm) gives the liquid compositions,
3. each stage's temperature moves to the bubble point of its normalised liquid, solved on a local
   ln K = a - b/T model of the rigorous K-values (exact at convergence),

until temperatures, compositions and flows stop changing. Product component flows come from the last
tridiagonal solve, which conserves every component exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simulator_mock.errors import ConvergenceError
from simulator_mock.time_budget import check_time

#: props(j, T, P, x, y) -> (ln K, d ln K / dT, liquid molar H, vapour molar H) of stage j.
StageProps = Callable[
    [int, float, float, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, float, float]
]


@dataclass
class ColumnProblem:
    """Column definition (SI units; component vectors over the active components).

    Attributes:
        P: stage pressures [Pa], length N.
        feed_flows: component flows entering each stage [mol/s], shape (N, C).
        feed_enthalpy: enthalpy flow entering each stage [W], length N.
        distillate: distillate molar flow D [mol/s]. reflux_ratio: L0 / D.
        total_condenser: liquid distillate (True) or vapour distillate (False).
        T_guess: initial temperature profile [K]; x_guess, y_guess: initial compositions, shape (N, C).
        max_iterations: iteration cap. tolerance: convergence tolerance (K for T, relative otherwise).
    """

    P: np.ndarray
    feed_flows: np.ndarray
    feed_enthalpy: np.ndarray
    distillate: float
    reflux_ratio: float
    total_condenser: bool
    T_guess: np.ndarray
    x_guess: np.ndarray
    y_guess: np.ndarray
    max_iterations: int = 200
    tolerance: float = 1e-8


@dataclass
class ColumnSolution:
    """Converged profiles and exact product component flows.

    Attributes:
        T: stage temperatures [K]. L, V: liquid and vapour flows leaving each stage [mol/s].
        x, y: liquid and vapour mole fractions, shape (N, C). hL, HV: molar enthalpies [J/mol].
        distillate_flows, bottoms_flows: component flows of the products [mol/s] (sum to the feed exactly).
        iterations: iterations used.
    """

    T: np.ndarray
    L: np.ndarray
    V: np.ndarray
    x: np.ndarray
    y: np.ndarray
    hL: np.ndarray
    HV: np.ndarray
    distillate_flows: np.ndarray
    bottoms_flows: np.ndarray
    iterations: int


def thomas(lower: np.ndarray, diag: np.ndarray, upper: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Solve tridiagonal systems along the last axis (one system per leading index).

    Args:
        lower: sub-diagonal, shape (..., N); element 0 unused.
        diag: diagonal, shape (..., N).
        upper: super-diagonal, shape (..., N); element N-1 unused.
        rhs: right-hand sides, shape (..., N).
    """
    n = diag.shape[-1]
    c = np.empty_like(diag)
    d = np.empty_like(diag)
    c[..., 0] = upper[..., 0] / diag[..., 0]
    d[..., 0] = rhs[..., 0] / diag[..., 0]
    for j in range(1, n):
        m = diag[..., j] - lower[..., j] * c[..., j - 1]
        c[..., j] = upper[..., j] / m if j < n - 1 else 0.0
        d[..., j] = (rhs[..., j] - lower[..., j] * d[..., j - 1]) / m
    out = np.empty_like(diag)
    out[..., n - 1] = d[..., n - 1]
    for j in range(n - 2, -1, -1):
        out[..., j] = d[..., j] - c[..., j] * out[..., j + 1]
    return out


def _bubble_temperatures(T0: np.ndarray, lnK0: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per stage, T with sum_i x_i K_i(T) = 1 on the local model ln K_i = ln K0_i + b_i (1/T0 - 1/T)."""
    T = T0.copy()
    for _ in range(20):
        lnK = lnK0 + b * (1.0 / T0 - 1.0 / T)[:, None]
        xK = x * np.exp(lnK)
        s = xK.sum(axis=1)
        g = np.log(s)
        dg = (xK * b).sum(axis=1) / (T * T * s)
        dg = np.where(dg > 1e-12, dg, (x * np.exp(lnK) * 4000.0).sum(axis=1) / (T * T * s))
        step = np.clip(g / dg, -25.0, 25.0)
        T = T - step
        if np.max(np.abs(step)) < 1e-10:
            break
    return T


@dataclass
class _Sweep:
    """One bubble-point sweep from (T, x, y): the updated profiles and what the products need."""

    T: np.ndarray
    x: np.ndarray
    y: np.ndarray
    L: np.ndarray
    V: np.ndarray
    hL: np.ndarray
    HV: np.ndarray
    K0: np.ndarray
    l0: np.ndarray
    balance_error: float


class _Anderson:
    """Anderson acceleration (type II) of a fixed-point iteration u -> G(u), with restart on divergence."""

    def __init__(self, depth: int = 6) -> None:
        self.depth = depth
        self.du: list[np.ndarray] = []
        self.dr: list[np.ndarray] = []
        self.last: tuple[np.ndarray, np.ndarray] | None = None
        self.best = np.inf

    def step(self, u: np.ndarray, g: np.ndarray) -> np.ndarray:
        r = g - u
        norm = float(np.linalg.norm(r))
        if norm > 10.0 * self.best:
            self.du.clear()
            self.dr.clear()
            self.last = None
        self.best = min(self.best, norm)
        if self.last is not None:
            self.du.append(u - self.last[0])
            self.dr.append(r - self.last[1])
            if len(self.du) > self.depth:
                self.du.pop(0)
                self.dr.pop(0)
        self.last = (u, r)
        if not self.du:
            return g
        dR = np.array(self.dr).T
        dU = np.array(self.du).T
        gamma, *_ = np.linalg.lstsq(dR, r, rcond=None)
        return g - (dU + dR) @ gamma


def solve_column(problem: ColumnProblem, props: StageProps, where: str) -> ColumnSolution:
    """Solve the MESH equations of ``problem`` with stage properties from ``props``.

    The bubble-point sweep is a fixed-point map of the (T, x, y) profiles; Anderson acceleration of
    that map cuts the iteration count several-fold on pinched columns.

    Raises:
        ConvergenceError: no convergence within ``problem.max_iterations`` (message names ``where``).
    """
    P = problem.P
    N, C = problem.feed_flows.shape
    F = problem.feed_flows.sum(axis=1)
    Fcum = np.cumsum(F)
    D = problem.distillate
    B = Fcum[-1] - D
    L0 = problem.reflux_ratio * D
    U0, V0 = (D, 0.0) if problem.total_condenser else (0.0, D)
    HF = problem.feed_enthalpy
    floor = 1e-9 * Fcum[-1]
    T_low, T_high = float(problem.T_guess.min()) - 150.0, float(problem.T_guess.max()) + 150.0

    def sweep(T: np.ndarray, x: np.ndarray, y: np.ndarray) -> _Sweep:
        lnK = np.empty((N, C))
        dlnK = np.empty((N, C))
        hL = np.empty(N)
        HV = np.empty(N)
        for j in range(N):
            lnK[j], dlnK[j], hL[j], HV[j] = props(j, T[j], P[j], x[j], y[j])
        K = np.exp(lnK)
        # energy balances -> vapour flows; total mass balances -> liquid flows
        V = np.empty(N)
        V[0] = V0
        V[1] = L0 + D - F[0]
        for j in range(1, N - 1):
            num = V[j] * (HV[j] - hL[j - 1]) + (Fcum[j] - D) * hL[j] - (Fcum[j - 1] - D) * hL[j - 1] - HF[j]
            V[j + 1] = max(num / (HV[j + 1] - hL[j]), floor)
        L = np.empty(N)
        L[0] = L0
        L[1 : N - 1] = np.maximum(V[2:N] + Fcum[1 : N - 1] - D, floor)
        L[N - 1] = B
        # component balances: one tridiagonal system per component
        lower = np.zeros((C, N))
        upper = np.zeros((C, N))
        lower[:, 1:] = L[:-1]
        outflow = L.copy()
        outflow[0] += U0
        diag = -outflow[None, :] - (V[:, None] * K).T
        upper[:, :-1] = (V[1:, None] * K[1:]).T
        flows = np.maximum(thomas(lower, diag, upper, -problem.feed_flows.T).T, 0.0)  # (N, C) unnormalised x
        sums = flows.sum(axis=1)
        x_new = flows / sums[:, None]
        # bubble-point temperatures on a local ln K = a - b/T model, then vapour compositions
        b = dlnK * (T * T)[:, None]
        T_new = _bubble_temperatures(T, lnK, b, x_new)
        yK = x_new * np.exp(lnK + b * (1.0 / T - 1.0 / T_new)[:, None])
        y_new = yK / yK.sum(axis=1)[:, None]
        return _Sweep(T_new, x_new, y_new, L, V, hL, HV, K[0], flows[0], float(np.max(np.abs(sums - 1.0))))

    def pack(T: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.concatenate([T / 100.0, x.ravel(), y.ravel()])

    def unpack(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        T = np.clip(u[:N] * 100.0, T_low, T_high)
        x = np.clip(u[N : N + N * C].reshape(N, C), 0.0, None)
        y = np.clip(u[N + N * C :].reshape(N, C), 0.0, None)
        return T, x / x.sum(axis=1)[:, None], y / y.sum(axis=1)[:, None]

    accelerator = _Anderson()
    T, x, y = problem.T_guess.copy(), problem.x_guess.copy(), problem.y_guess.copy()
    change = np.inf
    for iteration in range(1, problem.max_iterations + 1):
        check_time(where)
        s = sweep(T, x, y)
        if not (np.all(np.isfinite(s.T)) and np.all(np.isfinite(s.x))):
            break
        change = max(
            float(np.max(np.abs(s.T - T))), float(np.max(np.abs(s.x - x))), float(np.max(np.abs(s.y - y)))
        )
        if change < problem.tolerance and s.balance_error < 1e2 * problem.tolerance:
            distillate = (U0 + V0 * s.K0) * s.l0
            bottoms = np.maximum(problem.feed_flows.sum(axis=0) - distillate, 0.0)
            return ColumnSolution(s.T, s.L, s.V, s.x, s.y, s.hL, s.HV, distillate, bottoms, iteration)
        u = pack(T, x, y)
        T, x, y = unpack(accelerator.step(u, pack(s.T, s.x, s.y)))
    raise ConvergenceError(
        f"{where}: column did not converge in {problem.max_iterations} iterations (last change "
        f"{change:.3g}); "
        "check the reflux ratio and distillate rate against the feed"
    )

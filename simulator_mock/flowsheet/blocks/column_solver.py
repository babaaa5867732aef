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

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simulator_mock.errors import ConvergenceError
from simulator_mock.flowsheet.time_budget import check_time

#: Iterations given to the bubble-point method before the Newton method takes over.
BUBBLE_POINT_ITERATIONS = 60
#: Minimum outer iterations left to the Newton method.
NEWTON_ITERATIONS = 30
#: Newton method: outer iterations without a 10 % lower residual before giving up.
STALL_LIMIT = 8
#: Newton method: largest rigorous MESH residual accepted (sum(x) - 1; energy balance / (F x 10 kJ/mol));
#: thermo's enthalpies carry noise near 1e-8 on this scale.
RESIDUAL_TOLERANCE = 1e-6

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


def _evaluate(
    props: StageProps, j: int, T: float, P: float, x: np.ndarray, y: np.ndarray, where: str
) -> tuple:
    """props of one stage; a failure of the property model ends the solve as non-convergence."""
    try:
        result = props(j, T, P, x, y)
    except Exception as exc:
        raise ConvergenceError(
            f"{where}: property evaluation failed on stage {j + 1} at {T - 273.15:.4g} C during the column "
            f"iterations ({type(exc).__name__}); check the specs"
        ) from None
    if not all(np.all(np.isfinite(part)) for part in result):
        raise ConvergenceError(
            f"{where}: non-finite properties on stage {j + 1} during the column iterations"
        )
    return result


def _vapour_flow(num: float, rise: float, floor: float) -> float | None:
    """V_{j+1} = num / (H_V,j+1 - h_L,j) from a stage's energy balance, never below ``floor``.

    None when the quotient is undefined (a vanishing enthalpy rise, a non-finite balance: an iterate far
    off): the caller abandons that iterate rather than carry inf or NaN on, or clamp a flow whose energy
    balance then nobody checks.
    """
    if rise == 0.0 or not (math.isfinite(num) and math.isfinite(rise)):
        return None
    return max(float(num / rise), floor)


def _bubble_temperatures(
    T0: np.ndarray, lnK0: np.ndarray, b: np.ndarray, x: np.ndarray, T_low: float, T_high: float
) -> np.ndarray:
    """Per stage, T with sum_i x_i K_i(T) = 1 on the local model ln K_i = ln K0_i + b_i (1/T0 - 1/T).

    Newton on g(T) = ln sum_i x_i K_i(T), with K scaled by its largest value per stage (the sum cannot
    overflow) and T kept within [T_low, T_high] (a step past the column's temperature range would make 1/T
    and K meaningless, then NaN).
    """
    T = T0.copy()
    for _ in range(20):
        lnK = lnK0 + b * (1.0 / T0 - 1.0 / T)[:, None]
        top = lnK.max(axis=1)
        xK = x * np.exp(lnK - top[:, None])  # x_i K_i / K_max: at most 1 each
        s = xK.sum(axis=1)
        g = np.log(s) + top
        dg = (xK * b).sum(axis=1) / (T * T * s)
        dg = np.where(dg > 1e-12, dg, 4000.0 / (T * T))
        step = np.clip(g / dg, -25.0, 25.0)
        T = np.clip(T - step, T_low, T_high)
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
    clamped: bool
    """A vapour or liquid flow was held at the floor: some stage's energy or mass balance is not met."""


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


def _bubble_point_method(
    problem: ColumnProblem, props: StageProps, where: str, iterations: int
) -> ColumnSolution | tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bubble-point sweeps with Anderson acceleration.

    Returns the solution, or when not converged within ``iterations`` the last (T, x, y) profiles
    (usually close enough for the Newton method to finish from).

    The sweep is a fixed-point map of the (T, x, y) profiles; Anderson acceleration of that map cuts the
    iteration count several-fold on ordinary columns.
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
    T_low = max(float(problem.T_guess.min()) - 150.0, 20.0)
    T_high = float(problem.T_guess.max()) + 150.0

    def sweep(T: np.ndarray, x: np.ndarray, y: np.ndarray) -> _Sweep | None:
        lnK = np.empty((N, C))
        dlnK = np.empty((N, C))
        hL = np.empty(N)
        HV = np.empty(N)
        for j in range(N):
            lnK[j], dlnK[j], hL[j], HV[j] = _evaluate(props, j, T[j], P[j], x[j], y[j], where)
        K = np.exp(lnK)
        # energy balances -> vapour flows; total mass balances -> liquid flows
        V = np.empty(N)
        V[0] = V0
        V[1] = L0 + D - F[0]
        for j in range(1, N - 1):
            num = V[j] * (HV[j] - hL[j - 1]) + (Fcum[j] - D) * hL[j] - (Fcum[j - 1] - D) * hL[j - 1] - HF[j]
            flow = _vapour_flow(num, HV[j + 1] - hL[j], floor)
            if flow is None:
                return None
            V[j + 1] = flow
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
        x_new = flows / np.maximum(sums, 1e-300)[:, None]
        # bubble-point temperatures on a local ln K = a - b/T model, then vapour compositions
        b = dlnK * (T * T)[:, None]
        T_new = _bubble_temperatures(T, lnK, b, x_new, T_low, T_high)
        lnK_new = lnK + b * (1.0 / T - 1.0 / T_new)[:, None]
        yK = x_new * np.exp(lnK_new - lnK_new.max(axis=1)[:, None])  # scaled by K_max: cannot overflow
        y_new = yK / yK.sum(axis=1)[:, None]
        clamped = bool(np.any(V[2:] <= floor) or np.any(L[1 : N - 1] <= floor))
        balance_error = float(np.max(np.abs(sums - 1.0)))
        return _Sweep(T_new, x_new, y_new, L, V, hL, HV, K[0], flows[0], balance_error, clamped)

    def pack(T: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.concatenate([T / 100.0, x.ravel(), y.ravel()])

    def unpack(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        T = np.clip(u[:N] * 100.0, T_low, T_high)
        x = np.clip(u[N : N + N * C].reshape(N, C), 0.0, None)
        y = np.clip(u[N + N * C :].reshape(N, C), 0.0, None)
        x_sum, y_sum = x.sum(axis=1)[:, None], y.sum(axis=1)[:, None]
        if np.all(x_sum > 0.0) and np.all(y_sum > 0.0):
            return T, x / x_sum, y / y_sum
        return T, np.full_like(x, np.nan), y  # an emptied stage: the caller restarts from the sweep

    accelerator = _Anderson()
    T, x, y = problem.T_guess.copy(), problem.x_guess.copy(), problem.y_guess.copy()
    change = np.inf
    for iteration in range(1, iterations + 1):
        check_time(where)
        s = sweep(T, x, y)
        if s is None or not all(np.all(np.isfinite(part)) for part in (s.T, s.x, s.y)):
            break  # never handed to the accelerator (LAPACK refuses NaN): Newton finishes from here
        change = max(
            float(np.max(np.abs(s.T - T))), float(np.max(np.abs(s.x - x))), float(np.max(np.abs(s.y - y)))
        )
        # a fixed point with a flow held at the floor is no solution (its energy balance is unmet): Newton's
        if change < problem.tolerance and s.balance_error < 1e2 * problem.tolerance and not s.clamped:
            distillate = (U0 + V0 * s.K0) * s.l0
            bottoms = np.maximum(problem.feed_flows.sum(axis=0) - distillate, 0.0)
            return ColumnSolution(s.T, s.L, s.V, s.x, s.y, s.hL, s.HV, distillate, bottoms, iteration)
        u = pack(T, x, y)
        T, x, y = unpack(accelerator.step(u, pack(s.T, s.x, s.y)))
        if not all(np.all(np.isfinite(part)) for part in (T, x, y)):
            # the extrapolation emptied a stage (every mole fraction clipped to 0): restart from the sweep
            accelerator = _Anderson()
            T, x, y = s.T, s.x, s.y
    return T, x, y


@dataclass
class _LocalModel:
    """Stage properties linearised at T_ref: ln K = lnK + b (1/T_ref - 1/T), enthalpies linear in T."""

    T_ref: np.ndarray
    lnK: np.ndarray
    b: np.ndarray
    hL: np.ndarray
    HV: np.ndarray
    cpL: np.ndarray
    cpV: np.ndarray


class _Balances:
    """MESH residuals of a column on a local model, for batches of (T, V) profiles.

    Unknowns: all stage temperatures and the vapour flows of stages 2..N-1 (V0 and V1 follow from the
    condenser type and the reflux ratio). Residuals: sum(x) - 1 per stage (x from the tridiagonal
    component balances; for a total condenser the distillate's bubble point instead, the sum being implied
    by the overall balance) and the energy balances of stages 1..N-2 scaled by F x 10 kJ/mol.
    """

    def __init__(self, problem: ColumnProblem) -> None:
        self.problem = problem
        self.N, self.C = problem.feed_flows.shape
        F = problem.feed_flows.sum(axis=1)
        self.Fcum = np.cumsum(F)
        self.D = problem.distillate
        self.B = self.Fcum[-1] - self.D
        self.U0, self.V0 = (self.D, 0.0) if problem.total_condenser else (0.0, self.D)
        self.V1 = problem.reflux_ratio * self.D + self.D - F[0]
        self.scale = self.Fcum[-1] * 1e4
        self.rhs = -problem.feed_flows.T

    def vapour(self, free: np.ndarray) -> np.ndarray:
        """Full vapour-flow profiles (batch, N) from the free ones (batch, N-2)."""
        V = np.empty((free.shape[0], self.N))
        V[:, 0], V[:, 1], V[:, 2:] = self.V0, self.V1, free
        return V

    def residuals(
        self, m: _LocalModel, T: np.ndarray, V: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(residuals, liquid component flows (batch, C, N) per unit, K (batch, N, C), L (batch, N))."""
        N, C, D = self.N, self.C, self.D
        L = np.empty_like(V)
        L[:, : N - 1] = V[:, 1:] + (self.Fcum[: N - 1] - D)
        L[:, N - 1] = self.B
        K = np.exp(m.lnK + m.b * (1.0 / m.T_ref - 1.0 / T)[..., None])
        outflow = L.copy()
        outflow[:, 0] += self.U0
        batch = T.shape[0]
        lower = np.zeros((batch, C, N))
        lower[:, :, 1:] = L[:, None, :-1]
        upper = np.zeros((batch, C, N))
        upper[:, :, :-1] = (V[:, 1:, None] * K[:, 1:, :]).transpose(0, 2, 1)
        diag = -outflow[:, None, :] - (V[:, :, None] * K).transpose(0, 2, 1)
        flows = thomas(lower, diag, upper, np.broadcast_to(self.rhs, (batch, C, N)))
        S = flows.sum(axis=1) - 1.0
        if self.problem.total_condenser:
            x0 = flows[:, :, 0] / flows[:, :, 0].sum(axis=1, keepdims=True)
            S[:, 0] = (K[:, 0, :] * x0).sum(axis=1) - 1.0
        hL = m.hL + m.cpL * (T - m.T_ref)
        HV = m.HV + m.cpV * (T - m.T_ref)
        E = (
            L[:, : N - 2] * hL[:, : N - 2]
            + V[:, 2:] * HV[:, 2:]
            + self.problem.feed_enthalpy[1 : N - 1]
            - L[:, 1 : N - 1] * hL[:, 1 : N - 1]
            - V[:, 1 : N - 1] * HV[:, 1 : N - 1]
        ) / self.scale
        return np.concatenate([S, E], axis=1), flows, K, L

    def solve(self, m: _LocalModel, u: np.ndarray) -> np.ndarray:
        """Newton with line search on the local model from u = (T, free V); returns the last accepted u."""
        N = self.N
        floor = 1e-9 * self.Fcum[-1]

        def res(batch: np.ndarray) -> np.ndarray:
            return self.residuals(m, batch[:, :N], self.vapour(batch[:, N:]))[0]

        for _ in range(30):
            R = res(u[None, :])[0]
            if float(np.max(np.abs(R))) < 1e-11:
                break
            steps = np.concatenate([np.full(N, 1e-4), np.maximum(1e-7 * np.abs(u[N:]), floor)])
            J = ((res(u[None, :] + np.diag(steps)) - R[None, :]) / steps[:, None]).T
            try:
                delta = np.linalg.solve(J, -R)
            except np.linalg.LinAlgError:
                delta = np.linalg.lstsq(J, -R, rcond=None)[0]
            delta /= max(float(np.max(np.abs(delta[:N]))) / 10.0, 1.0)  # at most 10 K per step
            norm, alpha, accepted = float(np.linalg.norm(R)), 1.0, None
            for _ in range(16):
                candidate = u + alpha * delta
                if np.all(candidate[N:] > floor):
                    Rc = res(candidate[None, :])[0]
                    if np.all(np.isfinite(Rc)) and np.linalg.norm(Rc) < norm * (1 - 1e-4 * alpha):
                        accepted = candidate
                        break
                alpha *= 0.5
            if accepted is None:
                break
            u = accepted
        return u


def _newton_method(
    problem: ColumnProblem,
    props: StageProps,
    where: str,
    iterations: int,
    start: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> ColumnSolution:
    """Inside-out variant of the 2N Newton (Tomich) method, robust on sharp splits and pinched columns.

    Outer loop: rigorous K-values and enthalpies at the current profiles give a local model per stage.
    Inner loop: Newton on stage temperatures and vapour flows against the MESH residuals of that model
    (finite-difference Jacobian, all perturbations in one batched tridiagonal solve). Converged when the
    rigorous residuals at the current profiles vanish.
    """
    balances = _Balances(problem)
    N, D, HF, Fcum = balances.N, balances.D, problem.feed_enthalpy, balances.Fcum
    T_low = max(float(problem.T_guess.min()) - 150.0, 20.0)
    T_high = float(problem.T_guess.max()) + 150.0

    def rigorous(T: np.ndarray, x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
        parts = [_evaluate(props, j, T[j], problem.P[j], x[j], y[j], where) for j in range(N)]
        return [np.array(column) for column in zip(*parts, strict=True)]

    T, x, y = (a.copy() for a in start)
    lnK, dlnK, hL, HV = rigorous(T, x, y)
    shifted = rigorous(T + 0.1, x, y)
    cpL = np.maximum((shifted[2] - hL) / 0.1, 10.0)
    cpV = np.maximum((shifted[3] - HV) / 0.1, 10.0)
    V = np.empty(N)  # vapour flows of one energy-balance sweep, as the bubble-point method starts
    V[0], V[1] = balances.V0, balances.V1
    for j in range(1, N - 1):
        num = V[j] * (HV[j] - hL[j - 1]) + (Fcum[j] - D) * hL[j] - (Fcum[j - 1] - D) * hL[j - 1] - HF[j]
        flow = _vapour_flow(num, HV[j + 1] - hL[j], 0.05 * balances.V1)
        if flow is None:  # no energy balance to start from: this start cannot converge
            raise ConvergenceError(
                f"{where}: column did not converge (no energy balance from the starting profiles); check "
                "the reflux ratio and distillate rate against the feed"
            )
        V[j + 1] = flow
    best, stalled = np.inf, 0
    for outer in range(1, iterations + 1):
        check_time(where)
        model = _LocalModel(T.copy(), lnK, dlnK * (T * T)[:, None], hL, HV, cpL, cpV)
        R, flows, K, L = balances.residuals(model, T[None, :], V[None, :])
        residual = float(np.max(np.abs(R)))
        liquid = np.maximum(flows[0].T, 0.0)
        totals = liquid.sum(axis=1)[:, None]
        drift = float(np.max(np.abs(liquid / totals - x))) if np.all(totals > 0.0) else np.inf
        if residual < RESIDUAL_TOLERANCE and drift < RESIDUAL_TOLERANCE:
            # rigorous MESH residuals vanish: products from this exact component balance
            distillate = (balances.U0 + balances.V0 * K[0, 0]) * flows[0][:, 0]
            bottoms = np.maximum(problem.feed_flows.sum(axis=0) - distillate, 0.0)
            return ColumnSolution(T, L[0], V, x, y, hL, HV, distillate, bottoms, outer)
        stalled = stalled + 1 if residual > 0.9 * best else 0
        best = min(best, residual)
        if stalled > STALL_LIMIT:
            break
        u = balances.solve(model, np.concatenate([T, V[2:]]))
        _, flows, K, _ = balances.residuals(model, u[None, :N], balances.vapour(u[None, N:]))
        liquid = np.maximum(flows[0].T, 0.0)
        if not (np.all(np.isfinite(liquid)) and np.all(liquid.sum(axis=1) > 0) and np.all(np.isfinite(u))):
            break
        T, V = np.clip(u[:N], T_low, T_high), balances.vapour(u[None, N:])[0]
        x = liquid / liquid.sum(axis=1)[:, None]
        yK = x * K[0]
        y = yK / yK.sum(axis=1)[:, None]
        lnK, dlnK, hL, HV = rigorous(T, x, y)
    raise ConvergenceError(
        f"{where}: column did not converge (MESH residual {best:.3g}); check the reflux ratio and distillate "
        "rate against the feed (a split sharper than the stages allow cannot be solved)"
    )


def solve_column(problem: ColumnProblem, props: StageProps, where: str) -> ColumnSolution:
    """Solve the MESH equations of ``problem`` with stage properties from ``props``.

    The fast bubble-point method runs first; a column it cannot converge (sharp splits, pinches) goes
    to the inside-out Newton method with the remaining iteration budget.

    Raises:
        ConvergenceError: neither method converged (message names ``where``).
    """
    first = min(problem.max_iterations, BUBBLE_POINT_ITERATIONS)
    outcome = _bubble_point_method(problem, props, where, first)
    if isinstance(outcome, ColumnSolution):
        return outcome
    rest = max(problem.max_iterations - first, NEWTON_ITERATIONS)
    guess = (problem.T_guess, problem.x_guess, problem.y_guess)
    try:
        solution = _newton_method(problem, props, where, rest, outcome)
    except ConvergenceError:
        solution = _newton_method(problem, props, where, rest, guess)
    solution.iterations += first
    return solution

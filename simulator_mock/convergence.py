"""Tear-stream convergence of recycle loops: direct substitution or bounded Wegstein acceleration."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simulator_mock.errors import ConvergenceError, UnsupportedOptionError


@dataclass(frozen=True)
class ConvergenceSettings:
    """The config's ``convergence`` section; defaults are Aspen's.

    Attributes:
        method: WEGSTEIN or DIRECT. tolerance: relative tolerance on tear variables.
        max_iterations: iteration cap. q_min, q_max: bounds of the Wegstein factor.
        tear_streams: requested tear streams (empty = automatic).
    """

    method: str = "WEGSTEIN"
    tolerance: float = 1e-4
    max_iterations: int = 30
    q_min: float = -5.0
    q_max: float = 0.0
    tear_streams: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, config: dict) -> ConvergenceSettings:
        """Read the ``convergence`` section (schema-valid; absent keys keep Aspen's defaults).

        Raises:
            UnsupportedOptionError: a tear method other than WEGSTEIN or DIRECT.
        """
        section = config.get("convergence") or {}
        options = section.get("conv_options") or {}
        method = options.get("tear_method", cls.method)
        if method not in ("WEGSTEIN", "DIRECT"):
            raise UnsupportedOptionError(
                f"convergence.conv_options.tear_method: {method} is not simulated; use WEGSTEIN or DIRECT"
            )
        tears = section.get("tear_data") or []
        tolerance = float(options.get("tol", cls.tolerance))
        if tears:
            tolerance = min([tolerance, *(float(t["tear_stream_tol"]) for t in tears)])
        cap = options.get("weg_maxit" if method == "WEGSTEIN" else "dir_maxit", cls.max_iterations)
        return cls(
            method=method,
            tolerance=tolerance,
            max_iterations=int(cap),
            q_min=float(options.get("weg_qmin", cls.q_min)),
            q_max=float(options.get("weg_qmax", cls.q_max)),
            tear_streams=tuple(t["tear_stream_name"] for t in tears),
        )


@dataclass
class LoopReport:
    """Outcome of one recycle loop."""

    tears: tuple[str, ...]
    iterations: int
    max_error: float


def relative_error(x: np.ndarray, g: np.ndarray, scale: np.ndarray) -> float:
    """Largest scaled change between a guess and its recalculation."""
    return float(np.max(np.abs(g - x) / scale)) if x.size else 0.0


def converge(
    initial: np.ndarray,
    evaluate: Callable[[np.ndarray], np.ndarray],
    scale: Callable[[np.ndarray], np.ndarray],
    settings: ConvergenceSettings,
    tears: tuple[str, ...],
) -> LoopReport:
    """Find x = evaluate(x) for the tear vector by direct substitution or Wegstein.

    Args:
        initial: initial tear vector.
        evaluate: runs the loop's blocks from a tear vector and returns the recalculated tear vector.
        scale: per-variable scale of a tear vector, for the relative error.
        settings: method, tolerance, iteration cap and Wegstein bounds.
        tears: tear stream names, for the report and the error message.

    Raises:
        ConvergenceError: the change stays above tolerance after max_iterations.
    """
    x = initial
    g = evaluate(x)
    error = relative_error(x, g, scale(g))
    x_prev = g_prev = None
    iterations = 1
    while error > settings.tolerance:
        if iterations >= settings.max_iterations:
            raise ConvergenceError(
                f"recycle with tear stream(s) {', '.join(tears)} did not converge in "
                f"{settings.max_iterations} "
                f"iterations ({settings.method}); max relative change {error:.3g} > tolerance "
                f"{settings.tolerance:g}"
            )
        if settings.method == "WEGSTEIN" and x_prev is not None:
            dx = x - x_prev
            dg = g - g_prev
            with np.errstate(divide="ignore", invalid="ignore"):
                s = np.where(np.abs(dx) > 1e-14 * (np.abs(x) + 1e-30), dg / dx, 0.0)
                q = np.where(np.abs(s - 1.0) > 1e-12, s / (s - 1.0), 0.0)
            q = np.clip(np.nan_to_num(q), settings.q_min, settings.q_max)
            x_next = q * x + (1.0 - q) * g
        else:
            x_next = g
        x_prev, g_prev = x, g
        x = x_next
        g = evaluate(x)
        iterations += 1
        error = relative_error(x, g, scale(g))
    return LoopReport(tears, iterations, error)

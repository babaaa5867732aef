"""Where a flash may go (temperature, pressure and vapour-fraction bounds) and why one failed, in words a user
can act on."""

from __future__ import annotations

import math

from simulator_mock.errors import OutOfBoundsError

#: Bounds of any flash; outside them the correlations are meaningless.
T_MIN_K, T_MAX_K = 10.0, 3000.0
P_MIN_PA, P_MAX_PA = 1.0, 1e8


#: Python errors raised from inside thermo's solvers: their text names thermo's variables, not the problem.
_SOLVER_INTERNALS = (
    UnboundLocalError,
    ZeroDivisionError,
    OverflowError,
    AttributeError,
    TypeError,
    IndexError,
)


def failure_reason(exc: Exception, spec: dict[str, float]) -> str:
    """Why a flash failed, in words a user can act on (thermo's own message when it is one)."""
    if not isinstance(exc, _SOLVER_INTERNALS):
        return f"{type(exc).__name__}: {exc}"
    if "VF" in spec:
        return (
            "no such saturation point was found: the mixture may have none at this condition (a dissolved "
            "light gas beyond its solubility, a point above the critical); specify temperature and pressure "
            "instead"
        )
    return "the property model's solver found no solution at this condition"


def format_spec(key: str, value: float) -> str:
    if key == "T":
        return f"{value - 273.15:.6g} C"
    if key == "P":
        return f"{value / 1e5:.6g} bar"
    return f"{value:.6g}"


def check_bounds(where: str, spec: dict[str, float], computed: bool = False) -> None:
    for key, value in spec.items():
        if not math.isfinite(value):
            raise OutOfBoundsError(f"{where}: {key} is not a finite number")
    how = "results in" if computed else "asks for"
    T = spec.get("T")
    if T is not None and not T_MIN_K <= T <= T_MAX_K:
        raise OutOfBoundsError(
            f"{where}: {how} temperature {T - 273.15:.6g} C, outside {T_MIN_K - 273.15:.2f} .. "
            f"{T_MAX_K - 273.15:.0f} C"
        )
    P = spec.get("P")
    if P is not None and not P_MIN_PA <= P <= P_MAX_PA:
        raise OutOfBoundsError(
            f"{where}: {how} pressure {P / 1e5:.6g} bar, outside {P_MIN_PA / 1e5:g} .. {P_MAX_PA / 1e5:g} bar"
        )
    VF = spec.get("VF")
    if VF is not None and not 0.0 <= VF <= 1.0:
        raise OutOfBoundsError(f"{where}: vapor fraction {VF:g} outside 0 .. 1")

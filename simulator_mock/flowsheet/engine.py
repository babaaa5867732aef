"""In-process simulation: config dict -> results document (the service's workers run exactly this)."""

from __future__ import annotations

import threading
import uuid
from typing import Any

from simulator_mock.errors import InternalError, SimulationError
from simulator_mock.flowsheet.design_specs import DesignSpec, parse_design_specs, solve_with_specs
from simulator_mock.flowsheet.model import Flowsheet
from simulator_mock.flowsheet.results import build_results
from simulator_mock.flowsheet.schema_registry import validate_config
from simulator_mock.flowsheet.time_budget import time_limit

#: thermo's flashers and the package caches are shared; one simulation at a time per process.
_LOCK = threading.Lock()


def new_run_id() -> str:
    """A fresh run id (32 hex characters)."""
    return uuid.uuid4().hex


def run_config(
    config: dict[str, Any], run_id: str | None = None, time_limit_s: float | None = None
) -> dict[str, Any]:
    """Validate and simulate a flowsheet config.

    Args:
        config: the request body of /run-aspen-simulation, as a dict.
        run_id: id written into the results; a new one when omitted.
        time_limit_s: wall-clock budget; past it the run fails with error_type Timeout.

    Returns:
        The results document (what GET /api/results/{run_id} serves).

    Raises:
        SimulationError: a subclass naming the error_type and the offending block, stream or field;
            unexpected failures are wrapped in InternalError.
    """
    try:
        with _LOCK, time_limit(time_limit_s):
            validate_config(config)
            run_id = run_id or new_run_id()
            specs = parse_design_specs(config)
            if not specs:
                flowsheet = Flowsheet(config)
                return build_results(flowsheet, flowsheet.solve(), run_id)
            return _run_with_specs(config, specs, run_id)
    except SimulationError:
        raise
    except RecursionError:
        raise InternalError("config too deeply nested or flowsheet too large to solve") from None
    except Exception as exc:
        raise InternalError(f"unexpected {type(exc).__name__}: {exc}") from exc


def _run_with_specs(config: dict[str, Any], specs: list[DesignSpec], run_id: str) -> dict[str, Any]:
    """Simulate with design specs met; the results say where each manipulated variable ended."""

    def run(trial: dict[str, Any]) -> tuple[Any, dict[str, Any], Any]:
        flowsheet = Flowsheet(trial)
        return flowsheet, build_results(flowsheet, flowsheet.solve(), run_id), None

    _, results, final = solve_with_specs(config, specs, run)
    results["design_specs"] = {
        spec.name: {
            "block": spec.block,
            "variable": spec.variable,
            "value": spec.initial(final),
            "objective": spec.history[-1][1] if spec.history else None,
            "tolerance": spec.tol,
            "evaluations": spec.evaluations,
        }
        for spec in specs
    }
    for spec in specs:
        results["warnings"].append(
            f"design spec {spec.name}: {spec.block}.{spec.variable} = {spec.initial(final):.6g} "
            f"({spec.evaluations} flowsheet evaluations)"
        )
    return results

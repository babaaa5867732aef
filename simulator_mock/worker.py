"""What an engine worker runs for one request: body bytes -> (status, response, results), files written."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import orjson

from simulator_mock.engine import new_run_id, run_config
from simulator_mock.errors import InternalError, SimulationError
from simulator_mock.results import dumps, write_results
from simulator_mock.schema_registry import parse_body

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Result of one simulation request.

    Attributes:
        status: HTTP status. body: JSON response bytes.
        run_id: id of a successful run (None on failure). results: results document bytes (None on failure).
    """

    status: int
    body: bytes
    run_id: str | None = None
    results: bytes | None = None


def init_worker() -> None:
    """Process initializer: load thermo and the chemical databases before the first request."""
    from simulator_mock.property_package import warm_up

    warm_up()


def warm() -> bool:
    """A no-op task that makes the pool start (and warm up) a worker."""
    return True


def simulate_request(body: bytes, results_dir: str, time_limit_s: float | None = None) -> Outcome:
    """Run one /run-aspen-simulation request and write its files; never raises."""
    try:
        config = parse_body(body)
        run_id = new_run_id()
        results = run_config(config, run_id, time_limit_s)
        content = dumps(results)
        directory = Path(results_dir)
        result_path = write_results(content, directory, f"{run_id}.json")
        input_path = write_results(body, directory, f"{run_id}_input.json")
        response = {
            "success": True,
            "run_id": run_id,
            "aspen_file_path": str(input_path),
            "result_file_path": str(result_path),
            "results_url": f"/api/results/{run_id}",
            "message": f"simulation converged; results at GET /api/results/{run_id}",
            "warnings": results["warnings"],
        }
        return Outcome(200, orjson.dumps(response), run_id, content)
    except SimulationError as exc:
        return Outcome(exc.status, orjson.dumps(exc.to_response()))
    except Exception as exc:  # the service must answer, whatever happened
        log.exception("unexpected failure in a simulation")
        error = InternalError(f"unexpected {type(exc).__name__}: {exc}")
        return Outcome(error.status, orjson.dumps(error.to_response()))

"""Routes that say the service is up: ``GET /health`` (contract keys + the workers as they are), ``GET /``."""

from __future__ import annotations

from importlib.metadata import version

from fastapi import APIRouter
from fastapi.responses import Response

from simulator_mock import __version__
from simulator_mock.flowsheet.schema_registry import BLOCK_TYPES
from simulator_mock.service.answers import json_response, now
from simulator_mock.service.state import ServiceDep

ENGINE = f"thermo {version('thermo')} + chemicals {version('chemicals')}"

router = APIRouter()


@router.get("/health")
async def health(service: ServiceDep) -> Response:
    """Liveness: answers as soon as the server is up (engine warm-up runs in the background)."""
    return json_response(
        {
            "status": "ok",
            "timestamp": now(),
            "aspen_available": False,
            "simulator": "simulator_mock",
            "engine": ENGINE,
            "version": __version__,
            **service.health_extras(),
        }
    )


@router.get("/")
async def index() -> Response:
    """Endpoint overview."""
    return json_response(
        {
            "service": "aspen_rl simulator mock",
            "endpoints": [
                "GET /health",
                "GET /api/schema/list",
                "GET /api/schema?types=base,Heater&format=json",
                "POST /run-aspen-simulation",
                "GET /get-aspen-result?file_path=<result_file_path>",
                "GET /download?file_path=<a path the run returned>",
                "GET /api/results/{run_id} (extension)",
            ],
            "block_types": list(BLOCK_TYPES),
        }
    )

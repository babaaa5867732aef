"""Routes that run flowsheets: ``POST /run-aspen-simulation`` (bounded body, engine worker, the real
answer) and the extension ``GET /api/results/{run_id}``."""

from __future__ import annotations

import asyncio
import re

from fastapi import APIRouter, Request
from fastapi.responses import Response

from simulator_mock.service.answers import error_response, json_response, windows_answer
from simulator_mock.service.state import ServiceDep
from simulator_mock.service.worker import EMPTY_BODY

RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

router = APIRouter()


class PayloadTooLarge(Exception):
    """The request body exceeds the configured limit."""


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refusing more than ``limit`` bytes without reading it all."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise PayloadTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


@router.post("/run-aspen-simulation")
async def run_simulation(request: Request, service: ServiceDep) -> Response:
    """Simulate the flowsheet config in the body (see GET /api/schema)."""
    settings = service.settings
    try:
        async with asyncio.timeout(settings.body_timeout_s):
            body = await read_body(request, settings.max_body_bytes)
    except PayloadTooLarge:
        message = f"request body exceeds {settings.max_body_bytes} bytes; a flowsheet config is small"
        return json_response({"error": message}, 413)
    except TimeoutError:
        message = f"request body not received within {settings.body_timeout_s:g} s"
        return json_response({"error": message}, 408)
    if not body.strip():
        return json_response({"error": EMPTY_BODY}, 400)
    outcome = await service.simulate(body)
    if settings.run_delay_s:  # a real Aspen's pace, without holding an engine worker
        await asyncio.sleep(settings.run_delay_s)
    if isinstance(outcome, Response):
        return outcome
    body = windows_answer(outcome.body) if settings.windows_paths else outcome.body
    return Response(body, status_code=outcome.status, media_type="application/json")


@router.get("/api/results/{run_id}")
async def results(run_id: str, service: ServiceDep) -> Response:
    """Extension: a run's full results document (its ``aspen_file_path``); no shipped client uses it."""
    content = await service.read_results(run_id) if RUN_ID.match(run_id) else None
    if content is None:
        return error_response(404, f"no results for run_id {run_id!r}")
    return Response(content, media_type="application/json")

"""Routes serving the flowsheet schemas: ``GET /api/schema/list`` and ``GET /api/schema?types=&format=``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from simulator_mock.service.answers import json_response
from simulator_mock.service.state import ServiceDep

router = APIRouter()


@router.get("/api/schema/list")
async def schema_list(service: ServiceDep) -> Response:
    """Every served schema file: type, file, category (base / block / other), description, size."""
    entries = sorted(service.schemas.entries(), key=lambda e: (e["category"], e["type"]))
    return json_response({"success": True, "count": len(entries), "schemas": entries})


@router.get("/api/schema")
async def schema_parts(request: Request, service: ServiceDep) -> Response:
    """Schema documents: ``types`` one, several (comma-separated), ``base`` or ``all`` (default base);
    ``format=list`` answers the listing instead of the documents."""
    types = request.query_params.get("types", "base")
    if request.query_params.get("format", "json") == "list":
        entries = [
            {"type": e["type"], "file": e["file"], "description": e["description"]}
            for e in service.schemas.entries()
        ]
        entries.sort(key=lambda e: e["type"])
        return json_response({"success": True, "count": len(entries), "schemas": entries})
    if types.lower() == "all":
        requested = service.schemas.stems()
    else:
        requested = [t.strip() for t in types.split(",") if t.strip()]
    found: dict[str, Any] = {}
    not_found: list[str] = []
    for kind in requested:
        match = service.schemas.lookup(kind)
        if match is None:
            not_found.append(kind)
        else:
            found[match[0]] = match[1].content
    answer: dict[str, Any] = {
        "success": not not_found,
        "requested": requested,
        "found": len(found),
        "schemas": found,
    }
    if not_found:
        answer["not_found"] = not_found
        answer["message"] = f"部分 Schema 未找到: {', '.join(not_found)}"
    return json_response(answer)

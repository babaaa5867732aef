"""The service's OpenAPI document, complete: request bodies, response models with the real keys, every status.

The routes answer with hand-built JSON (key for key the real service's answers), so FastAPI alone would
document ``{}`` for each. This module describes each answer with a pydantic model and writes, per
route, its parameters, its request body and every status code it can answer; generated API testing
(schemathesis, ``tests/reliability/test_openapi.py``) then checks the service against it.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import models_json_schema


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Health(_Open):
    """``GET /health``: the real keys, then the mock's extras (load, bounds, results folder)."""

    status: Literal["ok"]
    timestamp: str
    aspen_available: bool
    simulator: str | None = None
    engine: str | None = None
    version: str | None = None
    workers: int | None = None
    warm: bool | None = None
    in_flight: int | None = Field(None, description="Runs queued or running.")
    cancelled_runs: int | None = Field(None, description="Runs stopped because their client hung up.")
    run_budget_s: float | None = Field(None, description="Per-run time budget.")
    queue_wait_s: float | None = Field(None, description="Longest wait for a worker before a 503.")
    results_dir_bytes: int | None = Field(None, description="Size of the results folder.")
    results_dir_runs: int | None = Field(None, description="Runs with files in the results folder.")
    retention_deleted_runs: int | None = None


class SchemaListEntry(_Open):
    type: str
    file: str
    category: str | None = None
    description: str | None = None
    size: int | None = None


class SchemaListing(_Open):
    """``GET /api/schema/list`` and ``GET /api/schema?format=list``."""

    success: bool
    count: int
    schemas: list[SchemaListEntry]


class SchemaAnswer(_Open):
    """``GET /api/schema``: the requested documents; unknown types are listed (still HTTP 200)."""

    success: bool
    requested: list[str]
    found: int
    schemas: dict[str, Any]
    not_found: list[str] | None = None
    message: str | None = None


class RunSuccess(_Open):
    """``POST /run-aspen-simulation`` HTTP 200."""

    success: Literal[True]
    aspen_file_path: str
    config_file_path: str
    result_file_path: str
    message: str
    run_id: str | None = None
    warnings: list[Any] | None = None


class RunFailure(_Open):
    """``POST /run-aspen-simulation`` HTTP 201: the config failed (the real service's category in
    ``error_type``, the mock's precise ``error_code``); a run past its time budget is one of these."""

    success: Literal[False]
    aspen_file_path: str | None = None
    config_file_path: str | None = None
    error_type: str
    error_message: str
    error_code: str | None = None


class RequestError(_Open):
    """``{error}``: empty body (400), body too large (413), body too slow (408), missing/wrong token (401)."""

    error: str


class Busy(_Open):
    """HTTP 503: the run was refused before it started (every slot taken, or queued too long); retry."""

    error: str
    retry: bool | None = None
    timestamp: str | None = None


class FileError(_Open):
    """``{error, timestamp}``: the real service's answer outside the run route (400, 403, 404, 422)."""

    error: str
    timestamp: str | None = None


class FileInfo(_Open):
    file_name: str
    file_path: str
    sheet_count: int
    sheet_names: list[str]
    read_time: str


class Sheet(_Open):
    row_count: int
    column_count: int
    column_names: list[Any] | None = None
    data: list[dict[str, Any]] | None = None
    error: str | None = None


class WorkbookAnswer(_Open):
    """``GET /get-aspen-result``: the results workbook as pandas reads it."""

    status: Literal["success"]
    file_info: FileInfo
    data: dict[str, Sheet]


class Index(_Open):
    service: str
    endpoints: list[str]
    block_types: list[str]


MODELS: tuple[type[BaseModel], ...] = (
    Health,
    SchemaListing,
    SchemaAnswer,
    RunSuccess,
    RunFailure,
    RequestError,
    Busy,
    FileError,
    WorkbookAnswer,
    Index,
)

_FILE_PATH = {
    "name": "file_path",
    "in": "query",
    "required": True,  # missing or empty: the route's own 400, as the real service answers
    "schema": {"type": "string", "minLength": 1},
    "description": "A path the run route returned (result_file_path, config_file_path, aspen_file_path).",
}
_DOWNLOAD_TYPES = {
    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
    "application/json": {"schema": {}},
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": {
        "schema": {"type": "string", "format": "binary"}
    },
    "application/vnd.ms-excel": {"schema": {"type": "string", "format": "binary"}},
    "text/plain": {"schema": {"type": "string"}},
    "text/csv": {"schema": {"type": "string"}},
}


def _ref(model: type[BaseModel] | tuple[type[BaseModel], ...]) -> dict[str, Any]:
    if isinstance(model, tuple):
        return {"anyOf": [_ref(m) for m in model]}
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _answers(statuses: dict[int, tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for status, (description, model) in sorted(statuses.items()):
        if isinstance(model, dict):  # raw content map
            out[str(status)] = {"description": description, "content": model}
        else:
            out[str(status)] = {
                "description": description,
                "content": {"application/json": {"schema": _ref(model)}},
            }
    return out


def _operations(run_body_schema: dict[str, Any], token: bool) -> dict[tuple[str, str], dict[str, Any]]:
    """Per (path, method): parameters, request body and every status it answers."""
    internal = (422, ("an unexpected error inside the service (never a 5xx)", FileError))
    unauthorized = {401: ("missing or wrong X-Aspen-Token header", RequestError)} if token else {}
    #: What both file routes answer for a file_path that names no file.
    no_file = {
        400: ("file_path missing, or not a file", FileError),
        404: ("no such file", FileError),
        **unauthorized,
    }
    ops: dict[tuple[str, str], dict[str, Any]] = {
        ("/health", "get"): {
            "summary": "Liveness and load",
            "responses": _answers({200: ("the service is up", Health), 422: internal[1]}),
        },
        ("/api/schema/list", "get"): {
            "summary": "Every served schema file",
            "responses": _answers({200: ("the listing", SchemaListing), 422: internal[1], **unauthorized}),
        },
        ("/api/schema", "get"): {
            "summary": "Schema documents by type",
            "parameters": [
                {
                    "name": "types",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string"},
                    "description": "One type, several comma-separated, 'base' (default) or 'all'.",
                },
                {
                    "name": "format",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string"},
                    "description": "'json' (default): the documents; 'list': a listing.",
                },
            ],
            "responses": _answers(
                {
                    200: ("the documents (unknown types listed in not_found)", (SchemaAnswer, SchemaListing)),
                    422: internal[1],
                    **unauthorized,
                }
            ),
        },
        ("/run-aspen-simulation", "post"): {
            "summary": "Simulate a flowsheet config",
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": run_body_schema}},
            },
            "responses": _answers(
                {
                    200: ("the simulation converged; files written", RunSuccess),
                    201: (
                        "the config failed (invalid, unsolvable, or past the run's time budget)",
                        RunFailure,
                    ),
                    400: ("empty body", RequestError),
                    408: ("the body was not received within the service's body time limit", RequestError),
                    413: ("body larger than the service accepts", RequestError),
                    422: internal[1],
                    503: ("busy: the run was not started; retry", Busy),
                    **unauthorized,
                }
            ),
        },
        ("/get-aspen-result", "get"): {
            "summary": "A results workbook as JSON",
            "parameters": [_FILE_PATH],
            "responses": _answers(
                {
                    200: ("the workbook, every sheet", WorkbookAnswer),
                    403: ("file_path outside the results folder", FileError),
                    422: ("unreadable, or not read within the time limit, or an error", FileError),
                    503: ("busy: no engine worker free to read it; retry", Busy),
                    **no_file,
                }
            ),
        },
        ("/download", "get"): {
            "summary": "A file of the results folder",
            "parameters": [_FILE_PATH],
            "responses": _answers(
                {
                    200: ("the file, as an attachment", _DOWNLOAD_TYPES),
                    403: ("outside the results folder, or a type that is not served", FileError),
                    422: internal[1],
                    **no_file,
                }
            ),
        },
        ("/api/results/{run_id}", "get"): {
            "summary": "Extension: a run's full results document",
            "parameters": [{"name": "run_id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": _answers(
                {
                    200: ("the results document", {"application/json": {"schema": {"type": "object"}}}),
                    404: ("unknown run", FileError),
                    422: internal[1],
                    **unauthorized,
                }
            ),
        },
        ("/", "get"): {
            "summary": "Endpoint overview",
            "responses": _answers({200: ("the overview", Index), 422: internal[1], **unauthorized}),
        },
    }
    return ops


def run_body_schema() -> dict[str, Any]:
    """The run route's request body: the served base schema with the reactions / design_specs / convergence
    parts as its sections (keys and types of a flowsheet config)."""
    try:
        from simulator_mock.flowsheet.schema_registry import SECTION_PARTS, schema

        base = dict(schema("base"))
        base["properties"] = {**base["properties"], **{part: schema(part)[part] for part in SECTION_PARTS}}
    except Exception:  # a registry without a base part: an object, described
        base = {"type": "object"}
    for key in ("$schema", "$id"):
        base.pop(key, None)
    base.setdefault("description", "A flowsheet config (see GET /api/schema?types=base,<BlockType>).")
    return base


def install_openapi(app: FastAPI, *, token: bool = False) -> None:
    """Replace ``app.openapi`` by the complete document (built once, on first request)."""

    def document() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        doc = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        _, defs = models_json_schema(
            [(m, "serialization") for m in MODELS], ref_template="#/components/schemas/{model}"
        )
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        schemas.update(defs.get("$defs", {}))
        paths = doc.setdefault("paths", {})
        for (path, method), operation in _operations(run_body_schema(), token).items():
            if path not in paths or method not in paths[path]:
                continue  # a route this build does not serve
            generated = paths[path][method]
            paths[path][method] = {
                "operationId": generated.get("operationId"),
                "description": generated.get("description", ""),
                **operation,
            }
            if token and path != "/health":
                paths[path][method]["security"] = [{"AspenToken": []}]
        if token:
            doc["components"]["securitySchemes"] = {
                "AspenToken": {"type": "apiKey", "in": "header", "name": "X-Aspen-Token"}
            }
        app.openapi_schema = doc
        return doc

    app.openapi = document  # type: ignore[method-assign]

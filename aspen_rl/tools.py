"""Agent tools: get_schema, run_simulation, get_result as async functions that record every call."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from aspen_rl.contract.rendering import render_workbook
from aspen_rl.contract.run_answer import error_excerpt
from aspen_rl.contract.schema_view import render_schemas
from aspen_rl.contract.workbook import is_workbook
from aspen_rl.failures import FailureKind
from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.simulator.errors import (
    SimulatorError,
    SimulatorHTTPError,
    SimulatorUnavailable,
    run_failure_kind,
)
from aspen_rl.trace import (
    GET_RESULT,
    GET_SCHEMA,
    RESULT_FILE_PATH,
    RUN_SIMULATION,
    RecordedToolCall,
    RunTrace,
)

logger = logging.getLogger(__name__)

Tool = Callable[..., Awaitable[str]]

ERROR_MESSAGE_SHOWN = 2000
"""Characters of a failed run's ``error_message`` shown to the model (the trace keeps all of it)."""


def dumps(data: Any) -> str:
    """Compact JSON for the model (UTF-8 kept readable)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def run_answer_for_model(answer: dict[str, Any]) -> dict[str, Any]:
    """What the model reads of a run answer: success and the result file, or the failure's reasons."""
    if answer.get("success") is True:
        shown: dict[str, Any] = {"success": True, "result_file_path": answer.get("result_file_path")}
        if answer.get("warnings"):
            shown["warnings"] = answer["warnings"]
        return shown
    shown = {"success": False, "error_type": answer.get("error_type", "SimulationFailed")}
    if answer.get("error_code"):
        shown["error_code"] = answer["error_code"]
    shown["error_message"] = error_excerpt(str(answer.get("error_message", "")), ERROR_MESSAGE_SHOWN)
    return shown


_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n(?P<body>.*?)\n?\s*```\s*$", re.DOTALL)


def _strip_code_fence(text: str) -> str:
    """The JSON inside a Markdown code fence (```json ... ```), as models often send it; else the text."""
    match = _FENCE.match(text)
    return match.group("body") if match else text


def _error(error_type: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"success": False, "error_type": error_type, "error_message": message, **extra}


def failure_of(exc: Exception) -> FailureKind:
    """What failed, for an exception a tool caught: the client's typed failure, a bad argument, a defect."""
    if isinstance(exc, SimulatorError):
        return exc.kind
    if isinstance(exc, ValueError | TypeError):
        return FailureKind.BAD_CALL
    return FailureKind.TOOL_CRASHED


def _describe(exc: Exception) -> dict[str, Any]:
    """A simulator/client exception as a failure answer the model can read."""
    if isinstance(exc, SimulatorUnavailable):
        return _error(
            "SimulatorUnavailable",
            f"{exc} The simulator may be down; try again later or report that it is unavailable.",
        )
    if isinstance(exc, SimulatorHTTPError):
        return _error(f"HTTP{exc.status_code}", exc.error_message)
    if isinstance(exc, SimulatorError | ValueError | TypeError):
        return _error(type(exc).__name__, str(exc))
    return _error("ToolError", f"{type(exc).__name__}: {exc}")


SCHEMA_MAX_CHARS = 8_000
"""Default budget of the schema text the model reads (about 2.5k tokens of a BPE tokenizer)."""


def schema_text(answer: dict[str, Any], max_chars: int | None = SCHEMA_MAX_CHARS) -> str:
    """A ``GET /api/schema`` answer as the model reads it.

    With a budget, the parts are rendered compactly (:func:`~aspen_rl.contract.schema_view.render_schemas`:
    every field, allowed value, bound and requirement, no JSON Schema envelope); ``None`` gives the raw
    JSON. Parts the service did not find are named after the rendering.
    """
    parts = answer.get("schemas")
    if max_chars is None or not isinstance(parts, dict):
        return dumps(answer)
    text = render_schemas(parts, max_chars=max_chars)
    if answer.get("not_found"):
        text += f"\nnot found: {', '.join(map(str, answer['not_found']))}"
    return text


Outcome = tuple[FailureKind | None, str | None, Any, str]
"""A tool action's end: the failure (``None``: ok), the error line, the raw answer, the model's text."""


class _Recorder:
    """Runs a tool's action and appends the call to the rollout's trace; a tool answers, it never raises."""

    def __init__(self, trace: RunTrace) -> None:
        self.trace = trace

    async def call(
        self, name: str, arguments: dict[str, Any], action: Callable[[], Awaitable[Outcome]]
    ) -> str:
        """Run ``action``, record the call (timed, typed failure) and return what the model reads."""
        started_at = datetime.now(UTC)
        t0 = time.perf_counter()
        try:
            failure, error, response, text = await action()
        except Exception as exc:  # a tool must answer, never crash the agent loop
            failure = failure_of(exc)
            if failure is FailureKind.TOOL_CRASHED:
                logger.exception("tool %s failed unexpectedly", name)
            answer = _describe(exc)
            error = f"{answer['error_type']}: {answer['error_message']}"
            response = exc.json if isinstance(exc, SimulatorHTTPError) else None
            text = dumps(answer)
        self.trace.record(
            RecordedToolCall(
                name=name,
                arguments=arguments,
                ok=failure is None,
                error=error,
                failure=failure,
                latency_s=time.perf_counter() - t0,
                response=response,
                started_at=started_at,
            )
        )
        return text

    def reject(self, config: Any, error_type: str, message: str) -> str:
        """Record a run_simulation call refused before reaching the simulator."""
        error = f"{error_type}: {message}"
        self.trace.record(
            RecordedToolCall(
                name=RUN_SIMULATION,
                arguments={"config": config},
                ok=False,
                error=error,
                failure=FailureKind.BAD_CALL,
            )
        )
        return dumps(_error(error_type, message))


async def _fetch_schema(client: SimulatorClient, requested: list[str], max_chars: int | None) -> Outcome:
    types = list(dict.fromkeys(["base", *requested]))
    answer = await client.get_schema(types)
    if answer.get("success") is False:
        missing = answer.get("not_found") or []
        reason = answer.get("message") or f"schema parts not found: {missing}"
        return FailureKind.BAD_CALL, f"SchemaNotFound: {reason}", answer, dumps(answer)
    return None, None, answer, schema_text(answer, max_chars)


def _parse_config(config: Any) -> dict[str, Any] | tuple[str, str]:
    """The config as a JSON object, or why it is refused before the simulator: (error type, message)."""
    parsed: Any = config
    if isinstance(config, str):
        try:
            parsed = json.loads(_strip_code_fence(config))
        except json.JSONDecodeError as exc:
            return (
                "InvalidJSON",
                f"config is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            )
        except (ValueError, RecursionError):  # an integer past Python's digit limit, nesting past its stack
            return "InvalidJSON", "config is not valid JSON: a number too long or nesting too deep to read"
    if not isinstance(parsed, dict):
        message = f"config must be a JSON object (a flowsheet config), got {type(parsed).__name__}"
        return "InvalidConfig", message
    return parsed


async def _simulate(client: SimulatorClient, config: dict[str, Any]) -> Outcome:
    answer = await client.run_simulation(config)
    shown = run_answer_for_model(answer)
    failure = run_failure_kind(answer)
    if failure is None:
        return None, None, answer, dumps(shown)
    kind = str(answer.get("error_code") or answer.get("error_type") or "SimulationFailed")
    message = str(answer.get("error_message", ""))
    error = message if message.startswith(kind) else f"{kind}: {message}"
    return failure, error, answer, dumps(shown)


async def _read_result(client: SimulatorClient, result_file_path: str, only: list[str] | None) -> Outcome:
    document = await client.get_result(result_file_path)
    if not is_workbook(document):
        reason = document.get("error") or document.get("message") or "not a results workbook"
        shown = dumps(_error("ResultError", str(reason)))
        return FailureKind.BAD_CALL, f"ResultError: {reason}", document, shown
    return None, None, document, render_workbook(document, only=only)


def build_tools(
    client: SimulatorClient, trace: RunTrace, *, schema_max_chars: int | None = SCHEMA_MAX_CHARS
) -> list[Tool]:
    """The agent's three tools bound to a simulator client; every call is appended to ``trace``.

    Args:
        client: An open simulator client.
        trace: The rollout's trace (shared by the three tools).
        schema_max_chars: Budget of the schema text ``get_schema`` shows (``None``: raw JSON); the
            full answer is always kept in the trace.

    Returns:
        ``[get_schema, run_simulation, get_result]``: async functions with typed arguments and
        LLM-facing docstrings (usable with ``autogen_core.tools.FunctionTool``). They never
        raise on simulator or input errors: the error comes back as JSON text.
    """
    recorder = _Recorder(trace)

    async def get_schema(
        block_types: Annotated[
            list[str],
            'Block types, e.g. ["Heater", "Flash2"]; add "reactions", "design_specs", "convergence" if used',
        ],
    ) -> str:
        """Fetch the flowsheet config schema: the base part and one part per block type. Call it first."""
        if isinstance(block_types, str):  # tolerate "Heater,Flash2"
            block_types = block_types.split(",")
        requested = [str(t).strip() for t in block_types if str(t).strip()]
        return await recorder.call(
            GET_SCHEMA, {"block_types": requested}, lambda: _fetch_schema(client, requested, schema_max_chars)
        )

    async def run_simulation(
        config: Annotated[
            str,
            "The complete config as JSON text",
        ],
    ) -> str:
        """Run a flowsheet simulation: result_file_path for get_result, or an error_message to fix."""
        parsed = _parse_config(config)
        if isinstance(parsed, tuple):
            return recorder.reject(config, *parsed)
        return await recorder.call(RUN_SIMULATION, {"config": parsed}, lambda: _simulate(client, parsed))

    async def get_result(
        result_file_path: Annotated[str, "From a successful run_simulation"],
        only: Annotated[list[str] | None, "Stream and block names to show (default: all)"] = None,
    ) -> str:
        """Read a run's results: the stream table and "NAME = value unit" lines per block."""
        arguments: dict[str, Any] = {RESULT_FILE_PATH: result_file_path}
        if only is not None:
            arguments["only"] = only
        return await recorder.call(
            GET_RESULT, arguments, lambda: _read_result(client, result_file_path, only)
        )

    return [get_schema, run_simulation, get_result]

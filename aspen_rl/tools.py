"""Agent tools: get_schema, run_simulation, get_result as async functions that record every call."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.simulator.errors import SimulatorError, SimulatorHTTPError, SimulatorUnavailable
from aspen_rl.trace import GET_RESULT, GET_SCHEMA, RUN_SIMULATION, RunTrace, ToolCall

logger = logging.getLogger(__name__)

Tool = Callable[..., Awaitable[str]]

RESULT_SIGNIFICANT_DIGITS = 5
RESULT_MAX_CHARS = 8_000
# (section, key) dropped from every stream/block entry, in this order, while the text the model reads
# is longer than the limit; the full document is always kept in the trace.
_DROPPABLE = (
    ("streams", "enthalpy_flow_kW"),
    ("streams", "mass_fractions"),
    ("blocks", "stage_profile"),
    ("streams", "component_flows_kmol_hr"),
)


def dumps(data: Any) -> str:
    """Compact JSON for the model (UTF-8 kept readable)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def _round(node: Any, digits: int) -> Any:
    if isinstance(node, float):
        return float(f"{node:.{digits}g}")
    if isinstance(node, dict):
        return {k: _round(v, digits) for k, v in node.items()}
    if isinstance(node, list):
        return [_round(v, digits) for v in node]
    return node


def compact_results(document: dict[str, Any], max_chars: int = RESULT_MAX_CHARS) -> str:
    """The results document as the model reads it.

    Floats are rounded to 5 significant digits; while the text is longer than ``max_chars``, per-stream
    enthalpy flows, mass fractions, column stage profiles and component flows are dropped, in that order.
    """
    data = _round(document, RESULT_SIGNIFICANT_DIGITS)
    text = dumps(data)
    for section, key in _DROPPABLE:
        if len(text) <= max_chars:
            break
        entries = data.get(section) if isinstance(data, dict) else None
        if not isinstance(entries, dict):
            continue
        for entry in entries.values():
            if isinstance(entry, dict):
                entry.pop(key, None)
        text = dumps(data)
    return text


_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n(?P<body>.*?)\n?\s*```\s*$", re.DOTALL)


def _strip_code_fence(text: str) -> str:
    """The JSON inside a Markdown code fence (```json ... ```), as models often send it; else the text."""
    match = _FENCE.match(text)
    return match.group("body") if match else text


def _error(error_type: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"success": False, "error_type": error_type, "error_message": message, **extra}


def _describe(exc: Exception) -> dict[str, Any]:
    """A simulator/client exception as a failure answer the model can read."""
    if isinstance(exc, SimulatorUnavailable):
        return _error(
            "SimulatorUnavailable",
            f"{exc} The simulator may be down; try again later or report that it is unavailable.",
        )
    if isinstance(exc, SimulatorHTTPError):
        body = exc.json
        extra = (
            {"valid_types": body["valid_types"]} if isinstance(body, dict) and "valid_types" in body else {}
        )
        return _error(f"HTTP{exc.status_code}", exc.error_message, **extra)
    if isinstance(exc, SimulatorError | ValueError | TypeError):
        return _error(type(exc).__name__, str(exc))
    return _error("ToolError", f"{type(exc).__name__}: {exc}")


def build_tools(client: SimulatorClient, trace: RunTrace) -> list[Tool]:
    """The agent's three tools bound to a simulator client; every call is appended to ``trace``.

    Args:
        client: An open simulator client.
        trace: The rollout's trace (shared by the three tools).

    Returns:
        ``[get_schema, run_simulation, get_result]``: async functions with typed arguments and
        LLM-facing docstrings (usable with ``autogen_core.tools.FunctionTool``). They never
        raise on simulator or input errors: the error comes back as JSON text.
    """

    async def _record(
        name: str,
        arguments: dict[str, Any],
        action: Callable[[], Awaitable[tuple[bool, str | None, Any, str]]],
    ) -> str:
        started_at = datetime.now(UTC)
        t0 = time.perf_counter()
        try:
            ok, error, response, text = await action()
        except Exception as exc:  # a tool must answer, never crash the agent loop
            if not isinstance(exc, SimulatorError | ValueError | TypeError):
                logger.exception("tool %s failed unexpectedly", name)
            answer = _describe(exc)
            error = f"{answer['error_type']}: {answer['error_message']}"
            response = exc.json if isinstance(exc, SimulatorHTTPError) else None
            ok, text = False, dumps(answer)
        trace.record(
            ToolCall(
                name=name,
                arguments=arguments,
                ok=ok,
                error=error,
                latency_s=time.perf_counter() - t0,
                response=response,
                started_at=started_at,
            )
        )
        return text

    def _reject(config: Any, error_type: str, message: str) -> str:
        """Record a run_simulation call refused before reaching the simulator."""
        error = f"{error_type}: {message}"
        trace.record(ToolCall(name=RUN_SIMULATION, arguments={"config": config}, ok=False, error=error))
        return dumps(_error(error_type, message))

    async def get_schema(
        block_types: Annotated[
            list[str],
            'Aspen block types you will use, e.g. ["Heater", "Flash2"]. \'base\' is always added.',
        ],
    ) -> str:
        """Fetch the JSON Schema of the flowsheet config for the given block types.

        Call this first, before writing a config. The answer always contains the 'base' part
        (setup, components, property_methods, blocks, streams, block_connections, stream_data) and
        one part per requested block type describing its blocks_<Type>_data section, allowed
        values and units. An unknown block type returns an error listing the valid types.
        """
        if isinstance(block_types, str):  # tolerate "Heater,Flash2"
            block_types = block_types.split(",")
        requested = [str(t).strip() for t in block_types if str(t).strip()]

        async def action() -> tuple[bool, str | None, Any, str]:
            types = list(dict.fromkeys(["base", *requested]))
            schemas = await client.get_schema(types)
            return True, None, schemas, dumps(schemas)

        return await _record(GET_SCHEMA, {"block_types": requested}, action)

    async def run_simulation(
        config: Annotated[
            str,
            "The complete flowsheet config as JSON text, following the schema from get_schema.",
        ],
    ) -> str:
        """Run an Aspen Plus flowsheet simulation with the given config.

        Returns JSON: on success {"success": true, "run_id": ..., "result_file_path": ...,
        "message": ..., "warnings": [...]} (then call get_result with the run_id); on failure
        {"success": false, "error_type": ..., "error_message": ...} naming the field to fix (invalid
        JSON, unknown component, unconnected port, missing spec, no convergence...). Fix the config
        and call again.
        """
        parsed: Any = config
        if isinstance(config, str):
            try:
                parsed = json.loads(_strip_code_fence(config))
            except json.JSONDecodeError as exc:
                message = f"config is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
                return _reject(config, "InvalidJSON", message)
        if not isinstance(parsed, dict):
            message = f"config must be a JSON object (a flowsheet config), got {type(parsed).__name__}"
            return _reject(config, "InvalidConfig", message)

        async def action() -> tuple[bool, str | None, Any, str]:
            answer = await client.run_simulation(parsed)
            if answer.get("success") is True:
                return True, None, answer, dumps(answer)
            error = f"{answer.get('error_type', 'SimulationFailed')}: {answer.get('error_message', '')}"
            return False, error, answer, dumps(answer)

        return await _record(RUN_SIMULATION, {"config": parsed}, action)

    async def get_result(
        run_id: Annotated[str, "The run_id (or result_file_path) returned by a successful run_simulation."],
    ) -> str:
        """Read the results of a finished simulation run.

        Returns JSON with, per stream: temperature_C, pressure_bar, vapor_fraction,
        molar_flow_kmol_hr, mass_flow_kg_hr, mole_fractions (and component flows); per block: type,
        duty_kW, power_kW and block-specific values (columns: number_of_stages, reflux_ratio,
        condenser_duty_kW, reboiler_duty_kW...). Units are fixed: C, bar, kmol/hr, kg/hr, kW.
        Report the values the user asked for from this answer.
        """

        async def action() -> tuple[bool, str | None, Any, str]:
            document = await client.get_results(run_id)
            if document.get("success") is False:
                error = f"{document.get('error_type', 'ResultError')}: {document.get('error_message', '')}"
                return False, error, document, dumps(document)
            return True, None, document, compact_results(document)

        return await _record(GET_RESULT, {"run_id": run_id}, action)

    return [get_schema, run_simulation, get_result]

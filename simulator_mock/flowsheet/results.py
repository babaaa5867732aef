"""Results document of a run: streams, blocks, mass and energy balance closure, convergence; file writing."""

from __future__ import annotations

import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from simulator_mock.errors import BalanceError
from simulator_mock.flowsheet.model import Flowsheet, Solution
from simulator_mock.flowsheet.streams import stream_result
from simulator_mock.properties.units import RESULT_UNITS

#: Closure limits: relative errors above them fail the run (looser when the recycle tolerance is looser).
MASS_CLOSURE = 1e-6
ENERGY_CLOSURE = 1e-4


def build_results(flowsheet: Flowsheet, solution: Solution, run_id: str) -> dict[str, Any]:
    """Assemble the results document (fixed units: C, bar, kmol/hr, kg/hr, kW).

    Raises:
        BalanceError: mass or energy balance of the flowsheet does not close.
    """
    package, cids, topo = flowsheet.package, flowsheet.cids, flowsheet.topology
    streams = solution.streams
    stream_docs = {}
    for name in topo.streams:
        doc = stream_result(streams[name], package, cids)
        doc["source"] = topo.source.get(name)
        doc["destination"] = topo.sink.get(name)
        stream_docs[name] = doc
    block_docs = {}
    for name, block in solution.blocks.items():
        outlets = {s: streams[s] for names in block.outlets.values() for s in names}
        block_docs[name] = block.result(outlets)
    balances = _balances(flowsheet, solution)
    settings = flowsheet.settings
    loops = [
        {
            "tear_streams": list(loop.tears),
            "iterations": loop.iterations,
            "max_relative_change": loop.max_error,
        }
        for loop in solution.loops
    ]
    return {
        "run_id": run_id,
        "success": True,
        "created": datetime.now(UTC).isoformat(),
        "title": flowsheet.config.get("setup", {}).get("title"),
        "property_method": package.method,
        "liquid_model": package.liquid_model,
        "components": {
            cid: {"name": name, "cas_number": cas, "molecular_weight": float(mw)}
            for cid, name, cas, mw in zip(cids, package.names, package.CASs, package.MWs, strict=True)
        },
        "units": dict(RESULT_UNITS),
        "warnings": list(dict.fromkeys(flowsheet.warnings)),
        "streams": stream_docs,
        "blocks": block_docs,
        "balances": balances,
        "convergence": {
            "converged": True,
            "method": settings.method,
            "tolerance": settings.tolerance,
            "iterations": max((loop.iterations for loop in solution.loops), default=1),
            "tear_streams": [t for loop in solution.loops for t in loop.tears],
            "loops": loops,
            "calculation_order": [name for step in flowsheet.steps for name in step.blocks],
        },
    }


def _balances(flowsheet: Flowsheet, solution: Solution) -> dict[str, Any]:
    MWs = flowsheet.package.MWs
    streams, topo = solution.streams, flowsheet.topology
    feeds = [streams[s] for s in topo.feeds]
    products = [streams[s] for s in topo.products]
    # copies a Dupl makes are sources: Aspen leaves duplicated material out of its balance
    copies = [c for b in solution.blocks.values() for c in b.copies]
    duplicated = sum(s.mass_flow(MWs) for s in copies)
    duplicated_H = sum(s.enthalpy_flow for s in copies)
    mass_in = sum(s.mass_flow(MWs) for s in feeds) + duplicated
    mass_out = sum(s.mass_flow(MWs) for s in products)
    heat = sum(b.heat for b in solution.blocks.values())
    work = sum(b.work for b in solution.blocks.values())
    # enthalpy of liquids' pressure changes that the model's liquid enthalpy leaves out (Pump, Valve)
    pressure_term = sum(b.pressure_enthalpy for b in solution.blocks.values())
    H_in = sum(s.enthalpy_flow for s in feeds) + duplicated_H
    H_out = sum(s.enthalpy_flow for s in products)
    mass_error = abs(mass_in - mass_out) / max(mass_in, 1e-30)
    scale = max(sum(abs(s.enthalpy_flow) for s in feeds), sum(abs(s.enthalpy_flow) for s in products))
    scale = max(
        scale,
        sum(abs(b.heat) + abs(b.work) + abs(b.pressure_enthalpy) for b in solution.blocks.values()),
        1.0,
    )
    energy_error = abs(H_in + heat + work - pressure_term - H_out) / scale
    tolerance = flowsheet.settings.tolerance if solution.loops else 0.0
    if mass_error > max(MASS_CLOSURE, 10.0 * tolerance):
        raise BalanceError(
            f"flowsheet mass balance does not close: in {mass_in * 3600:.8g} kg/hr, out "
            f"{mass_out * 3600:.8g} kg/hr "
            f"(relative error {mass_error:.3g})"
        )
    if energy_error > max(ENERGY_CLOSURE, 10.0 * tolerance):
        raise BalanceError(f"flowsheet energy balance does not close: relative error {energy_error:.3g}")
    if mass_error > MASS_CLOSURE or energy_error > ENERGY_CLOSURE:
        flowsheet.warnings.append("balance closure limited by the loose recycle tolerance")
    return {
        "mass_in_kg_hr": mass_in * 3600.0,
        "mass_out_kg_hr": mass_out * 3600.0,
        "mass_relative_error": mass_error,
        "duplicated_kg_hr": duplicated * 3600.0,
        "duplicated_enthalpy_kW": duplicated_H / 1000.0,
        "enthalpy_in_kW": H_in / 1000.0,
        "enthalpy_out_kW": H_out / 1000.0,
        "heat_duty_kW": heat / 1000.0,
        "power_kW": work / 1000.0,
        "liquid_pressure_enthalpy_kW": pressure_term / 1000.0,
        "energy_relative_error": energy_error,
    }


def dumps(document: dict[str, Any]) -> bytes:
    """JSON bytes of a results document (numpy scalars allowed)."""
    return orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY)


def write_file(content: bytes, path: Path) -> Path:
    """Write ``path`` atomically (temp file in the same folder + rename) and return its absolute path.

    A reader never sees a half-written file: it sees the previous one or the whole new one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path.resolve()

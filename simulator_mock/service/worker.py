"""What an engine worker runs: one /run-aspen-simulation request -> its response and files; workbook reads.

Every request that carries a config leaves its files in the service's results folder, named after the
run id ``<UTC yyyymmdd_HHMMSS>_<12 hex>`` the way the real service names its files after a timestamp:

* ``config_<run_id>.json``: the config as received (pretty-printed; the raw body when it is not JSON);
  the response's ``config_file_path``.
* ``output_<run_id>.json``: the mock's stand-in for Aspen's saved simulation (``output_<ts>.bkp``): the
  full results document of a converged run, or the failure record of a failed one; the response's
  ``aspen_file_path`` (also served by the extension route ``GET /api/results/<run_id>``).
* ``aspen_result_export_<run_id>.xlsx``: the results workbook of a converged run
  (:mod:`simulator_mock.flowsheet.workbook`); the response's ``result_file_path``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PureWindowsPath
from typing import Any

import orjson

from simulator_mock.errors import InternalError, MalformedRequestError, SimulationError
from simulator_mock.flowsheet.engine import run_config
from simulator_mock.flowsheet.results import dumps, write_file
from simulator_mock.flowsheet.schema_registry import parse_body
from simulator_mock.flowsheet.workbook import write_workbook

log = logging.getLogger(__name__)

#: The real service's ``error_type`` categories (its failure responses carry these texts).
CONFIG_FAILED = "模拟配置写入失败"  # the config could not be written into / accepted by the simulator
RUN_ERROR = "模拟运行过程发生错误"  # the simulation ran and reported errors (did not solve)
RUN_FAILED = "模拟运行过程失败"  # the run broke down (an exception inside the simulator)
#: The real service's answer to an empty body (HTTP 400).
EMPTY_BODY = "请求体为空"


@dataclass(frozen=True, slots=True)
class Outcome:
    """Result of one simulation request.

    Attributes:
        status: HTTP status. body: JSON response bytes.
        run_id: id of the run whose files were written (None when none were).
        results: the results document bytes of a converged run (None otherwise).
    """

    status: int
    body: bytes
    run_id: str | None = None
    results: bytes | None = None


def init_worker() -> None:
    """Initializer of an engine worker: load thermo and the chemical databases before the first request.

    Under the engine's lock: in thread mode two apps in one process (tests, embedding) would otherwise
    load the chemical databases concurrently, which chemicals' lazy loaders do not survive.
    """
    from simulator_mock.flowsheet.engine import _LOCK
    from simulator_mock.properties.property_package import warm_up

    with _LOCK:
        warm_up()
    import openpyxl  # noqa: F401  (what /get-aspen-result reads workbooks with, through pandas)
    import pandas  # noqa: F401


def warm() -> bool:
    """A no-op task that makes the pool start (and warm up) a worker."""
    return True


#: A run id made by :func:`new_run_id` (the retention sweep deletes only files named after a run id of this
#: shape or an older 32-hex one, ``retention.RUN_ID_IN_NAME``).
RUN_ID_FORMAT = re.compile(r"^[0-9]{8}_[0-9]{6}_[0-9a-f]{12}$")
#: The files of a run, by name pattern (``{}`` is the run id).
RUN_FILES = ("config_{}.json", "output_{}.json", "aspen_result_export_{}.xlsx")


def answer_json(content: Any) -> bytes:
    """An answer's JSON bytes with keys sorted at every level, as the real service's Flask sends them
    (``app.json.sort_keys`` is true by default), so a client reads the same text from both; NaN -> null.

    An integer beyond 64 bits (pandas reads an integral float cell such as 1e300 as a Python int) is beyond
    orjson: the standard library writes it, as Flask's JSON provider would.
    """
    try:
        return orjson.dumps(
            content,
            default=str,
            option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS,
        )
    except orjson.JSONEncodeError:
        text = json.dumps(content, default=str, sort_keys=True, ensure_ascii=False, allow_nan=False)
        return text.encode("utf-8")


_run_ids: Callable[[], str] | None = None


def use_run_ids(source: Callable[[], str] | None) -> Callable[[], str] | None:
    """Name this process's runs with ``source()`` (each a :data:`RUN_ID_FORMAT` id) instead of the clock,
    or with the clock again when ``None``; returns the source it replaces.

    For an in-process mock (``workers=0``, thread workers) whose result paths must not depend on the hour
    it runs at: a benchmark's evaluation, a test. Process workers keep the clock."""
    global _run_ids
    previous, _run_ids = _run_ids, source
    return previous


def new_run_id() -> str:
    """A fresh run id: UTC time to the second (sortable, like the real file names) and 12 random hex, or
    the next id of the source :func:`use_run_ids` installed."""
    if _run_ids is None:
        return f"{datetime.now(UTC):%Y%m%d_%H%M%S}_{uuid.uuid4().hex[:12]}"
    run_id = _run_ids()
    if not well_formed(run_id):
        raise ValueError(f"run id source gave {run_id!r}, not <yyyymmdd>_<HHMMSS>_<12 hex> of a real time")
    return run_id


def well_formed(run_id: str) -> bool:
    """Whether ``run_id`` is ``<yyyymmdd>_<HHMMSS>_<12 hex>`` in full (no trailing newline) of a real time:
    what an id source must give and what a restarted mock adopts (the retention sweep deletes by the
    looser ``retention.RUN_ID_IN_NAME``, which also matches the older 32-hex ids)."""
    if not RUN_ID_FORMAT.fullmatch(run_id):
        return False
    try:
        datetime.strptime(run_id[:15], "%Y%m%d_%H%M%S")
    except ValueError:
        return False
    return True


def error_category(error: SimulationError) -> str:
    """The real service's error_type for a mock error: bad config, failed run, or broken run."""
    if isinstance(error, InternalError):
        return RUN_FAILED
    return CONFIG_FAILED if error.status < 422 else RUN_ERROR


def failure(error: SimulationError, **paths: str) -> dict[str, Any]:
    """The failure body: success false, the files written, the real category, the mock's error_code."""
    return {
        "success": False,
        **paths,
        "error_type": error_category(error),
        "error_code": error.error_type,
        "error_message": f"{error.error_type}: {error.message}",
    }


def _falsy_json(body: bytes) -> bool:
    """True for a body that is a JSON value other than an object, and falsy ([], null, 0, "", false)."""
    try:
        return not orjson.loads(body)
    except orjson.JSONDecodeError:
        return False


def lone_surrogate_field(value: Any, where: str = "") -> str | None:
    """The first field (dotted path) whose key or text holds a lone UTF-16 surrogate (``"\\ud800"`` in JSON):
    not Unicode, so no file, workbook or answer can carry it; ``None`` when there is none."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "(the body)"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            found = lone_surrogate_field(key, path) or lone_surrogate_field(item, path)
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = lone_surrogate_field(item, f"{where}[{index}]")
            if found:
                return found
    return None


def simulate_request(body: bytes, results_dir: str, time_limit_s: float | None = None) -> Outcome:
    """Run one /run-aspen-simulation request and write its files; never raises.

    What the real service calls an empty body (nothing, or a falsy JSON value such as ``{}``) is answered
    400 ``{"error"}`` before any file is written. Once a file is written the outcome carries the run id,
    however the request ends (the service counts and prunes its files), and its failure answer the paths.
    """
    empty = Outcome(400, answer_json({"error": EMPTY_BODY}))
    if not body.strip():
        return empty
    directory = Path(results_dir)
    run_id: str | None = None
    paths: dict[str, str] = {}
    try:
        config: dict[str, Any] = {}
        parse_error: SimulationError | None = None
        try:
            config = parse_body(body)
            if not config:
                return empty
            broken_text = lone_surrogate_field(config)
            if broken_text is not None:
                shown = broken_text.encode("utf-8", "backslashreplace").decode("utf-8")
                raise MalformedRequestError(
                    f"{shown}: the text holds a lone UTF-16 surrogate (e.g. \\ud800 in JSON), which is not "
                    "valid Unicode; send plain text"
                )
            stored = orjson.dumps(config, option=orjson.OPT_INDENT_2)
        except MalformedRequestError as error:  # not a JSON object: stored as received
            if _falsy_json(body):
                return empty
            parse_error, stored = error, body
        except SimulationError as error:  # e.g. a NaN
            parse_error, stored = error, body
        except TypeError:  # an integer beyond 64 bits, which orjson does not encode: stored as received
            stored = body
        directory.mkdir(parents=True, exist_ok=True)
        run_id = new_run_id()
        paths["aspen_file_path"] = str((directory / f"output_{run_id}.json").resolve())
        paths["config_file_path"] = str((directory / f"config_{run_id}.json").resolve())
        write_file(stored, Path(paths["config_file_path"]))
        try:
            if parse_error is not None:
                raise parse_error
            results = run_config(config, run_id, time_limit_s)
        except SimulationError as error:
            return _failed(error, run_id, paths)
        content = dumps(results)
        write_file(content, Path(paths["aspen_file_path"]))
        result_path = write_workbook(results, config, directory / f"aspen_result_export_{run_id}.xlsx")
        warnings = results["warnings"]
        response = {
            "success": True,
            **paths,
            "result_file_path": str(result_path),
            "message": (
                "simulation converged; results saved"
                if not warnings
                else "simulation converged with warnings (no severe errors); results saved"
            ),
            "run_id": run_id,
            "warnings": warnings,
        }
        return Outcome(200, answer_json(response), run_id, content)
    except Exception as exc:  # the service must answer, whatever happened
        log.exception("unexpected failure in a simulation request")
        broken = InternalError(f"unexpected {type(exc).__name__}: {exc}")
        if run_id is None:
            return Outcome(201, answer_json(failure(broken)))
        try:
            return _failed(broken, run_id, paths)
        except Exception:  # even its failure record could not be written: still counted by the service
            return Outcome(201, answer_json(failure(broken, **paths)), run_id)


def _failed(error: SimulationError, run_id: str, paths: dict[str, str]) -> Outcome:
    """The failure answer of a run whose files exist, its failure record written as its output file."""
    answer = failure(error, **paths)
    record = {"run_id": run_id, "created": datetime.now(UTC).isoformat(), **answer}
    write_file(orjson.dumps(record), Path(paths["aspen_file_path"]))
    return Outcome(201, answer_json(answer), run_id)


def read_result_file(path: str, shown_path: str) -> bytes:
    """``GET /get-aspen-result``'s answer: the workbook read with pandas as the real service reads it.

    Args:
        path: the resolved file to read. shown_path: the ``file_path`` the client sent (echoed back).

    Raises:
        Exception: whatever pandas raises for a file that is not a readable workbook.
    """
    import pandas as pd

    excel = pd.ExcelFile(path)
    try:
        names = list(excel.sheet_names)
        data: dict[str, Any] = {}
        for name in names:
            try:
                frame = pd.read_excel(excel, sheet_name=name)
                data[name] = {
                    "row_count": len(frame),
                    "column_count": len(frame.columns),
                    "column_names": frame.columns.tolist(),
                    "data": frame.where(pd.notnull(frame), None).to_dict(orient="records"),
                }
            except Exception as exc:  # the real service reports a sheet it cannot read and goes on
                data[name] = {"error": f"读取工作表失败: {exc}", "row_count": 0, "column_count": 0}
    finally:
        excel.close()
    answer = {
        "status": "success",
        "file_info": {
            # a Windows path (the real service's, or the mock's --windows-paths) is named as Windows names it
            "file_name": PureWindowsPath(shown_path).name
            if "\\" in shown_path
            else os.path.basename(shown_path),
            "file_path": shown_path,
            "sheet_count": len(names),
            "sheet_names": names,
            "read_time": datetime.now(UTC).isoformat(),
        },
        "data": data,
    }
    # NaN that pandas leaves in string / float columns is written as null (the mock never emits NaN)
    return answer_json(answer)

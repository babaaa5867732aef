"""The mock answers every route of the real Aspen service key for key, with the real status codes.

The expected key sets below are read off the real service (``server/aspenagent.py`` of
yingchen03-max/repo-aspen-server: ``health_check``, ``get_schema``, ``list_schemas``,
``run_aspen_simulation``, ``get_result``, ``download_file``, and ``get_all_simulation_results`` for the
workbook); the mock may add keys only where the contract names them as extensions.
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from _support import in_process_client
from fastapi.testclient import TestClient
from openpyxl import Workbook, load_workbook

from simulator_mock import examples, run_config
from simulator_mock.flowsheet.builders import feed, powerlaw, rcstr_data, reactor_config, rplug_data
from simulator_mock.flowsheet.schema_registry import BLOCK_TYPES
from simulator_mock.flowsheet.workbook import NOT_WRITTEN, sheets, xlsx_bytes
from simulator_mock.service.settings import Settings

# ---- the real service's answers -------------------------------------------------------------------

HEALTH = {"status", "timestamp", "aspen_available"}
HEALTH_EXTRAS = {"simulator", "engine", "version", "workers", "worker_restarts", "warm"} | {
    # load, bounds and the results folder (issue 14)
    "in_flight",
    "cancelled_runs",
    "run_budget_s",
    "queue_wait_s",
    "results_dir_bytes",
    "results_dir_runs",
    "retention_deleted_runs",
}
SCHEMA_FOUND = {"success", "requested", "found", "schemas"}
SCHEMA_PARTIAL = SCHEMA_FOUND | {"not_found", "message"}
SCHEMA_LISTING = {"success", "count", "schemas"}
SCHEMA_LISTING_ENTRY = {"type", "file", "description"}  # /api/schema?format=list
SCHEMA_LIST_ENTRY = {"type", "file", "category", "description", "size"}  # /api/schema/list
RUN_SUCCESS = {"success", "aspen_file_path", "config_file_path", "result_file_path", "message"}
RUN_SUCCESS_EXTRAS = {"run_id", "warnings"}
RUN_FAILURE = {"success", "aspen_file_path", "config_file_path", "error_type", "error_message"}
RUN_FAILURE_EXTRAS = {"error_code"}
CONFIG_FAILED, RUN_ERROR = "模拟配置写入失败", "模拟运行过程发生错误"
REQUEST_ERROR = {"error"}  # empty body (400); the mock's body-too-large (413) has the same shape
FILE_ERROR = {"error", "timestamp"}  # /get-aspen-result and /download: 400, 403, 404
RESULT = {"status", "file_info", "data"}
FILE_INFO = {"file_name", "file_path", "sheet_count", "sheet_names", "read_time"}
SHEET = {"row_count", "column_count", "column_names", "data"}
DOWNLOAD_TYPES = {".bkp", ".apw", ".json", ".xlsx", ".xls", ".txt", ".log", ".out", ".csv"}
UNITS = {"C", "bar", "kW", "kmol/hr", "kg/hr", "cum/hr", "meter", "cum", "hr"}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Path]]:
    """The app in this process (simulations in a thread) and its results folder."""
    results = tmp_path_factory.mktemp("contract_results")
    with in_process_client(results) as c:
        yield c, results.resolve()


@pytest.fixture(scope="module")
def client(service: tuple[TestClient, Path]) -> TestClient:
    return service[0]


def run(client: TestClient, config: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/run-aspen-simulation", json=config)
    assert response.status_code == 200, response.text
    return response.json()


# ---- /health, /api/schema, /api/schema/list ---------------------------------------------------------


def test_health_keys(client: TestClient) -> None:
    body = client.get("/health").json()
    assert set(body) >= HEALTH and set(body) - HEALTH <= HEALTH_EXTRAS
    assert body["status"] == "ok" and body["aspen_available"] is False


def test_schema_list_names_files_like_the_real_service(client: TestClient) -> None:
    response = client.get("/api/schema/list")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == SCHEMA_LISTING and body["success"] is True
    assert body["count"] == len(body["schemas"]) == 1 + len(BLOCK_TYPES) + 3
    assert all(set(entry) == SCHEMA_LIST_ENTRY for entry in body["schemas"])
    files = {entry["type"]: entry for entry in body["schemas"]}
    assert files["base"] | {"size": 0} == {
        "type": "base",
        "file": "base_schema.json",
        "category": "base",
        "description": "基础配置 Schema",
        "size": 0,
    }
    for block_type in BLOCK_TYPES:
        assert files[block_type]["file"] == f"blocks_{block_type}_data.json"
        assert files[block_type]["category"] == "block"
        assert files[block_type]["size"] > 100
    for section in ("reactions", "design_specs", "convergence"):  # documents of their own, as served for real
        assert files[section]["file"] == f"{section}.json" and files[section]["category"] == "other"
    order = [(e["category"], e["type"]) for e in body["schemas"]]
    assert order == sorted(order)


def test_reactions_design_specs_and_convergence_are_parts_of_their_own(client: TestClient) -> None:
    """As on the real service: base has none of the three; each is its own document, keyed by its section."""
    base = client.get("/api/schema", params={"types": "base"}).json()["schemas"]["base"]
    assert not {"reactions", "design_specs", "convergence"} & set(base["properties"])
    body = client.get("/api/schema", params={"types": "base,RCSTR,reactions,design_specs,convergence"}).json()
    assert body["success"] is True and body["found"] == 5
    for section in ("reactions", "design_specs", "convergence"):
        assert list(body["schemas"][section]) == [section]
        assert body["schemas"][section][section]["type"] == "object"


@pytest.mark.parametrize(
    ("types", "keys"),
    [
        (None, ["base"]),  # the real default is base
        ("base", ["base"]),
        ("BASE", ["base"]),
        ("Heater", ["Heater"]),
        ("base,Mixer,Heater", ["base", "Mixer", "Heater"]),
        (" base , Pump ,", ["base", "Pump"]),
        ("heater", ["heater"]),  # Windows file names match without regard to case; key as requested
        ("blocks_Heater_data", ["blocks_Heater_data"]),  # the real lookup also tries <type>.json
        ("", []),
    ],
)
def test_schema_types(client: TestClient, types: str | None, keys: list[str]) -> None:
    response = client.get("/api/schema", params={} if types is None else {"types": types})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == SCHEMA_FOUND
    assert body["success"] is True
    assert list(body["schemas"]) == sorted(keys) and body["found"] == len(keys)  # Flask sorts keys
    given = "base" if types is None else types
    assert body["requested"] == [t.strip() for t in given.split(",") if t.strip()]
    for key, document in body["schemas"].items():
        assert isinstance(document, dict) and document and "error" not in document, key


def _pairs_sorted(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    assert keys == sorted(keys), keys
    return dict(pairs)


def test_answers_sort_keys_at_every_level_as_flask_does(client: TestClient) -> None:
    """The real service answers through Flask's JSON provider, whose sort_keys is true by default: a client
    (and a model reading the raw text) sees every object's keys in sorted order."""
    answer = run(client, examples.flash_drum())
    responses = [
        client.get("/health"),
        client.get("/api/schema", params={"types": "all"}),
        client.get("/api/schema/list"),
        client.post("/run-aspen-simulation", json=examples.heater()),
        client.post("/run-aspen-simulation", content=b"[1]"),
        client.get("/get-aspen-result", params={"file_path": answer["result_file_path"]}),
        client.get("/get-aspen-result", params={"file_path": "/etc/passwd"}),
    ]
    for response in responses:
        json.loads(response.text, object_pairs_hook=_pairs_sorted)


def test_schema_all_is_keyed_by_file_stem(client: TestClient) -> None:
    body = client.get("/api/schema", params={"types": "all"}).json()
    assert set(body) == SCHEMA_FOUND and body["success"] is True
    sections = {"reactions", "design_specs", "convergence"}
    expected = {"base_schema", *(f"blocks_{t}_data" for t in BLOCK_TYPES), *sections}
    assert set(body["requested"]) == set(body["schemas"]) == expected
    assert body["found"] == len(expected)


def test_partly_unknown_types_are_200_with_success_false(client: TestClient) -> None:
    response = client.get("/api/schema", params={"types": "base,Reactor,Heater,../base_schema"})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == SCHEMA_PARTIAL
    assert body["success"] is False
    assert body["requested"] == ["base", "Reactor", "Heater", "../base_schema"]
    assert set(body["schemas"]) == {"base", "Heater"} and body["found"] == 2
    assert body["not_found"] == ["Reactor", "../base_schema"]
    assert "Reactor" in body["message"]


def test_schema_format_list(client: TestClient) -> None:
    body = client.get("/api/schema", params={"types": "Heater", "format": "list"}).json()
    assert set(body) == SCHEMA_LISTING and body["success"] is True
    assert all(set(entry) == SCHEMA_LISTING_ENTRY for entry in body["schemas"])
    assert [e["type"] for e in body["schemas"]] == sorted(e["type"] for e in body["schemas"])
    # any other format is the real service's json
    assert set(client.get("/api/schema", params={"format": "yaml"}).json()) == SCHEMA_FOUND


def test_schema_dir_serves_the_users_documents(tmp_path: Path) -> None:
    """--schema-dir: the user's files (real names) are served; configs are checked by the packaged ones."""
    schemas = tmp_path / "schema"
    schemas.mkdir()
    (schemas / "base_schema.json").write_text(json.dumps({"title": "the real base", "properties": {}}))
    (schemas / "blocks_Heater_data.json").write_text(json.dumps({"title": "real heater"}))
    (schemas / "reactions.json").write_text(json.dumps({"title": "reactions"}))
    (schemas / "blocks_Broken_data.json").write_text("{not json")
    with in_process_client(tmp_path / "results", schema_dir=schemas) as user:
        listing = user.get("/api/schema/list").json()
        assert [(e["category"], e["type"], e["file"]) for e in listing["schemas"]] == [
            ("base", "base", "base_schema.json"),
            ("block", "Broken", "blocks_Broken_data.json"),
            ("block", "Heater", "blocks_Heater_data.json"),
            ("other", "reactions", "reactions.json"),
        ]
        sizes = {e["file"]: e["size"] for e in listing["schemas"]}
        assert sizes["reactions.json"] == (schemas / "reactions.json").stat().st_size
        body = user.get("/api/schema", params={"types": "base,Heater,reactions,Broken,Mixer"}).json()
        assert body["schemas"]["base"]["title"] == "the real base"
        assert body["schemas"]["Heater"] == {"title": "real heater"}
        assert body["schemas"]["reactions"] == {"title": "reactions"}
        assert set(body["schemas"]["Broken"]) == {"error", "file"}  # the real answer for an unreadable file
        assert body["not_found"] == ["Mixer"] and body["success"] is False
        # validation still uses the packaged schemas: a valid heater config runs
        assert user.post("/run-aspen-simulation", json=examples.heater()).json()["success"] is True


def test_schema_dir_flag() -> None:
    from simulator_mock.service.cli import parse_args

    here = Path(__file__).parent
    assert parse_args(["--schema-dir", str(here)]).schema_dir == here
    assert parse_args([]).schema_dir is None
    with pytest.raises(SystemExit):
        parse_args(["--schema-dir", str(here / "no-such-folder")])


# ---- /run-aspen-simulation ----------------------------------------------------------------------------


def test_run_success_keys_and_files(service: tuple[TestClient, Path]) -> None:
    client, results = service
    config = examples.heater()
    body = run(client, config)
    assert set(body) >= RUN_SUCCESS and set(body) - RUN_SUCCESS <= RUN_SUCCESS_EXTRAS
    assert body["success"] is True and body["warnings"] == []
    run_id = body["run_id"]
    paths = {key: Path(body[key]) for key in ("config_file_path", "aspen_file_path", "result_file_path")}
    assert paths == {
        "config_file_path": results / f"config_{run_id}.json",
        "aspen_file_path": results / f"output_{run_id}.json",
        "result_file_path": results / f"aspen_result_export_{run_id}.xlsx",
    }
    assert json.loads(paths["config_file_path"].read_text()) == config
    output = json.loads(paths["aspen_file_path"].read_text())
    assert output["run_id"] == run_id and output["success"] is True
    assert load_workbook(paths["result_file_path"], read_only=True).sheetnames == [
        "Stream Summary",
        "H1_result",
    ]


def test_config_failure_is_201_with_the_real_category(service: tuple[TestClient, Path]) -> None:
    client, results = service
    config = copy.deepcopy(examples.heater())  # the examples share their component dicts
    config["components"][0].update(cas_number="1-11-1", name="X", database_name="NO-SUCH-CHEMICAL")
    response = client.post("/run-aspen-simulation", json=config)
    assert response.status_code == 201
    body = response.json()
    assert set(body) == RUN_FAILURE | RUN_FAILURE_EXTRAS
    assert body["success"] is False and body["error_type"] == CONFIG_FAILED
    assert body["error_message"].startswith(body["error_code"] + ": ")
    assert json.loads(Path(body["config_file_path"]).read_text()) == config
    record = json.loads(Path(body["aspen_file_path"]).read_text())
    assert record["success"] is False and record["error_code"] == body["error_code"]
    assert Path(body["config_file_path"]).parent == results


def test_run_error_is_201_with_the_real_category(client: TestClient) -> None:
    config = copy.deepcopy(examples.valve())
    config["blocks_Valve_data"]["V1"]["JOB_DATA"]["P_OUT_VALUE"] = 10  # above the inlet pressure
    response = client.post("/run-aspen-simulation", json=config)
    assert response.status_code == 201
    body = response.json()
    assert set(body) == RUN_FAILURE | RUN_FAILURE_EXTRAS
    assert (body["error_type"], body["error_code"]) == (RUN_ERROR, "InfeasibleSpecification")
    assert "V1" in body["error_message"]


@pytest.mark.parametrize(
    ("body", "error_code"),
    [
        (b"{not json", "MalformedJSON"),
        (b"[1, 2]", "MalformedJSON"),
        (b"\xff\xfe{}", "MalformedJSON"),
        (b'{"components": NaN}', "InvalidNumber"),
        (b"[" * 100_000 + b"]" * 100_000, "MalformedJSON"),
        (b'{"components": ' + b"9" * 400 + b"}", "InvalidNumber"),
    ],
)
def test_bad_bodies_are_config_failures(client: TestClient, body: bytes, error_code: str) -> None:
    response = client.post(
        "/run-aspen-simulation", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 201
    answer = response.json()
    assert set(answer) == RUN_FAILURE | RUN_FAILURE_EXTRAS
    assert (answer["error_type"], answer["error_code"]) == (CONFIG_FAILED, error_code)
    stored = Path(answer["config_file_path"]).read_bytes()
    if len(body) <= Settings().max_stored_input_bytes:
        assert stored == body  # kept as received
    else:  # a stored copy is capped (issue 14): a note with the original size and hash
        assert json.loads(stored)["original_bytes"] == len(body)


@pytest.mark.parametrize("body", [b"", b"  \n", b"{}", b"[]", b"null", b"0", b'""', b"false"])
def test_empty_body_is_400(client: TestClient, body: bytes) -> None:
    response = client.post(
        "/run-aspen-simulation", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert set(response.json()) == REQUEST_ERROR


def test_oversized_body_is_413(client: TestClient) -> None:
    response = client.post("/run-aspen-simulation", content=b"{" + b" " * (1024 * 1024 + 1) + b"}")
    assert response.status_code == 413
    assert set(response.json()) == REQUEST_ERROR


def test_unknown_route_and_method_are_json(client: TestClient) -> None:
    for response in (client.get("/no/such/route"), client.get("/run-aspen-simulation")):
        assert response.status_code in (404, 405)
        assert set(response.json()) == FILE_ERROR


# ---- /get-aspen-result and /download -------------------------------------------------------------------


def test_get_aspen_result_keys(client: TestClient) -> None:
    path = run(client, examples.flash_drum())["result_file_path"]
    response = client.get("/get-aspen-result", params={"file_path": path})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == RESULT and body["status"] == "success"
    info = body["file_info"]
    assert set(info) == FILE_INFO
    assert info["file_path"] == path and info["file_name"] == Path(path).name
    assert info["sheet_names"] == ["Stream Summary", "F1_result"] and info["sheet_count"] == 2
    for name in info["sheet_names"]:
        sheet = body["data"][name]
        assert set(sheet) == SHEET
        assert sheet["row_count"] == len(sheet["data"]) and sheet["column_count"] == len(
            sheet["column_names"]
        )


def test_file_routes_refuse_paths_outside_the_results_folder(
    service: tuple[TestClient, Path], tmp_path: Path
) -> None:
    client, results = service
    outside = tmp_path / "secret.xlsx"
    outside.write_bytes(xlsx_bytes({"S": [["a"], [1]]}))
    (results / "link.xlsx").unlink(missing_ok=True)
    os.symlink(outside, results / "link.xlsx")
    attempts = [
        str(outside),
        "/etc/passwd",
        f"{results}/../{results.name}-x/y.xlsx",
        str(results / ".." / "secret.xlsx"),
        str(results / "link.xlsx"),  # a link inside that leads out
        str(results / "a\x00b.xlsx"),
    ]
    for route in ("/get-aspen-result", "/download"):
        for attempt in attempts:
            response = client.get(route, params={"file_path": attempt})
            assert response.status_code == 403, (route, attempt, response.text)
            assert set(response.json()) == FILE_ERROR


def test_relative_paths_resolve_in_the_working_directory_as_on_the_real_service(
    service: tuple[TestClient, Path],
) -> None:
    """The real routes check ``os.path.exists(file_path)``: a bare file name is looked up in the service's
    working directory (404 there), not in its results folder; a path relative to that directory works."""
    client = service[0]
    path = run(client, examples.heater())["result_file_path"]
    relative = os.path.relpath(path, Path.cwd())
    for route in ("/get-aspen-result", "/download"):
        for shortened in (Path(path).name, f"./{Path(path).name}", "../secret.xlsx", "a\x00b.xlsx"):
            response = client.get(route, params={"file_path": shortened})
            assert response.status_code == 404, (route, shortened, response.text)
            assert set(response.json()) == FILE_ERROR
        assert client.get(route, params={"file_path": relative}).status_code == 200, relative
    windows = "D:\\aspen\\resultfile\\" + Path(path).name  # a real service's path, not this one's
    assert client.get("/get-aspen-result", params={"file_path": windows}).status_code == 404


def test_file_routes_400_404(service: tuple[TestClient, Path]) -> None:
    client, results = service
    for route in ("/get-aspen-result", "/download"):
        for params in ({}, {"file_path": ""}):
            response = client.get(route, params=params)
            assert response.status_code == 400 and set(response.json()) == FILE_ERROR
        response = client.get(route, params={"file_path": str(results / "missing.xlsx")})
        assert response.status_code == 404 and set(response.json()) == FILE_ERROR
    response = client.get("/download", params={"file_path": str(results)})  # a folder
    assert response.status_code == 400 and set(response.json()) == FILE_ERROR


def test_get_aspen_result_on_a_file_that_is_no_workbook(client: TestClient) -> None:
    config_path = run(client, examples.heater())["config_file_path"]
    response = client.get("/get-aspen-result", params={"file_path": config_path})
    assert response.status_code == 422  # the real service answers 500 with these keys; the mock never 5xx
    assert set(response.json()) == FILE_ERROR | {"file_path"}


def test_download(service: tuple[TestClient, Path]) -> None:
    client, results = service
    answer = run(client, examples.heater())
    workbook = client.get("/download", params={"file_path": answer["result_file_path"]})
    assert workbook.status_code == 200
    assert workbook.content == Path(answer["result_file_path"]).read_bytes()
    assert workbook.headers["content-type"].startswith("application/vnd.openxmlformats")
    assert "attachment" in workbook.headers["content-disposition"]
    config = client.get("/download", params={"file_path": answer["config_file_path"]})
    assert config.headers["content-type"].startswith("application/json")
    assert config.json() == examples.heater()
    relative = os.path.relpath(answer["aspen_file_path"], Path.cwd())  # to the service's working directory
    relative_answer = client.get("/download", params={"file_path": relative})
    assert relative_answer.status_code == 200 and relative_answer.json()["run_id"] == answer["run_id"]
    (results / "notes.py").write_text("print()")
    refused = client.get("/download", params={"file_path": str(results / "notes.py")})
    assert refused.status_code == 403
    assert set(refused.json()) == FILE_ERROR | {"allowed_types"}
    assert set(refused.json()["allowed_types"]) == DOWNLOAD_TYPES


# ---- the results workbook ---------------------------------------------------------------------------


def per_cid(prefixes: str, cids: list[str]) -> list[str]:
    return [f"{p}_{c}" for p in prefixes.split() for c in cids]


def with_units(*names: str) -> list[str]:
    """Row names, ``NAME!`` meaning NAME followed by NAME_UNITS."""
    out = []
    for name in names:
        out += [name[:-1], f"{name[:-1]}_UNITS"] if name.endswith("!") else [name]
    return out


def cids_of(config: dict[str, Any]) -> list[str]:
    return [c["cid"] for c in config["components"]]


#: (example, block name, block type, rows expected on its sheet given the component ids)
WORKBOOKS: list[tuple[Callable[[], dict[str, Any]], str, str, Callable[[list[str]], list[str]]]] = [
    (examples.water_mixing, "M1", "Mixer", lambda c: with_units("B_TEMP!", "B_PRES!", "B_VFRAC", "PDROP!")),
    (
        examples.heater,
        "H1",
        "Heater",
        lambda c: with_units("B_TEMP!", "B_PRES!", "B_VFRAC", "QCALC!", "QNET!", "PDROP!")
        + per_cid("F X", c),  # liquid outlet: no vapour composition, no K
    ),
    (
        examples.pump,
        "P1",
        "Pump",
        lambda c: with_units(
            "FLUID_POWER!", "BRAKE_POWER!", "ELEC_POWER!", "VFLOW!", "PDRP!", "HEAD_CAL!", "CEFF", "WNET!",
            "POC!", "TOC!",
        ),
    ),
    (
        examples.valve,
        "V1",
        "Valve",
        lambda c: with_units("P_OUT_OUT!", "VALVE_DP!", "TCALC!", "VCALC"),
    ),
    (
        examples.compressor,
        "C1",
        "Compr",
        lambda c: with_units(
            "IND_POWER!", "BRAKE_POWER!", "WNET!", "POWER_LOSS!", "EPC", "EFF_MECH", "POC!", "TOC!", "TOS!",
            "B_VFRAC", "HEAD_CAL!", "POWER_ISEN!", "FEED_VFLOW!", "VFLOW!",
        ),
    ),
    (
        examples.flash_drum,
        "F1",
        "Flash2",
        lambda c: with_units("B_TEMP!", "B_PRES!", "B_VFRAC", "MVFRAC", "QCALC!", "QNET!", "PDROP!")
        + per_cid("F X Y K", c),
    ),
    (examples.sep, "S1", "Sep", lambda c: with_units("QCALC!")),
    (examples.sep2, "S1", "Sep2", lambda c: with_units("QCALC!")),
    (
        examples.rating_column,
        "C1",
        "Distl",
        lambda c: with_units(
            "COND_DUTY!", "REB_DUTY!", "FEED_TRAY_T!", "TOP_TEMP!", "BOTTOM_TEMP!", "FEED_QUALITY"
        ),
    ),
    (
        examples.multistage_compressor,
        "K1",
        "MCompr",
        lambda c: with_units("B_PRES2!", "QCALC2!", "DUTY_OUT!", "WNET!", "QNET!")
        + [
            name
            for k in (1, 2, 3)
            for name in with_units(
                f"B_TEMP_{k}!", f"B_PRES_{k}!", f"PRES_RATIO_{k}", f"IND_POWER_{k}!", f"BRAKE_POWER_{k}!",
                f"HEAD_CAL_{k}!", f"VFLOW_{k}!",
            )
        ]
        + [
            name
            for k in (1, 2, 3)
            for name in with_units(f"COOL_TEMP_{k}!", f"COOL_PRES_{k}!", f"QCALC_{k}!", f"B_VFRAC_{k}")
        ],
    ),
    (
        examples.heat_exchanger,
        "E1",
        "HeatX",
        lambda c: with_units(
            "HOTIN", "HOTOUT", "HOTINT!", "HOT_TEMP!", "HOTINP!", "HOT_PRES!", "HOTINVF", "HOT_VFRAC",
            "COLDIN", "COLDOUT", "COLDINT!", "COLD_TEMP!", "COLDINP!", "COLD_PRES!", "COLDINVF", "COLD_FRAC",
            "HX_DUTY!",
        ),
    ),
    (
        examples.shortcut_column,
        "C1",
        "DSTWU",
        lambda c: with_units(
            "MIN_REFLUX", "ACT_REFLUX", "MIN_STAGES", "ACT_STAGES", "FEED_LOCATN", "RECT_STAGES",
            "COND_DUTY!", "REB_DUTY!", "DISTIL_TEMP!", "BOTTOM_TEMP!", "DIST_VS_FEED",
        ),
    ),
    (
        examples.column,
        "C1",
        "RadFrac",
        lambda c: with_units(
            "TOP_TEMP!", "COND_DUTY!", "MOLE_D!", "MOLE_L1!", "MOLE_RR", "MOLE_DFR", "BOTTOM_TEMP!",
            "REB_DUTY!", "MOLE_B!", "MOLE_VN!", "MOLE_BR", "MOLE_BFR",
        ),
    ),
    (
        lambda: reactor_config(
            "RPlug", rplug_data(10.0, 0.5, T_C=100.0), powerlaw(), feed(100, 1, {"NC4": 100})
        ),
        "R1",
        "RPlug",
        lambda c: with_units("QCALC!", "TMIN!", "TMAX!", "RES_TIME!"),
    ),
    (
        lambda: reactor_config("RCSTR", rcstr_data(2.0, T_C=100.0), powerlaw(), feed(100, 1, {"NC4": 100})),
        "R1",
        "RCSTR",
        lambda c: with_units(
            "B_TEMP!", "B_PRES!", "B_VFRAC", "QCALC!", "QNET!", "OT_VOL!", "VAP_VOL!", "LIQ_VOL!",
            "TOT_RES_TIME!", "VAP_RES_TIME!",
        ),
    ),
    (
        examples.three_phase_flash,
        "F3",
        "Flash3",
        lambda c: with_units(
            "B_TEMP!", "B_PRES!", "B_VFRAC", "MVFRAC", "QCALC!", "QNET!", "LIQ_RATIO", "PDROP!"
        ) + per_cid("F X1 X2 Y K1 K2", c),
    ),
    (
        examples.decanter,
        "D1",
        "Decanter",
        lambda c: with_units("B_TEMP!", "B_PRES!", "QCALC!", "QNET2!", "LIQ_RATIO", "PDROP!")
        + per_cid("F X1 X2 B_K", c),
    ),
    (
        examples.extractor,
        "X1",
        "Extract",
        lambda c: with_units(
            "TOP_TEMP!", "TOP_L1FLOW!", "TOP_L2FLOW!", "BOTTOM_TEMP!", "BOT_L1FLOW!", "BOT_L2FLOW!"
        ),
    ),
]  # fmt: skip


def test_every_block_type_has_a_workbook_case() -> None:
    """A block type added to simulator_mock/flowsheet/blocks/ gets its <BLOCK>_result rows checked here."""
    # FSplit and RStoic sheets are checked in the recycle and reactor tests below; Dupl has none
    elsewhere = {"FSplit", "RStoic", "Dupl"}
    assert {w[2] for w in WORKBOOKS} | elsewhere == set(BLOCK_TYPES)


def test_dupl_gets_no_block_sheet(client: TestClient) -> None:
    """The real export has no Dupl branch: the workbook holds the Stream Summary only."""
    answer = run(client, examples.duplicator())
    assert list(workbook_rows(answer["result_file_path"])) == ["Stream Summary"]
    assert "Dupl" in NOT_WRITTEN


def workbook_rows(path: str | Path) -> dict[str, list[tuple[Any, ...]]]:
    book = load_workbook(path, read_only=True)
    return {name: [tuple(row) for row in book[name].iter_rows(values_only=True)] for name in book.sheetnames}


def block_values(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    assert rows[0] == ("Parameter", "Value")
    return dict(rows[1:])


@pytest.mark.parametrize(
    ("example", "block", "block_type", "expected"), WORKBOOKS, ids=[w[2] for w in WORKBOOKS]
)
def test_block_sheet_rows(
    client: TestClient,
    example: Callable[[], dict[str, Any]],
    block: str,
    block_type: str,
    expected: Callable[[list[str]], list[str]],
) -> None:
    config = example()
    answer = run(client, config)
    rows = workbook_rows(answer["result_file_path"])
    assert list(rows) == ["Stream Summary", f"{block}_result"]
    sheet = rows[f"{block}_result"]
    assert [r[0] for r in sheet[1:]] == expected(cids_of(config))
    values = block_values(sheet)
    for name, value in values.items():
        if name.endswith("_UNITS"):
            assert value in UNITS and name[: -len("_UNITS")] in values, name
        else:
            assert value is not None, name
    # the same rows through the real route
    served = client.get("/get-aspen-result", params={"file_path": answer["result_file_path"]}).json()
    records = served["data"][f"{block}_result"]["data"]
    assert [r["Parameter"] for r in records] == [r[0] for r in sheet[1:]]
    assert served["data"][f"{block}_result"]["column_names"] == ["Parameter", "Value"]
    assert block_type in NOT_WRITTEN


def test_block_values_follow_the_results(client: TestClient) -> None:
    """Spot checks: each Aspen output name carries the quantity Aspen means by it."""
    ports: dict[str, str] = {}  # port -> stream of the block being checked

    def heater(v: dict[str, Any], r: dict[str, Any], b: dict[str, Any]) -> None:
        assert v["QCALC"] == pytest.approx(b["duty_kW"], rel=1e-12) and v["QCALC_UNITS"] == "kW"
        assert v["B_TEMP"] == pytest.approx(80.0) and v["B_PRES"] == pytest.approx(1.0)
        assert v["PDROP"] == pytest.approx(0.0, abs=1e-12) and v["F_WATER"] == v["X_WATER"] == 1

    def flash(v: dict[str, Any], r: dict[str, Any], b: dict[str, Any]) -> None:
        vap, liq = r["streams"][ports["V(OUT)"]], r["streams"][ports["L(OUT)"]]
        assert v["B_VFRAC"] == pytest.approx(b["vapor_fraction"])
        total = vap["mass_flow_kg_hr"] + liq["mass_flow_kg_hr"]
        assert v["MVFRAC"] == pytest.approx(vap["mass_flow_kg_hr"] / total)
        for cid in ("MEOH", "WATER"):
            assert v[f"X_{cid}"] == pytest.approx(liq["mole_fractions"][cid])
            assert v[f"Y_{cid}"] == pytest.approx(vap["mole_fractions"][cid])
            assert v[f"K_{cid}"] == pytest.approx(v[f"Y_{cid}"] / v[f"X_{cid}"])
            assert v[f"F_{cid}"] == pytest.approx(0.5)

    def pump(v: dict[str, Any], r: dict[str, Any], b: dict[str, Any]) -> None:
        assert v["FLUID_POWER"] == pytest.approx(b["fluid_power_kW"])
        assert v["CEFF"] == pytest.approx(b["efficiency"]) and 0 < v["CEFF"] < 1
        assert v["BRAKE_POWER"] == pytest.approx(v["FLUID_POWER"] / v["CEFF"])
        assert v["PDRP"] == pytest.approx(9.0) and v["HEAD_CAL_UNITS"] == "meter"
        assert v["POC"] == pytest.approx(10.0)

    def compr(v: dict[str, Any], r: dict[str, Any], b: dict[str, Any]) -> None:
        mass_kg_s = r["streams"][ports["F(IN)"]]["mass_flow_kg_hr"] / 3600.0
        assert v["HEAD_CAL"] == pytest.approx(v["POWER_ISEN"] * 1000.0 / (mass_kg_s * 9.80665))
        assert v["IND_POWER"] == pytest.approx(v["POWER_ISEN"] / v["EPC"]) and v["EPC"] == 0.72
        assert v["POWER_LOSS"] == pytest.approx(v["BRAKE_POWER"] - v["IND_POWER"], abs=1e-9)
        assert v["EFF_MECH"] == pytest.approx(1.0) and v["POC"] == pytest.approx(5.0)
        assert v["FEED_VFLOW"] > v["VFLOW"] > 0  # compressed gas takes less volume

    def heatx(v: dict[str, Any], r: dict[str, Any], b: dict[str, Any]) -> None:
        sides = (ports["H(IN)"], ports["H(OUT)"], ports["C(IN)"], ports["C(OUT)"])
        assert (v["HOTIN"], v["HOTOUT"], v["COLDIN"], v["COLDOUT"]) == sides
        assert (v["HOTINT"], v["COLDINT"], v["COLD_TEMP"]) == pytest.approx((90.0, 20.0, 60.0))
        assert v["HOT_TEMP"] == pytest.approx(b["hot_outlet_temperature_C"])
        assert v["HX_DUTY"] == pytest.approx(b["duty_kW"])

    def dstwu(v: dict[str, Any], r: dict[str, Any], b: dict[str, Any]) -> None:
        assert v["ACT_REFLUX"] == pytest.approx(1.5 * v["MIN_REFLUX"], rel=1e-6)
        assert v["RECT_STAGES"] == pytest.approx(v["FEED_LOCATN"] - 1.0)
        assert v["DIST_VS_FEED"] == pytest.approx(0.5) and v["COND_DUTY"] < 0 < v["REB_DUTY"]

    def radfrac(v: dict[str, Any], r: dict[str, Any], b: dict[str, Any]) -> None:
        assert v["MOLE_L1"] == pytest.approx(v["MOLE_RR"] * v["MOLE_D"]) and v["MOLE_RR"] == 1.5
        assert v["MOLE_VN"] == pytest.approx(v["MOLE_BR"] * v["MOLE_B"])
        assert v["MOLE_DFR"] + v["MOLE_BFR"] == pytest.approx(1.0)
        assert v["TOP_TEMP"] < v["BOTTOM_TEMP"]

    checks = {"heater": heater, "flash_drum": flash, "pump": pump, "compressor": compr}
    checks |= {"heat_exchanger": heatx, "shortcut_column": dstwu, "column": radfrac}
    for name, check in checks.items():
        config = getattr(examples, name)()
        answer = run(client, config)
        results = client.get(f"/api/results/{answer['run_id']}").json()
        block = config["blocks"][0]["name"]
        ports.clear()
        ports.update({port: stream for stream, port in config["block_connections"][block].items()})
        values = block_values(workbook_rows(answer["result_file_path"])[f"{block}_result"])
        check(values, results, results["blocks"][block])


def test_multi_block_workbook_fsplit_and_rstoic(client: TestClient) -> None:
    config = examples.recycle()
    answer = run(client, config)
    rows = workbook_rows(answer["result_file_path"])
    assert list(rows) == ["Stream Summary"] + [f"{b['name']}_result" for b in config["blocks"]]
    split = block_values(rows["S1_result"])
    outlets = [s for s, port in config["block_connections"]["S1"].items() if port.endswith("(OUT)")]
    assert list(split) == [n for s in outlets for n in (f"STREAMFRAC_{s}", f"STREAM_ORDER_{s}")]
    assert [split[f"STREAM_ORDER_{s}"] for s in outlets] == list(range(1, len(outlets) + 1))
    assert sum(split[f"STREAMFRAC_{s}"] for s in outlets) == pytest.approx(1.0)

    config = examples.combustion()
    answer = run(client, config)
    reactor = block_values(workbook_rows(answer["result_file_path"])["R1_result"])
    cids = cids_of(config)
    names = list(reactor)
    assert names[:9] == with_units("B_TEMP!", "B_PRES!", "QCALC!", "QNET!", "B_VFRAC")
    assert names[-3:] == ["RXNID_1", "EXTENT_OUT_1", "EXTENT_OUT_1_UNITS"]
    assert [n for n in names if n.startswith("F_")] == per_cid("F", cids)
    assert reactor["EXTENT_OUT_1"] == pytest.approx(1.0) and reactor["EXTENT_OUT_1_UNITS"] == "kmol/hr"
    for cid in cids:
        if f"K_{cid}" in reactor:
            assert reactor[f"K_{cid}"] == pytest.approx(reactor[f"Y_{cid}"] / reactor[f"X_{cid}"])


def test_stream_summary_layout(client: TestClient) -> None:
    config = examples.flash_drum()
    answer = run(client, config)
    results = client.get(f"/api/results/{answer['run_id']}").json()
    summary = workbook_rows(answer["result_file_path"])["Stream Summary"]
    streams = list(results["streams"])
    assert summary[0] == (None, "Units", *streams)
    cids = cids_of(config)
    labels = [(row[0], row[1]) for row in summary[1:]]
    assert labels == [
        ("From", None),
        ("To", None),
        ("Phase", None),
        ("Temperature", "C"),
        ("Pressure", "bar"),
        ("Molar Vapor Fraction", None),
        ("Molar Liquid Fraction", None),
        ("Mass Vapor Fraction", None),
        ("Molar Enthalpy", "kJ/kmol"),
        ("Mass Enthalpy", "kJ/kg"),
        ("Enthalpy Flow", "kW"),
        ("Average MW", None),
        ("Mole Flows", "kmol/hr"),
        *[(c, "kmol/hr") for c in cids],
        ("Mole Fractions", None),
        *[(c, None) for c in cids],
        ("Mass Flows", "kg/hr"),
        *[(c, "kg/hr") for c in cids],
        ("Mass Fractions", None),
        *[(c, None) for c in cids],
    ]
    table = {row[0]: dict(zip(streams, row[2:], strict=True)) for row in summary[1:] if row[0] not in cids}
    section = None
    for row in summary[1:]:
        if row[0] in ("Mole Flows", "Mole Fractions", "Mass Flows", "Mass Fractions"):
            section = row[0]
        elif row[0] in cids:
            table[f"{section}/{row[0]}"] = dict(zip(streams, row[2:], strict=True))
    for name, doc in results["streams"].items():
        assert table["From"][name] == doc["source"] and table["To"][name] == doc["destination"]
        assert table["Temperature"][name] == pytest.approx(doc["temperature_C"])
        assert table["Mole Flows"][name] == pytest.approx(doc["molar_flow_kmol_hr"])
        assert table["Molar Liquid Fraction"][name] == pytest.approx(1.0 - doc["vapor_fraction"])
        assert table["Average MW"][name] == pytest.approx(doc["mass_flow_kg_hr"] / doc["molar_flow_kmol_hr"])
        assert table["Molar Enthalpy"][name] == pytest.approx(doc["molar_enthalpy_kJ_mol"] * 1000.0)
        assert table["Mole Fractions"][name] is None
        for cid in cids:
            assert table[f"Mole Fractions/{cid}"][name] == pytest.approx(doc["mole_fractions"][cid])
            assert table[f"Mole Flows/{cid}"][name] == pytest.approx(doc["component_flows_kmol_hr"][cid])
            MW = results["components"][cid]["molecular_weight"]
            assert table[f"Mass Flows/{cid}"][name] == pytest.approx(doc["component_flows_kmol_hr"][cid] * MW)
    ports = {port: stream for stream, port in config["block_connections"]["F1"].items()}
    feed, vapor, liquid = ports["F(IN)"], ports["V(OUT)"], ports["L(OUT)"]
    assert table["Phase"] == {feed: "Liquid", vapor: "Vapor", liquid: "Liquid"}
    assert table["Mass Vapor Fraction"][vapor] == 1 and table["Mass Vapor Fraction"][liquid] == 0


def _pandas_answer(content: bytes) -> dict[str, Any]:
    """What the real service's get_result computes for a workbook (NaN written as null, as the mock does)."""
    excel = pd.ExcelFile(io.BytesIO(content))
    out = {}
    for name in excel.sheet_names:
        frame = pd.read_excel(excel, sheet_name=name)
        records = frame.where(pd.notnull(frame), None).to_dict(orient="records")
        records = [
            {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            for r in records
        ]
        out[name] = {
            "row_count": len(frame),
            "column_count": len(frame.columns),
            "column_names": frame.columns.tolist(),
            "data": records,
        }
    return out


def test_workbook_reads_as_the_pandas_written_one(client: TestClient) -> None:
    """The mock's .xlsx reads, through pandas and through the route, exactly as the same cells written by
    openpyxl (the engine behind the real service's DataFrame.to_excel) read."""
    config = examples.process_train()
    results = run_config(config)
    book = sheets(results, config)
    reference = Workbook()
    reference.remove(reference.active)
    for name, rows in book.items():
        sheet = reference.create_sheet(name)
        for row in rows:
            sheet.append(row)
    buffer = io.BytesIO()
    reference.save(buffer)
    assert _pandas_answer(xlsx_bytes(book)) == _pandas_answer(buffer.getvalue())

    answer = run(client, config)
    served = client.get("/get-aspen-result", params={"file_path": answer["result_file_path"]}).json()
    expected = _pandas_answer(Path(answer["result_file_path"]).read_bytes())
    assert served["data"] == json.loads(json.dumps(expected))
    summary = served["data"]["Stream Summary"]
    assert summary["column_names"][:2] == ["Unnamed: 0", "Units"]  # pandas' name for the empty A1
    assert summary["data"][0]["Unnamed: 0"] == "From"


def test_cells_are_encoded_as_openpyxl_encodes_them() -> None:
    rows = [["Parameter", "Value"], ["A", 2.0], ["B", 0.1], ["C", None], ["D", " padded "], ["E", "<&>"]]
    rows += [["F", 1e-300], ["G", 123456789012345678], ["H", float("nan")], ["I", True]]
    values = dict(list(load_workbook(io.BytesIO(xlsx_bytes({"S": rows}))).active.values)[1:])
    assert values == {
        "A": 2,  # openpyxl writes 2.0 as "2", read back as an int
        "B": 0.1,
        "C": None,
        "D": " padded ",
        "E": "<&>",
        "F": 1e-300,
        "G": 1.234567890123457e17,  # 16 significant digits, as openpyxl writes
        "H": None,
        "I": True,
    }


def test_results_folder_keeps_a_bounded_number_of_runs(tmp_path: Path) -> None:
    """Past max_runs_kept the oldest run's three files go, also those an earlier service left; other
    files of the folder are never touched."""
    results = tmp_path / "results"
    results.mkdir()
    old = "20200101_000000_0123456789ab"
    for pattern in ("config_{}.json", "output_{}.json", "aspen_result_export_{}.xlsx"):
        (results / pattern.format(old)).write_text("{}")
    (results / "config_mine.json").write_text("{}")  # a user's file, not a run's
    with in_process_client(results, max_runs_kept=2) as client:
        first = run(client, examples.heater())
        assert (results / f"output_{old}.json").exists()
        second = client.post("/run-aspen-simulation", content=b"[1]").json()  # failures count too
        assert not any(results.glob(f"*{old}*"))
        run(client, examples.heater())
        assert not Path(first["result_file_path"]).exists() and not Path(first["config_file_path"]).exists()
        assert Path(second["config_file_path"]).exists()
        assert client.get(f"/api/results/{first['run_id']}").status_code == 404
    assert (results / "config_mine.json").exists()
    assert len(list(results.glob("config_*.json"))) == 3  # two runs + the user's file


def test_the_oldest_run_goes_first_when_ids_are_not_in_time_order(tmp_path: Path) -> None:
    """Ids drawn from a seed are spread over years, so id order is not age order: runs an earlier service
    left are ordered by when their config was written, and a recount (after a worker's death) keeps the
    order the known runs ran in."""
    from aspen_rl.datagen.run_stamps import spread_run_ids
    from simulator_mock.service.worker import RUN_FILES

    results = tmp_path / "results"
    results.mkdir()
    left = ["20330101_000000_0123456789ab", "20210101_000000_0123456789ab"]  # written in this order
    for written, run_id in enumerate(left, start=1):
        for pattern in RUN_FILES:
            path = results / pattern.format(run_id)
            path.write_text("{}")
            os.utime(path, (written, written))
    with spread_run_ids(7), in_process_client(results, max_runs_kept=3) as client:
        service = client.app.state.service
        assert list(service.kept) == left
        ran = [run(client, examples.heater())["run_id"] for _ in range(2)]
        assert sorted(ran) != ran  # this seed stamps the second run earlier than the first
        # the one written first goes, though its id sorts last
        assert not any(results.glob(f"*{left[0]}*")) and (results / f"config_{left[1]}.json").exists()
        stray = "20200101_000000_00000000abcd"  # a run a dying worker wrote last, with the smallest id
        (results / f"config_{stray}.json").write_text("{}")
        latest = max((results / f"config_{run_id}.json").stat().st_mtime for run_id in ran)
        os.utime(results / f"config_{stray}.json", (latest + 1, latest + 1))
        service.adopt_unknown_runs()
        assert list(service.kept) == [*ran, stray]
        assert not (results / f"config_{left[1]}.json").exists()
        assert all((results / f"config_{run_id}.json").exists() for run_id in [*ran, stray])


def test_a_run_counted_while_in_flight_is_not_counted_again_when_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker's death makes the service count the folder's runs, those still computing too (their config is
    written when they start); counted twice, a run would let another run's files go early."""
    import simulator_mock.service.state as state

    real = state.run_cancellable
    services: list[Any] = []

    def recounted(*args: Any) -> Any:
        outcome = real(*args)  # files written, the answer not yet back in the service
        services[0].adopt_unknown_runs()
        return outcome

    monkeypatch.setattr(state, "run_cancellable", recounted)
    with in_process_client(tmp_path, max_runs_kept=2) as client:
        services.append(client.app.state.service)
        first = run(client, examples.heater())["run_id"]
        second = run(client, examples.heater())["run_id"]
        assert list(services[0].kept) == [first, second]
        assert (tmp_path / f"config_{first}.json").exists()


def test_windows_paths_are_answered_and_served_back_as_the_real_service_names_them(tmp_path: Path) -> None:
    """--windows-paths: the answer's paths are the real service's (D:\\aspen\\resultfile\\...), and only
    those (either separator, any case) are served back; a bare name stays 404."""
    with in_process_client(tmp_path, windows_paths=True) as client:
        answer = run(client, examples.heater())
        name = Path(answer["result_file_path"].replace("\\", "/")).name
        assert answer["result_file_path"] == f"D:\\aspen\\resultfile\\{name}"
        assert answer["config_file_path"].startswith("D:\\aspen\\configfile\\config_")
        assert answer["aspen_file_path"].startswith("D:\\aspen\\bkpfile\\output_")
        workbook = client.get("/get-aspen-result", params={"file_path": answer["result_file_path"]})
        assert workbook.status_code == 200
        info = workbook.json()["file_info"]
        assert info["file_name"] == name and info["file_path"] == answer["result_file_path"]
        forward = answer["result_file_path"].replace("\\", "/").lower()
        assert client.get("/get-aspen-result", params={"file_path": forward}).status_code == 200
        assert client.get("/download", params={"file_path": answer["config_file_path"]}).json() == (
            examples.heater()
        )
        for wrong in (name, f"D:\\aspen\\{name}", f"E:\\other\\resultfile\\{name}"):
            assert client.get("/get-aspen-result", params={"file_path": wrong}).status_code == 404, wrong

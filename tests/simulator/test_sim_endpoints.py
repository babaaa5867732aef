"""Every route of the live service (started with its CLI on a free port), used as a client of the real
service uses it: schema, run, then the results workbook through /get-aspen-result or /download."""

from __future__ import annotations

import io
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from _support import LiveMock, in_process_transport
from openpyxl import load_workbook

from simulator_mock.examples import flash_drum, heater
from simulator_mock.flowsheet.schema_registry import BLOCK_TYPES


def stream_value(answer: dict[str, Any], stream: str, row: str) -> Any:
    """A value of the Stream Summary sheet in a /get-aspen-result answer."""
    (record,) = (r for r in answer["data"]["Stream Summary"]["data"] if r["Unnamed: 0"] == row)
    return record[stream]


def block_value(answer: dict[str, Any], block: str, name: str) -> Any:
    """A value of a ``<BLOCK>_result`` sheet in a /get-aspen-result answer."""
    (record,) = (r for r in answer["data"][f"{block}_result"]["data"] if r["Parameter"] == name)
    return record["Value"]


def test_health(http: httpx.Client) -> None:
    body = http.get("/health").json()
    assert body["status"] == "ok"
    assert body["aspen_available"] is False
    assert body["engine"].startswith("thermo ")
    assert "T" in body["timestamp"]


def test_schema_list(http: httpx.Client) -> None:
    body = http.get("/api/schema/list").json()
    assert body["success"] is True and body["count"] == 1 + len(BLOCK_TYPES) + 3
    sections = ["reactions.json", "design_specs.json", "convergence.json"]  # category other, as for real
    assert sorted(e["file"] for e in body["schemas"]) == sorted(
        ["base_schema.json", *(f"blocks_{t}_data.json" for t in BLOCK_TYPES), *sections]
    )


def test_schema_parts(http: httpx.Client) -> None:
    response = http.get("/api/schema", params={"types": "base,Mixer,Heater", "format": "json"})
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True and body["found"] == 3
    schemas = body["schemas"]
    assert list(schemas) == ["Heater", "Mixer", "base"]  # keys sorted, as the real service's Flask sends them
    assert schemas["base"]["title"] == "Flowsheet configuration"
    assert "SPEC_OPT" in json.dumps(schemas["Heater"])


def test_schema_unknown_type_is_named(http: httpx.Client) -> None:
    response = http.get("/api/schema", params={"types": "base,Reactor"})
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is False and body["not_found"] == ["Reactor"]
    assert "Reactor" in body["message"] and list(body["schemas"]) == ["base"]


def test_run_then_read_the_workbook(http: httpx.Client, live_service: LiveMock) -> None:
    response = http.post("/run-aspen-simulation", json=heater())
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    for key in ("config_file_path", "aspen_file_path", "result_file_path"):
        assert Path(body[key]).parent == live_service.results.resolve()
    assert body["result_file_path"].endswith(".xlsx")
    assert json.loads(Path(body["config_file_path"]).read_text()) == heater()
    answer = http.get("/get-aspen-result", params={"file_path": body["result_file_path"]}).json()
    assert answer["status"] == "success"
    assert answer["file_info"]["sheet_names"] == ["Stream Summary", "H1_result"]
    assert stream_value(answer, "PROD-1", "Temperature") == 80
    assert block_value(answer, "H1", "QCALC") > 100
    assert block_value(answer, "H1", "QCALC_UNITS") == "kW"
    # the extension route serves the full results document, the same as the aspen_file_path file
    results = http.get(f"/api/results/{body['run_id']}").json()
    assert results == json.loads(Path(body["aspen_file_path"]).read_text())
    # the workbook holds 16 significant digits, as openpyxl writes numbers
    assert results["blocks"]["H1"]["duty_kW"] == pytest.approx(block_value(answer, "H1", "QCALC"), rel=1e-15)


def test_download_the_workbook(http: httpx.Client) -> None:
    body = http.post("/run-aspen-simulation", json=flash_drum()).json()
    response = http.get("/download", params={"file_path": body["result_file_path"]})
    assert response.status_code == 200
    book = load_workbook(io.BytesIO(response.content), read_only=True)
    assert book.sheetnames == ["Stream Summary", "F1_result"]
    response = http.get("/download", params={"file_path": "/etc/passwd"})
    assert response.status_code == 403


def test_results_unknown_run(http: httpx.Client) -> None:
    for run_id in ("0" * 32, "..%2F..%2Fetc%2Fpasswd", "no such run"):
        response = http.get(f"/api/results/{run_id}")
        assert response.status_code == 404
        assert set(response.json()) == {"error", "timestamp"}


def test_failures_are_json(http: httpx.Client) -> None:
    response = http.post("/run-aspen-simulation", content=b"{not json")
    assert response.status_code == 201
    assert response.json()["error_code"] == "MalformedJSON"
    assert response.json()["error_type"] == "模拟配置写入失败"
    response = http.post("/run-aspen-simulation", content=b"")
    assert (response.status_code, response.json()) == (400, {"error": "请求体为空"})
    response = http.get("/no/such/endpoint")
    assert response.status_code == 404
    assert "error" in response.json()


def test_body_larger_than_1_MiB_is_refused(http: httpx.Client) -> None:
    config = heater()
    config["metadata"]["description"] = "x" * (1024 * 1024)
    response = http.post("/run-aspen-simulation", json=config)
    assert response.status_code == 413
    assert set(response.json()) == {"error"}


def test_concurrent_requests(http: httpx.Client) -> None:
    """Eight clients at once: every run succeeds with its own files and its own answer."""
    temperatures = [40.0 + 5 * k for k in range(8)]

    def run(T: float) -> tuple[str, float]:
        config = heater()
        config["blocks_Heater_data"]["H1"]["SPEC_DATA"]["TEMP_VALUE"] = T
        path = http.post("/run-aspen-simulation", json=config).json()["result_file_path"]
        answer = http.get("/get-aspen-result", params={"file_path": path}).json()
        return path, stream_value(answer, "PROD-1", "Temperature")

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(run, temperatures))
    assert len({path for path, _ in answers}) == 8
    assert [T for _, T in answers] == temperatures


def test_service_answers_a_flash_like_the_engine(http: httpx.Client) -> None:
    from simulator_mock import run_config

    direct = run_config(flash_drum())
    run_id = http.post("/run-aspen-simulation", json=flash_drum()).json()["run_id"]
    served = http.get(f"/api/results/{run_id}").json()
    assert served["streams"]["VAP-1"] == direct["streams"]["VAP-1"]
    assert served["blocks"] == direct["blocks"]


async def test_app_embedded_behind_asgi_transport(tmp_path: Path) -> None:
    """Without lifespan events (httpx.ASGITransport) the app simulates in a thread of its own process."""
    transport = in_process_transport(tmp_path, workers=2)  # workers set, but no lifespan starts them
    async with httpx.AsyncClient(transport=transport, base_url="http://mock") as client:
        answer = (await client.post("/run-aspen-simulation", json=heater())).json()
        assert answer["success"] is True
        read = await client.get("/get-aspen-result", params={"file_path": answer["result_file_path"]})
    assert stream_value(read.json(), "PROD-1", "Temperature") == 80
    assert (tmp_path / f"aspen_result_export_{answer['run_id']}.xlsx").exists()
    transport.app.state.service.stop()


def test_the_standalone_mock_says_where_it_listens(live_service: LiveMock) -> None:
    live_service.wait_healthy()
    assert f"simulator_mock listening on {live_service.url} (Ctrl-C stops)" in live_service.log.read_text()

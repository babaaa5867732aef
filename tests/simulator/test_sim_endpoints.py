"""Every endpoint of the live service (started with its CLI on a free port)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from sim_helpers import LiveService

from simulator_mock.examples import flash_drum, heater
from simulator_mock.schema_registry import BLOCK_TYPES


def test_health(http: httpx.Client) -> None:
    body = http.get("/health").json()
    assert body["status"] == "ok"
    assert body["aspen_available"] is False
    assert body["engine"].startswith("thermo ")
    assert "T" in body["timestamp"]


def test_schema_list(http: httpx.Client) -> None:
    assert http.get("/api/schema/list").json() == {"schemas": ["base", *BLOCK_TYPES]}


def test_schema_parts(http: httpx.Client) -> None:
    response = http.get("/api/schema", params={"types": "base,Mixer,Heater", "format": "json"})
    assert response.status_code == 200
    schemas = response.json()["schemas"]
    assert list(schemas) == ["base", "Mixer", "Heater"]
    assert schemas["base"]["title"] == "Flowsheet configuration"
    assert "SPEC_OPT" in json.dumps(schemas["Heater"])


def test_schema_unknown_type_lists_valid_ones(http: httpx.Client) -> None:
    response = http.get("/api/schema", params={"types": "base,Reactor"})
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False
    assert body["error_type"] == "UnknownSchemaType"
    assert "Reactor" in body["error_message"]
    assert body["valid_types"] == ["base", *BLOCK_TYPES]


def test_schema_format_other_than_json(http: httpx.Client) -> None:
    response = http.get("/api/schema", params={"types": "base", "format": "yaml"})
    assert response.status_code == 400
    assert response.json()["error_type"] == "UnsupportedFormat"


def test_run_and_read_results(http: httpx.Client, live_service: LiveService) -> None:
    response = http.post("/run-aspen-simulation", json=heater())
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert set(body) >= {"run_id", "aspen_file_path", "result_file_path", "message", "warnings"}
    results = http.get(f"/api/results/{body['run_id']}").json()
    assert results["run_id"] == body["run_id"]
    assert results["streams"]["PROD"]["temperature_C"] == 80.0
    assert results["blocks"]["H1"]["duty_kW"] > 100
    path = Path(body["result_file_path"])
    assert path.parent == live_service.results_dir.resolve()
    assert json.loads(path.read_text()) == results
    assert json.loads(Path(body["aspen_file_path"]).read_text()) == heater()


def test_results_unknown_run(http: httpx.Client) -> None:
    for run_id in ("0" * 32, "..%2F..%2Fetc%2Fpasswd", "no such run"):
        response = http.get(f"/api/results/{run_id}")
        assert response.status_code == 404
        assert response.json()["error_type"] in ("UnknownRun", "NotFound")


def test_failure_is_json_4xx(http: httpx.Client) -> None:
    response = http.post("/run-aspen-simulation", content=b"{not json")
    assert response.status_code == 400
    assert response.json()["error_type"] == "MalformedJSON"
    response = http.get("/no/such/endpoint")
    assert response.status_code == 404
    assert response.json()["success"] is False


def test_body_larger_than_1_MiB_is_refused(http: httpx.Client) -> None:
    config = heater()
    config["setup"]["description"] = "x" * (1024 * 1024)
    response = http.post("/run-aspen-simulation", json=config)
    assert response.status_code == 413
    assert response.json()["error_type"] == "PayloadTooLarge"


def test_concurrent_requests(http: httpx.Client) -> None:
    """Eight clients at once: every run succeeds with its own id and its own answer."""
    temperatures = [40.0 + 5 * k for k in range(8)]

    def run(T: float) -> tuple[str, float]:
        config = heater()
        config["blocks_Heater_data"]["H1"]["SPEC_DATA"]["TEMP_VALUE"] = T
        run_id = http.post("/run-aspen-simulation", json=config).json()["run_id"]
        return run_id, http.get(f"/api/results/{run_id}").json()["streams"]["PROD"]["temperature_C"]

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(run, temperatures))
    assert len({run_id for run_id, _ in answers}) == 8
    assert [T for _, T in answers] == temperatures


def test_service_answers_a_flash_like_the_engine(http: httpx.Client) -> None:
    from simulator_mock import run_config

    direct = run_config(flash_drum())
    run_id = http.post("/run-aspen-simulation", json=flash_drum()).json()["run_id"]
    served = http.get(f"/api/results/{run_id}").json()
    assert served["streams"]["VAP"] == direct["streams"]["VAP"]
    assert served["blocks"] == direct["blocks"]


async def test_app_embedded_behind_asgi_transport(tmp_path: Path) -> None:
    """Without lifespan events (httpx.ASGITransport) the app simulates in a thread of its own process."""
    from simulator_mock.app import create_app
    from simulator_mock.settings import Settings

    app = create_app(Settings(results_dir=tmp_path))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mock") as client:
        answer = (await client.post("/run-aspen-simulation", json=heater())).json()
        assert answer["success"] is True
        results = (await client.get(f"/api/results/{answer['run_id']}")).json()
    assert results["streams"]["PROD"]["temperature_C"] == 80.0
    assert (tmp_path / f"{answer['run_id']}.json").exists()
    app.state.service.stop()

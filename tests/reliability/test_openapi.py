"""The OpenAPI document is complete, and generated requests (schemathesis) find the service keeping it."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import pytest
from _support import mock_app
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

schemathesis = pytest.importorskip("schemathesis")
from schemathesis.specs.openapi import checks as st_checks  # noqa: E402


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    return mock_app(tmp_path_factory.mktemp("openapi_results"))


def test_every_operation_has_real_responses_and_the_run_route_a_body(app) -> None:
    doc = TestClient(app).get("/openapi.json").json()
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert "200" in responses, (method, path)
            for status, answer in responses.items():
                content = answer.get("content", {})
                assert content, (method, path, status)
                for media in content.values():
                    assert media["schema"] != {} or path == "/download", (method, path, status)
    run = doc["paths"]["/run-aspen-simulation"]["post"]
    body = run["requestBody"]["content"]["application/json"]["schema"]
    assert {"components", "blocks", "streams", "stream_data"} <= set(body["properties"])
    assert {"200", "201", "400", "413", "503"} <= set(run["responses"])
    success = doc["components"]["schemas"]["RunSuccess"]
    assert {"aspen_file_path", "config_file_path", "result_file_path", "message"} <= set(success["required"])


def test_405_names_the_allowed_methods(app) -> None:
    response = TestClient(app).delete("/run-aspen-simulation")
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


def _schema():
    """The app in this process (simulations in a thread; a short run budget bounds every example).

    Built at collection (``schema.parametrize`` needs it), before any fixture: its results folder is removed
    when the test process exits, as ``tmp_path`` would be."""
    results = Path(tempfile.mkdtemp(prefix="openapi_results_"))
    atexit.register(shutil.rmtree, results, ignore_errors=True)
    app = mock_app(results, request_timeout_s=2, max_runs_kept=50)
    return schemathesis.openapi.from_asgi("/openapi.json", app)


schema = _schema()

CHECKS_EXCLUDED = (
    # The real contract answers a config that breaks the schema with HTTP 201 {success: false}: a 2xx
    # for "negative" data is the documented behaviour, not a missing rejection.
    st_checks.negative_data_rejection,
)


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_generated_requests_keep_the_documented_contract(case) -> None:
    case.call_and_validate(excluded_checks=CHECKS_EXCLUDED)

"""HTTPS with a self-signed certificate (as the real Aspen service uses): refused by default, trusted through
the CA bundle setting, or used with verification off; the mock serves HTTPS itself given a certificate."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx
import pytest
from _support import LiveMock, free_port, mock_app, serve_in_thread
from _support.tls import self_signed
from fastapi import FastAPI

from aspen_rl.simulator import SimulatorClient, SimulatorUnavailable
from aspen_rl.simulator.probe import check_simulator


async def test_self_signed_https_needs_the_ca_bundle_or_verify_tls_false(tmp_path: Path) -> None:
    cert_file, key_file = self_signed(tmp_path)
    app = mock_app(tmp_path / "results")
    # lifespan off: /health needs no engine, and a second engine warming up in this process races the
    # session mock's warm-up (the chemicals databanks load lazily and not thread-safely).
    with serve_in_thread(app, lifespan="off", ssl_certfile=str(cert_file), ssl_keyfile=str(key_file)) as port:
        url = f"https://127.0.0.1:{port}"
        async with SimulatorClient(url, timeout_s=10, retries=0) as strict:
            with pytest.raises(SimulatorUnavailable, match="CERTIFICATE_VERIFY_FAILED"):
                await strict.health()
        async with SimulatorClient(url, timeout_s=10, retries=0, ca_bundle=cert_file) as trusting:
            assert (await trusting.health())["status"] == "ok"
            assert "base" in await trusting.list_schemas()
        async with SimulatorClient(url, timeout_s=10, retries=0, verify_tls=False) as relaxed:
            assert (await relaxed.health())["status"] == "ok"
        other_cert, _ = self_signed(
            tmp_path / "other"
        )  # a bundle that does not hold the service's certificate
        async with SimulatorClient(url, timeout_s=10, retries=0, ca_bundle=other_cert) as wrong:
            with pytest.raises(SimulatorUnavailable):
                await wrong.health()


def test_probe_names_the_certificate_and_both_fixes(tmp_path: Path) -> None:
    cert_file, key_file = self_signed(tmp_path)
    with serve_in_thread(
        mock_app(tmp_path / "results"), lifespan="off", ssl_certfile=str(cert_file), ssl_keyfile=str(key_file)
    ) as port:
        url = f"https://127.0.0.1:{port}"
        refused = check_simulator(url)
        assert not refused.ok and refused.problem is not None
        assert "certificate" in refused.problem and url in refused.problem
        assert "ASPEN_RL_SIMULATOR_CA_BUNDLE" in refused.problem
        assert "ASPEN_RL_SIMULATOR_VERIFY_TLS=false" in refused.problem
        assert check_simulator(url, ca_bundle=cert_file).ok
        trusted = check_simulator(url, verify_tls=False)
        assert trusted.ok and trusted.is_mock


def test_probe_refuses_a_closed_port_and_a_service_that_is_not_a_simulator() -> None:
    closed = check_simulator(f"http://127.0.0.1:{free_port()}", timeout_s=2)
    assert not closed.ok and "connection refused" in (closed.problem or "")
    impostor = FastAPI()  # answers /health like a model server does, and nothing of the contract

    @impostor.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    with serve_in_thread(impostor, lifespan="off") as port:
        check = check_simulator(f"http://127.0.0.1:{port}", timeout_s=5)
    assert not check.ok and "not a simulator" in (check.problem or "") and "/api/schema/list" in check.problem


def test_the_mock_serves_https_given_a_certificate_and_key(tmp_path: Path) -> None:
    cert_file, key_file = self_signed(tmp_path / "tls")
    args = ("--workers", "0", "--ssl-certfile", str(cert_file), "--ssl-keyfile", str(key_file))
    with LiveMock(tmp_path, *args) as mock:
        assert mock.url.startswith("https://")
        with httpx.Client(
            base_url=mock.url, verify=ssl.create_default_context(cafile=cert_file), timeout=10
        ) as client:
            listing = client.get("/api/schema/list").json()
        assert any(entry["type"] == "base" for entry in listing["schemas"])
        with pytest.raises(httpx.ConnectError):  # plain HTTP clients and unverified certificates are refused
            httpx.get(mock.url + "/health", timeout=10)

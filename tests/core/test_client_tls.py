"""HTTPS with a self-signed certificate (as the real Aspen service uses): refused unless verify_tls is off."""

from __future__ import annotations

import datetime as dt
import ipaddress
from pathlib import Path

import pytest
from _support import mock_app, serve_in_thread

from aspen_rl.simulator import SimulatorClient, SimulatorUnavailable

x509 = pytest.importorskip("cryptography.x509")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "aspen-test")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_file, key_file


async def test_self_signed_https_needs_verify_tls_false(tmp_path: Path) -> None:
    cert_file, key_file = self_signed(tmp_path)
    app = mock_app(tmp_path / "results")
    # lifespan off: /health needs no engine, and a second engine warming up in this process races the
    # session mock's warm-up (the chemicals databanks load lazily and not thread-safely).
    with serve_in_thread(app, lifespan="off", ssl_certfile=str(cert_file), ssl_keyfile=str(key_file)) as port:
        url = f"https://127.0.0.1:{port}"
        async with SimulatorClient(url, timeout_s=10, retries=0) as strict:
            with pytest.raises(SimulatorUnavailable, match="CERTIFICATE_VERIFY_FAILED"):
                await strict.health()
        async with SimulatorClient(url, timeout_s=10, retries=0, verify_tls=False) as relaxed:
            assert (await relaxed.health())["status"] == "ok"

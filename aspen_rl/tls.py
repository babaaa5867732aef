"""Verifying TLS contexts shared by every HTTP client of a process: the default CA bundle or the user's.

Building a context loads the CA bundle (~17 ms of CPU); a rollout builds two clients (simulator and
model), so without sharing, TLS set-up alone was a third of the offline per-rollout overhead.
"""

from __future__ import annotations

import ssl
from functools import cache
from pathlib import Path

import httpx

#: What to do when a simulator's certificate fails verification (our two settings), for error messages.
CERTIFICATE_FIXES = (
    "give the CA certificate that signed it (for a self-signed service: its own certificate, PEM) with "
    "ASPEN_RL_SIMULATOR_CA_BUNDLE=/path/ca.pem (setting simulator_ca_bundle), or turn verification off with "
    "ASPEN_RL_SIMULATOR_VERIFY_TLS=false (setting simulator_verify_tls; trusted networks only)"
)


@cache
def verifying_context() -> ssl.SSLContext:
    """The process-wide context that verifies certificates against httpx's default CA bundle."""
    return httpx.create_ssl_context()


@cache
def bundle_context(ca_bundle: Path) -> ssl.SSLContext:
    """A context that trusts only the certificates of ``ca_bundle`` (PEM), host names checked.

    Raises:
        OSError: the file cannot be read. ssl.SSLError: it holds no PEM certificate.
    """
    return ssl.create_default_context(cafile=str(ca_bundle))


def verify_option(verify_tls: bool, ca_bundle: str | Path | None = None) -> ssl.SSLContext | bool:
    """The ``verify=`` argument for httpx: ``False`` to skip verification, else a shared context that
    verifies against ``ca_bundle`` when one is given, the default CA bundle otherwise."""
    if not verify_tls:
        return False
    if ca_bundle is not None:
        return bundle_context(Path(ca_bundle).resolve())
    return verifying_context()

"""One verifying TLS context per process, shared by every HTTP client a rollout creates.

Building a context loads the CA bundle (~17 ms of CPU); a rollout builds two clients (simulator and
model), so without sharing, TLS set-up alone was a third of the offline per-rollout overhead.
"""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def verifying_context() -> ssl.SSLContext:
    """The process-wide context that verifies certificates against httpx's default CA bundle."""
    return httpx.create_ssl_context()


def verify_option(verify_tls: bool) -> ssl.SSLContext | bool:
    """The ``verify=`` argument for httpx: the shared context, or ``False`` to skip verification."""
    return verifying_context() if verify_tls else False

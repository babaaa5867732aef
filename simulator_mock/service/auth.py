"""Optional shared-token check (``X-Aspen-Token``) and the warning for a non-loopback bind.

The service binds to 127.0.0.1 by default and needs no token there. Bound to another interface it
prints a warning; with a token configured (``SIMULATOR_MOCK_TOKEN`` or ``--token-file``) every
request but ``GET /health`` (a liveness probe that reveals nothing) must carry it in the header.
"""

from __future__ import annotations

import hmac
import ipaddress

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_HEADER = "X-Aspen-Token"
OPEN_PATHS = frozenset({"/health"})


def is_loopback_host(host: str) -> bool:
    """Whether binding ``host`` exposes the service to this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_warning(host: str, token_set: bool) -> str | None:
    """The warning to print before binding ``host``; None for a loopback address."""
    if is_loopback_host(host):
        return None
    exposure = f"binding {host}: the simulator is reachable from other machines"
    if token_set:
        return f"WARNING: {exposure}; requests must carry the {TOKEN_HEADER} header"
    return (
        f"WARNING: {exposure} WITHOUT authentication (anyone who can reach it may run simulations "
        f"and fill its disk); set SIMULATOR_MOCK_TOKEN or --token-file to require an {TOKEN_HEADER} header"
    )


class TokenAuth:
    """ASGI middleware: answer 401 unless the request carries the shared token (constant-time compare)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        wanted = TOKEN_HEADER.lower().encode()
        given = next((v for k, v in scope.get("headers", []) if k == wanted), b"")
        if hmac.compare_digest(given, self.token):
            await self.app(scope, receive, send)
            return
        body = orjson.dumps({"error": f"missing or wrong {TOKEN_HEADER} header"})
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", TOKEN_HEADER.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

"""Whether a server can listen on a host and port, asked before anything slow loads."""

from __future__ import annotations

import socket


def port_in_use(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be bound now (in use, or not an address of this machine), else None."""
    if port == 0:
        return None
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds it
        try:
            probe.bind((host, port))
        except OSError as exc:
            return f"cannot listen on {host}:{port}: {exc.strerror or exc} (choose another --port)"
    return None

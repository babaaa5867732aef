"""Free loopback ports: the tests use the product's own helper, so there is one way to find one."""

from __future__ import annotations

from aspen_rl.subprocesses import free_port

__all__ = ["free_port"]

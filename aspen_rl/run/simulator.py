"""A run's simulator: the named service(s), used only if they pass the check, or a mock started for it."""

from __future__ import annotations

import logging
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from aspen_rl.errors import UsageError
from aspen_rl.settings import Settings

logger = logging.getLogger("aspen_rl")

DISPATCH_LOG = "simulator_dispatch.jsonl"
"""The pool's log of dispatched simulations, in the run folder (each service's share is counted from it)."""


def start_simulator(
    settings: Settings, stack: ExitStack, output_dir: Path, console: Console
) -> tuple[Settings, dict[str, Any]]:
    """The run's simulator: the named one, used only if it passes the check, or a mock started for the run.

    A URL named anywhere (environment, .env, YAML, ``--simulator-url``) is never replaced: a certificate
    that is not trusted, nothing listening, or a service that does not speak the contract stops the run
    here, before any rollout. Only when no URL is named does the run start its own mock (stopped by
    ``stack``).

    Returns:
        The settings pointing at the simulator, and what ``summary.json`` records of it.

    Raises:
        UsageError: the named simulator cannot be used (the message says why and how to fix it).
    """
    if settings.simulator_named:
        info = _check_named(settings, console)
    else:
        settings, info = _start_mock(settings, stack, output_dir, console)
    limit = settings.simulator_max_runs_per_service
    info["max_runs_per_service"] = (
        limit
        if limit is not None
        else "1 per Aspen service, no limit on the mock (simulator_max_runs_per_service)"
    )
    settings = settings.model_copy(update={"simulator_dispatch_log": output_dir / DISPATCH_LOG})
    logger.info("simulator: %s", info)
    return settings, info


def _check_named(settings: Settings, console: Console) -> dict[str, Any]:
    from aspen_rl.simulator.probe import check_simulator
    from aspen_rl.subprocesses import timeout_problem

    tls = tls_note(settings)
    token = settings.simulator_token.get_secret_value() if settings.simulator_token else None
    checks = [
        check_simulator(
            one, verify_tls=settings.simulator_verify_tls, ca_bundle=settings.simulator_ca_bundle, token=token
        )
        for one in settings.simulator_urls
    ]
    for check in checks:
        if not check.ok:
            raise UsageError(
                f"simulator {check.url}: {check.problem}. A named simulator is used or the run stops "
                "(never replaced by the mock); leave ASPEN_SIMULATOR_URL unset to start a mock instead"
            )
    services = {c.url: "the mock (simulator_mock)" if c.is_mock else "an Aspen service" for c in checks}
    shown = ", ".join(f"{one} ({kind})" for one, kind in services.items())
    console.print(f"Simulator: {shown}, external" + (f", TLS {tls}" if tls else ""))
    for check in checks:
        problem = timeout_problem(settings.simulator_timeout_s, check.health)
        if problem:
            logger.warning(problem)
            console.print(f"[yellow]warning:[/] {escape(problem)}")
    return {"url": settings.aspen_simulator_url, "source": "external", "services": services, "tls": tls}


def _start_mock(
    settings: Settings, stack: ExitStack, output_dir: Path, console: Console
) -> tuple[Settings, dict[str, Any]]:
    from aspen_rl.subprocesses import mock_simulator

    service = stack.enter_context(
        mock_simulator(
            output_dir / "simulator_results",
            log_path=output_dir / "simulator.log",
            client_timeout_s=settings.simulator_timeout_s,
        )
    )
    settings = settings.model_copy(update={"aspen_simulator_url": service.url})
    console.print(f"Simulator: started the mock for this run at {service.url} (no ASPEN_SIMULATOR_URL named)")
    info = {
        "url": service.url,
        "source": "started mock",
        "services": {service.url: "the mock (simulator_mock)"},
        "schemas": "packaged",
    }
    return settings, info


def record_simulator_shares(info: dict[str, Any], output_dir: Path, console: Console) -> None:
    """Each simulator service's share of the run's simulations (from the pool's dispatch log), into the
    summary's ``simulator`` record; printed when the run used more than one service."""
    from aspen_rl.simulator.pool import pool_report

    services = info.get("services") or {}
    if not services:
        return
    info["runs_per_service"] = shares = pool_report(output_dir / DISPATCH_LOG, list(services))
    if len(shares) > 1:
        parts = []
        for url, share in shares.items():
            out = f", out {share['unreachable']}x" if share["unreachable"] else ""
            parts.append(f"{url} {share['runs']} ({share['share']:.0%}{out})")
        console.print(f"Simulations per service: {', '.join(parts)}")


def tls_note(settings: Settings) -> str | None:
    """How the simulator's certificate is checked, for an https URL (None for http)."""
    if not any(url.startswith("https://") for url in settings.simulator_urls):
        return None
    if not settings.simulator_verify_tls:
        return "certificate not verified (simulator_verify_tls false)"
    if settings.simulator_ca_bundle is not None:
        return f"verified against the CA bundle {settings.simulator_ca_bundle}"
    return "verified against the default CA bundle"

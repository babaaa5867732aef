"""Bounded load benchmark of the simulator mock: N concurrent clients over the shipped reference configs.

Starts ``python -m simulator_mock`` on a free loopback port (its results in a scratch folder), then,
for each concurrency level, runs closed-loop clients that POST the reference configs of
``data/*.jsonl`` round-robin for ``--duration`` seconds while a probe measures ``GET /health``
latency every 0.25 s. Prints throughput, p50/p99 latency, errors by kind (transport errors, HTTP 5xx,
unexpected simulation failures), /health latency under load, and the service's RSS (with its
workers) before and after. Everything started is stopped at the end.

    python benchmarks/load_bench.py [--clients 16 64] [--duration 30] [--workers 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

import httpx
import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run from anywhere, installed or not

from aspen_rl.subprocesses import free_port  # noqa: E402


def example_configs() -> list[tuple[str, bytes]]:
    """``(name, body)`` of the mock's packaged example flowsheets (always in the dialect it speaks)."""
    from simulator_mock.examples import EXAMPLES

    return [(name, json.dumps(build()).encode()) for name, build in EXAMPLES.items()]


def reference_configs() -> list[tuple[str, bytes]]:
    """``(task_id, body)`` of every shipped task that has a reference config."""
    configs = []
    for path in sorted((REPO / "data").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                task = json.loads(line)
                if task.get("reference_config"):
                    configs.append((task["task_id"], json.dumps(task["reference_config"]).encode()))
    return configs


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, MiB."""
    try:
        root = psutil.Process(pid)
        total = root.memory_info().rss
        for child in root.children(recursive=True):
            with suppress(psutil.Error):
                total += child.memory_info().rss
        return total / 2**20
    except psutil.Error:
        return float("nan")


async def one_level(url: str, configs: list[tuple[str, bytes]], clients: int, duration: float) -> dict:
    """Closed-loop load with ``clients`` concurrent clients for ``duration`` seconds."""
    latencies: list[float] = []
    errors: dict[str, int] = {}
    failures: dict[str, int] = {}
    health_ms: list[float] = []
    stop_at = time.perf_counter() + duration
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)

    async with httpx.AsyncClient(base_url=url, timeout=120.0, limits=limits) as http:

        async def client(index: int) -> None:
            i = index
            while time.perf_counter() < stop_at:
                task_id, body = configs[i % len(configs)]
                i += 1
                started = time.perf_counter()
                try:
                    response = await http.post(
                        "/run-aspen-simulation", content=body, headers={"content-type": "application/json"}
                    )
                except httpx.HTTPError as exc:
                    errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                    continue
                latencies.append(time.perf_counter() - started)
                if response.status_code >= 500:
                    errors[f"HTTP {response.status_code}"] = errors.get(f"HTTP {response.status_code}", 0) + 1
                elif response.json().get("success") is not True:  # a reference config must succeed
                    failures[task_id] = failures.get(task_id, 0) + 1

        async def probe() -> None:
            while time.perf_counter() < stop_at:
                started = time.perf_counter()
                try:
                    await http.get("/health", timeout=10.0)
                    health_ms.append((time.perf_counter() - started) * 1000)
                except httpx.HTTPError:
                    errors["health"] = errors.get("health", 0) + 1
                await asyncio.sleep(0.25)

        started = time.perf_counter()
        await asyncio.gather(probe(), *(client(i) for i in range(clients)))
        elapsed = time.perf_counter() - started
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "requests": len(latencies),
        "throughput_rps": round(len(latencies) / elapsed, 2),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 1),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
        "errors": errors,
        "failed_reference_runs": failures,
        "health_p50_ms": round(percentile(health_ms, 0.50), 1),
        "health_p99_ms": round(percentile(health_ms, 0.99), 1),
        "health_max_ms": round(max(health_ms, default=float("nan")), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per level (default 30)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--configs",
        choices=("data", "examples"),
        default="data",
        help="the shipped tasks' reference configs (data/*.jsonl) or the mock's packaged examples",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    configs = reference_configs() if args.configs == "data" else example_configs()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with tempfile.TemporaryDirectory() as scratch:
        argv = [sys.executable, "-m", "simulator_mock", "--port", str(port), "--workers", str(args.workers)]
        argv += ["--results-dir", str(Path(scratch) / "results")]
        service = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(url + "/health", timeout=1).json().get("warm"):
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or service.poll() is not None:
                    raise SystemExit("the mock did not become ready")
                time.sleep(0.2)
            # Each config once, alone: how long it takes and whether the mock accepts it.
            solo: dict[str, Any] = {}
            for name, body in configs:
                started = time.perf_counter()
                answer = httpx.post(
                    url + "/run-aspen-simulation",
                    content=body,
                    headers={"content-type": "application/json"},
                    timeout=120,
                ).json()
                ok = answer.get("success") is True
                solo[name] = {
                    "ms": round((time.perf_counter() - started) * 1000, 1),
                    "ok": ok,
                    **({} if ok else {"error": str(answer.get("error_message", answer))[:120]}),
                }
            print(json.dumps({"solo": solo}), flush=True)
            report: dict[str, Any] = {
                "source": args.configs,
                "solo": solo,
                "configs": len(configs),
                "workers": args.workers,
                "cpu_count": os.cpu_count(),
                "rss_before_mb": round(rss_mb(service.pid), 1),
                "levels": [],
            }
            for clients in args.clients:
                level = asyncio.run(one_level(url, configs, clients, args.duration))
                level["rss_after_mb"] = round(rss_mb(service.pid), 1)
                level["load_avg_1m"] = round(os.getloadavg()[0], 2)
                report["levels"].append(level)
                print(json.dumps(level), flush=True)
            health = httpx.get(url + "/health", timeout=5).json()
            report["results_dir_bytes"] = health.get("results_dir_bytes")
            report["results_dir_runs"] = health.get("results_dir_runs")
            report["rss_after_mb"] = round(rss_mb(service.pid), 1)
        finally:
            service.send_signal(signal.SIGTERM)
            try:
                service.wait(timeout=15)
            except subprocess.TimeoutExpired:
                service.kill()
    print(json.dumps({k: v for k, v in report.items() if k != "levels"}))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

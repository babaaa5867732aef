"""Benchmark of the simulator pool: rollouts per second with 1, 2 and 4 services at a real Aspen's pace.

Starts N mocks (``python -m simulator_mock --workers 0 --run-delay 1``: each run answered at least 1 s after
it was sent, as a real Aspen takes seconds), and drives them through ``SimulatorClient.from_settings`` with
``simulator_max_runs_per_service=1`` (one run at a time per service, as a Windows box runs Aspen). Each
"rollout" is what the agent's tools do: ``get_schema``, ``run_simulation``, ``get_result``; ``--concurrency``
rollouts are kept in flight (the runners of a training run). Prints rollouts/s per pool size with the load.

    python benchmarks/pool_bench.py [--sizes 1 2 4] [--rollouts 16] [--concurrency 8] [--delay 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run from anywhere, installed or not

from aspen_rl.settings import Settings  # noqa: E402
from aspen_rl.simulator import SimulatorClient  # noqa: E402
from simulator_mock.examples import heater  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_mocks(count: int, delay_s: float, folder: Path) -> list[tuple[subprocess.Popen[bytes], str]]:
    mocks = []
    for index in range(count):
        port = free_port()
        argv = [sys.executable, "-m", "simulator_mock", "--port", str(port), "--workers", "0"]
        argv += ["--run-delay", str(delay_s), "--results-dir", str(folder / f"mock{index}")]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        mocks.append((proc, f"http://127.0.0.1:{port}"))
    for _, url in mocks:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"mock {url} did not start")
            time.sleep(0.1)
    return mocks


async def drive(urls: list[str], rollouts: int, concurrency: int) -> float:
    """Rollouts/s of ``rollouts`` schema-run-result rounds, ``concurrency`` in flight."""
    settings = Settings(_env_file=None, aspen_simulator_url=",".join(urls), simulator_max_runs_per_service=1)
    gate = asyncio.Semaphore(concurrency)
    config = heater()

    async def one() -> None:
        async with gate, SimulatorClient.from_settings(settings) as client:
            await client.get_schema(["base", "Heater"])
            answer = await client.run_simulation(config)
            assert answer["success"] is True, answer
            await client.get_result(answer["result_file_path"])

    async with SimulatorClient.from_settings(
        settings
    ) as warm:  # first engine use per mock: property packages
        for _ in urls:
            await warm.run_simulation(config)
    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(rollouts)))
    return rollouts / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds added to each run by the mocks")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            mocks = start_mocks(size, args.delay, Path(tmp) / f"pool{size}")
            try:
                rate = asyncio.run(drive([u for _, u in mocks], args.rollouts, args.concurrency))
            finally:
                for proc, _ in mocks:
                    proc.terminate()
                    proc.wait(timeout=20)
            ideal = size / args.delay
            print(
                f"{size} service(s), 1 run at a time, +{args.delay:g} s per run: {rate:.2f} rollouts/s "
                f"(bound {ideal:.2f}/s; load {os.getloadavg()[0]:.2f})"
            )


if __name__ == "__main__":
    main()

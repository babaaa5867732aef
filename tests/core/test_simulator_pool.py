"""The simulator pool: runs spread over live services within per-service limits, results read back from
the service that wrote them, a dead service taken out, starts on one service never within one second."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from pathlib import Path

import pytest
from _support import LiveMock, in_process_transport

from aspen_rl.settings import Settings
from aspen_rl.simulator import SimulatorClient, SimulatorUnavailable
from aspen_rl.simulator.pool import START_SPACING_S, RunSlots, SimulatorPool, pool_report
from simulator_mock import examples


def test_run_slots_are_exclusive_across_open_files(tmp_path: Path) -> None:
    """flock locks conflict between open files, so forked runners (and this process) share the limit."""
    one = RunSlots("https://aspen-a:8002", 1, tmp_path)
    other = RunSlots("https://aspen-a:8002", 1, tmp_path)  # another process's view of the same service
    held = one.try_acquire()
    assert held is not None and other.try_acquire() is None
    RunSlots.release(held)
    again = other.try_acquire()
    assert again is not None
    RunSlots.release(again)
    assert RunSlots("https://aspen-a:8002", 0, tmp_path).try_acquire() == -1  # no limit


async def test_starts_on_one_limited_service_are_never_within_one_second(tmp_path: Path) -> None:
    """The real service names a run's files by the second: two starts in one second would share them."""
    slots = RunSlots("https://aspen-b:8002", 1, tmp_path)
    starts = []
    for _ in range(3):
        await slots.spaced_start()
        starts.append(time.time())
    assert all(b - a >= START_SPACING_S - 0.01 for a, b in itertools.pairwise(starts))


def test_several_urls_or_a_file_of_them_make_a_pool(tmp_path: Path) -> None:
    listed = tmp_path / "simulators.txt"
    listed.write_text(
        "# the lab's Aspen boxes\nhttps://a:8002\nhttps://b:8002/  # second\n\n", encoding="utf-8"
    )
    assert Settings(_env_file=None, aspen_simulator_url=str(listed)).simulator_urls == [
        "https://a:8002",
        "https://b:8002",
    ]
    many = Settings(_env_file=None, aspen_simulator_url="http://a:1, http://b:2 http://a:1")
    assert many.simulator_urls == ["http://a:1", "http://b:2"]
    with pytest.raises(ValueError, match="must start with http"):
        Settings(_env_file=None, aspen_simulator_url="http://a:1,b:2")


async def test_three_mocks_one_killed_mid_run(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"m{i}").mkdir()
    mocks = [LiveMock(tmp_path / f"m{i}", "--workers", "0", "--run-delay", "0.3") for i in range(3)]

    try:
        for mock in mocks:
            mock.wait_healthy()
        urls = [m.url for m in mocks]
        log = tmp_path / "dispatch.jsonl"
        settings = Settings(
            _env_file=None,
            aspen_simulator_url=",".join(urls),
            simulator_max_runs_per_service=1,
            simulator_dispatch_log=log,
            simulator_retries=2,
            simulator_backoff_s=0.05,
        )

        async def rollout(index: int) -> tuple[str, str] | str:
            async with SimulatorClient.from_settings(settings) as client:
                try:
                    answer = await client.run_simulation(examples.heater())
                except SimulatorUnavailable as exc:  # sent to the service as it died: infrastructure
                    return f"unavailable: {exc.cause}"
                assert answer["success"] is True, answer
                try:  # from the service that wrote it: a run the killed one finished is read from it or lost
                    workbook = await client.get_result(answer["result_file_path"])
                except SimulatorUnavailable as exc:
                    return f"read unavailable: {exc.cause}: {answer['result_file_path']}"
                assert workbook["status"] == "success"
                return answer["result_file_path"], workbook["file_info"]["file_path"]

        async def kill_one() -> None:
            await asyncio.sleep(0.5)  # runs are in flight by now (each takes >= 0.3 s)
            await asyncio.to_thread(mocks[1].kill)

        outcomes = [await rollout(i) for i in range(3)]  # warm: one on each
        *late, _ = await asyncio.gather(*(rollout(i) for i in range(3, 12)), kill_one())
        outcomes += late
    finally:
        for mock in mocks:
            mock.kill()
    done = [o for o in outcomes if isinstance(o, tuple)]
    lost = [o for o in outcomes if isinstance(o, str)]
    # Only the killed service's work is lost: the run in flight on it (one at a time) and the read of a run
    # it had finished just before (its workbook lives there); every other rollout finishes.
    assert len(done) >= 10 and len(lost) <= 2, outcomes
    assert len([o for o in lost if o.startswith("unavailable")]) <= 1, outcomes
    assert all(str(tmp_path / "m1") in o for o in lost if o.startswith("read unavailable")), outcomes
    assert all(path == read for path, read in done)
    report = pool_report(log, urls)
    read_lost = [o for o in lost if o.startswith("read unavailable")]  # it ran, then its service died
    assert sum(r["runs"] for r in report.values()) == len(done) + len(read_lost)
    assert report[urls[0]]["runs"] >= 4 and report[urls[2]]["runs"] >= 4
    assert report[urls[1]]["unreachable"] >= 1  # taken out after the kill
    owners = {url: sum(1 for p, _ in done if str(tmp_path / f"m{i}") in p) for i, url in enumerate(urls)}
    assert owners[urls[0]] + owners[urls[2]] >= 8
    events = [json.loads(line) for line in log.read_text().splitlines()]
    killed_at = next(e["t"] for e in events if e["url"] == urls[1] and e["event"] == "unreachable")
    assert not [e for e in events if e["url"] == urls[1] and e["event"] == "run" and e["t"] > killed_at]


async def test_an_in_process_transport_bypasses_the_pool(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, aspen_simulator_url="http://simulator-mock.local")
    async with SimulatorClient.from_settings(settings, transport=in_process_transport(tmp_path)) as client:
        assert not isinstance(client._http._transport, SimulatorPool)
        assert (await client.health())["status"] == "ok"

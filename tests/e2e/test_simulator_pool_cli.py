"""A dev run over a pool of three simulator services, one of them killed mid-run.

Every rollout is recorded; a rollout that lost its simulation or its results with the dead service is an
infrastructure error (left out of the scores), never the agent's scored failure; the other services take
the rest; summary.json shows each service's share.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _support import LiveMock, offline_env
from _support.cli import wait_for_rollouts

from aspen_rl.reporting import load_records

pytestmark = pytest.mark.slow

INFRASTRUCTURE = ("SimulatorUnavailable", "SimulatorHTTPError")


def test_three_mocks_one_killed_mid_run(tmp_path: Path) -> None:
    folders = [tmp_path / f"mock{i}" for i in range(3)]
    for folder in folders:
        folder.mkdir()
    mocks = [LiveMock(folder, "--workers", "0", "--run-delay", "0.5") for folder in folders]
    output_dir = tmp_path / "run"
    try:
        for mock in mocks:
            mock.wait_healthy()
        urls = [m.url for m in mocks]
        env = offline_env() | {
            "ASPEN_SIMULATOR_URL": ",".join(urls),
            "ASPEN_RL_SIMULATOR_MAX_RUNS_PER_SERVICE": "1",
        }
        cmd = [sys.executable, "-m", "aspen_rl.train", "--output-dir", str(output_dir), "--limit", "3"]
        cmd += ["--repeats", "6", "--n-runners", "2", "--error-rate", "0", "--seed", "0"]
        proc = subprocess.Popen(
            cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        wait_for_rollouts(proc, output_dir, 4, timeout_s=180)
        mocks[1].kill()  # dies with rollouts still queued (and perhaps one of its runs in flight)
        _, stderr = proc.communicate(timeout=300)
    finally:
        for mock in mocks:
            mock.kill()
    assert proc.returncode == 0, stderr[-4000:]
    records = load_records(output_dir / "rollouts.jsonl")
    assert len(records) == 18  # every rollout recorded
    for record in records:
        failed_calls = [c for c in record.tool_calls if not c.ok]
        if record.status == "ok":  # scored: no call may have failed because of the dead service
            assert not any(k in (c.error or "") for c in failed_calls for k in INFRASTRUCTURE), (
                record.tool_calls
            )
        else:
            assert any(k in (record.error or "") for k in INFRASTRUCTURE), record.error
    ok = [r for r in records if r.status == "ok"]
    assert len(ok) >= 16
    assert all(any(c.name == "get_result" and c.ok for c in r.tool_calls) for r in ok)
    summary = json.loads((output_dir / "summary.json").read_text())
    shares = summary["simulator"]["runs_per_service"]
    assert set(shares) == set(urls)
    assert shares[urls[0]]["runs"] > 0 and shares[urls[2]]["runs"] > 0
    assert shares[urls[1]]["unreachable"] >= 1
    assert sum(s["runs"] for s in shares.values()) >= len(ok)
    assert summary["splits"]["train"]["all"]["errors"] == len(records) - len(ok)
    assert "Simulations per service:" in stderr

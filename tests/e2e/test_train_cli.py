"""End to end: ``python -m aspen_rl.train`` offline (scripted policy + auto-started mock simulator)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest
from _support import free_port, offline_env
from _support.cli import wait_for_rollouts

from aspen_rl.failures import FailureKind
from aspen_rl.reporting import load_records
from aspen_rl.subprocesses import mock_simulator, scripted_policy
from aspen_rl.tasks import load_split
from aspen_rl.tasks.datasets import save_tasks

pytestmark = pytest.mark.slow
DIMENSIONS = ("total", "completion", "tool_efficiency", "response_quality")


def test_dev_run_with_two_runners_offline(run_cli) -> None:
    run = run_cli("--mode", "dev", "--n-runners", "2", "--seed", "0")
    records, summary = run.records, run.summary
    train_ids = {t.task_id for t in load_split("train")}
    assert {r.task_id for r in records} == train_ids
    assert len(records) == len(train_ids) == summary["rollouts"]
    assert all(r.status == "ok" for r in records), [r.error for r in records if r.error]
    for r in records:
        for d in DIMENSIONS:
            assert 0.0 <= getattr(r.reward, d) <= 1.0
    # The scripted policy's seeded mistakes spread the rewards.
    assert len({round(r.reward.total, 6) for r in records}) >= 2
    # Per-dimension means in summary.json are those of the recorded rollouts.
    for tier, stats in summary["splits"]["train"].items():
        chosen = [r for r in records if tier == "all" or r.difficulty == tier]
        assert stats["count"] == len(chosen)
        for d in DIMENSIONS:
            assert stats[d]["mean"] == pytest.approx(fmean(getattr(r.reward, d) for r in chosen))
    assert (run.output_dir / "reward_distribution.png").stat().st_size > 5000
    log = (run.output_dir / "training.log").read_text(encoding="utf-8")
    assert "OFFLINE SCRIPTED POLICY" in log
    # the console and summary.json say which reward scored the run
    assert summary["reward_fn"] == "aspen_rl.reward:AspenReward"
    assert summary["reward_weights"] == {"completion": 0.4, "tool_efficiency": 0.3, "response_quality": 0.3}
    console = " ".join((run.proc.stdout + run.proc.stderr).split())
    reward_line = "Reward: aspen_rl.reward:AspenReward (built-in); weights completion 0.4, tool efficiency"
    assert reward_line in console
    # No simulator named: the run started its own mock, said so and recorded it.
    assert run.summary["simulator"]["source"] == "started mock"
    assert f"started the mock for this run at {run.summary['simulator']['url']}" in run.proc.stderr
    # Every rollout really went through the tools and the simulator.
    assert all(any(c.name == "run_simulation" and c.ok for c in r.tool_calls) for r in records)


def test_custom_task_file_is_run_and_reported(run_cli, tmp_path: Path) -> None:
    shipped = load_split("train")[0]
    task = shipped.model_copy(update={"task_id": "my-plant-heater", "split": None})
    custom = tmp_path / "my_tasks.jsonl"
    custom.write_text(task.model_dump_json() + "\n", encoding="utf-8")
    run = run_cli("--limit", "1", "--tasks", str(custom), "--error-rate", "0")
    records = {r.task_id: r for r in run.records}
    assert set(records) == {shipped.task_id, "my-plant-heater"}
    assert records["my-plant-heater"].split == "custom"
    assert run.summary["splits"]["custom"]["all"]["count"] == 1
    # The same reference solution with no injected mistake scores the same as the shipped task.
    assert records["my-plant-heater"].reward.total == pytest.approx(records[shipped.task_id].reward.total)


def test_yaml_weight_swap_changes_totals_as_computed_by_hand(run_cli, tmp_path: Path) -> None:
    config = tmp_path / "weights.yaml"
    config.write_text("reward:\n  completion: 0.2\n  tool_efficiency: 0.5\n  response_quality: 0.3\n")
    run = run_cli("--limit", "4", "--config", str(config), "--error-rate", "0.5", "--seed", "3")
    assert len(run.records) == 4
    for r in run.records:
        by_hand = 0.2 * r.reward.completion + 0.5 * r.reward.tool_efficiency + 0.3 * r.reward.response_quality
        assert r.reward.total == pytest.approx(by_hand, abs=1e-9)


def _stop_mid_run(service: Any, cmd: list[str], output_dir: Path, cwd: Path) -> tuple[int, str]:
    """Run the CLI; stop ``service`` once two rollouts are recorded; return its exit code and stderr."""
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=offline_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    wait_for_rollouts(proc, output_dir, 2, timeout_s=120)
    service.stop()  # the service dies with rollouts still queued
    _, stderr = proc.communicate(timeout=180)  # no runner may hang
    return proc.returncode, stderr


def _assert_failed_by_infrastructure(output_dir: Path, stderr: str, kinds: set[FailureKind]) -> None:
    records = load_records(output_dir / "rollouts.jsonl")
    assert len(records) == 12
    failed = [r for r in records if r.status == "error"]
    assert len(failed) > 0.2 * len(records), "too few rollouts met the stopped service"
    for r in failed:
        assert r.reward.total == 0.0
        assert r.failure in kinds and r.infrastructure_failed, (r.failure, r.error)
    summary = json.loads((output_dir / "summary.json").read_text())
    assert summary["status"] == "failed" and "infrastructure failures" in summary["failure"]
    assert summary["infrastructure_failures"] == len(failed)
    train = summary["splits"]["train"]["all"]
    assert (train["errors"], train["infrastructure_failures"]) == (len(failed), len(failed))
    scored = [r.reward.total for r in records if not r.infrastructure_failed]
    assert train["total"]["mean"] == pytest.approx(fmean(scored) if scored else 0.0, abs=1e-5)
    assert "infrastructure failures" in stderr


def test_simulator_stopped_mid_run_fails_the_run_as_infrastructure(tmp_path: Path) -> None:
    output_dir = tmp_path / "run"
    with mock_simulator(tmp_path / "results") as simulator:
        cmd = [sys.executable, "-m", "aspen_rl.train", "--output-dir", str(output_dir), "--limit", "3"]
        cmd += ["--repeats", "4", "--n-runners", "2", "--simulator-url", simulator.url, "--error-rate", "0"]
        code, stderr = _stop_mid_run(simulator, cmd, output_dir, tmp_path)
    assert code == 1, stderr[-4000:]
    _assert_failed_by_infrastructure(
        output_dir, stderr, {FailureKind.UNREACHABLE, FailureKind.SERVER_ERROR, FailureKind.CRASHED}
    )


def test_policy_endpoint_dying_mid_run_fails_the_run_as_infrastructure(tmp_path: Path) -> None:
    output_dir = tmp_path / "run"
    task_file = tmp_path / "tasks.jsonl"
    save_tasks(load_split("train")[:3], task_file)
    with scripted_policy([task_file], error_rate=0.0, seed=0) as policy:
        cmd = [sys.executable, "-m", "aspen_rl.train", "--output-dir", str(output_dir), "--limit", "3"]
        cmd += ["--repeats", "4", "--n-runners", "2", "--api-url", policy.url + "/v1", "--model", "scripted"]
        code, stderr = _stop_mid_run(policy, cmd, output_dir, tmp_path)
    assert code == 1, stderr[-4000:]  # not status complete, exit 0
    _assert_failed_by_infrastructure(output_dir, stderr, {FailureKind.MODEL_UNAVAILABLE})


def test_unreachable_model_fails_every_rollout_with_exit_1_and_never_leaks_the_key(tmp_path: Path) -> None:
    secret = "sk-test-DO-NOT-LEAK-8d1f"
    dead_model = f"http://127.0.0.1:{free_port()}/v1"
    output_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "aspen_rl.train", "--output-dir", str(output_dir), "--limit", "1"]
    cmd += ["--api-url", dead_model, "--api-key", secret, "--n-runners", "1"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=offline_env(), capture_output=True, text=True, timeout=240)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "every rollout failed" in proc.stderr
    (record,) = load_records(output_dir / "rollouts.jsonl")
    assert record.status == "error" and record.reward.total == 0.0
    assert dead_model in (record.error or "")  # the error names the endpoint
    for path in output_dir.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(encoding="utf-8", errors="replace"), path
    assert secret not in proc.stdout + proc.stderr

"""Offline end to end: `train --algorithm prompt_opt`, then a run that loads its best prompt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aspen_rl.reporting import load_records
from aspen_rl.tasks import load_split

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def offline_env() -> dict[str, str]:
    """A fresh machine: no model endpoint, no key, no simulator named (the CLI starts the mock)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL", "ASPEN_"))}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def train(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "aspen_rl.train", *args]
    return subprocess.run(cmd, cwd=cwd, env=offline_env(), capture_output=True, text=True, timeout=timeout)


def test_prompt_search_offline_then_a_run_with_the_best_prompt(tmp_path: Path) -> None:
    config = tmp_path / "search.yaml"
    config.write_text(
        "algorithms:\n  prompt_opt:\n    rounds: 1\n    beam_width: 2\n    branch_factor: 2\n"
        "    train_batch_size: 3\n",
        encoding="utf-8",
    )
    run_dir = tmp_path / "runs" / "search"
    proc = train(
        tmp_path,
        *("--algorithm", "prompt_opt", "--use-validation", "--n-runners", "2", "--seed", "0"),
        *("--config", str(config), "--output-dir", str(run_dir)),
    )
    assert proc.returncode == 0, f"STDOUT:\n{proc.stdout}\nSTDERR:\n{proc.stderr[-4000:]}"

    prompts = tmp_path / "models" / "prompts" / "search"  # <models_dir>/prompts/<run>
    history = json.loads((prompts / "history.json").read_text(encoding="utf-8"))
    n_val = len(load_split("val"))
    assert history["status"] == "finished" and history["proposer"] == "offline edit operators"
    assert [r["round"] for r in history["rounds"]] == [0, 1]
    assert [r["rollouts"] for r in history["rounds"]] == [3 + n_val, 2 * (3 + n_val)]
    candidates = history["candidates"]
    assert len(candidates) == 3 and candidates[0]["origin"] == "seed"
    assert all(c["parent"] == "c0" and c["edit"].startswith("add_") for c in candidates[1:])
    for c in candidates:
        assert set(c["scores"]) == {"train", "val"}
        for split in ("train", "val"):
            scores = c["scores"][split]
            assert 0.0 <= scores["score"] <= 1.0 and scores["tiers"]
            assert sum(t["n"] for t in scores["tiers"].values()) == scores["n"]
        assert c["scores"]["val"]["n"] == n_val
    assert len(history["beam"]) == 2
    best = next(c for c in candidates if c["id"] == history["best"])
    best_file = prompts / "best_prompt.md"
    assert best_file.read_text(encoding="utf-8") == best["prompt"]
    assert (prompts / "best_score_per_round.png").stat().st_size > 5000

    # Every rollout of the search is in the run's report, tagged with its candidate and round.
    records = load_records(run_dir / "rollouts.jsonl")
    assert len(records) == sum(r["rollouts"] for r in history["rounds"])
    assert {r.extra["candidate"] for r in records} == {"c0", "c1", "c2"}
    assert all(r.status == "ok" for r in records), [r.error for r in records if r.error]
    assert "Final beam (chosen on validation)" in " ".join(proc.stderr.split())

    # A later run loads the saved prompt.
    reuse_dir = tmp_path / "runs" / "reuse"
    proc = train(tmp_path, "--prompt", str(best_file), "--limit", "1", "--output-dir", str(reuse_dir))
    assert proc.returncode == 0, f"STDOUT:\n{proc.stdout}\nSTDERR:\n{proc.stderr[-4000:]}"
    summary = json.loads((reuse_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["prompt"] == str(best_file) and summary["rollouts"] == 1
    log = (reuse_dir / "training.log").read_text(encoding="utf-8")
    assert f"system prompt from {best_file} ({len(best['prompt'].strip())} characters)" in log


def test_prompt_opt_loads_the_validation_split_without_the_flag() -> None:
    from aspen_rl.algorithms.registry import get_algorithm
    from aspen_rl.cli import build_parser
    from aspen_rl.run.inputs import load_task_splits
    from aspen_rl.settings import Settings
    from aspen_rl.tasks import load_split

    args = build_parser().parse_args(["--algorithm", "prompt_opt", "--limit", "1"])
    splits = load_task_splits(args, Settings(), get_algorithm("prompt_opt"))
    assert [t.task_id for t in splits.val] == [t.task_id for t in load_split("val")]
    assert len(splits.train) == 1 and splits.test == []
    baseline = load_task_splits(
        build_parser().parse_args(["--limit", "1"]), Settings(), get_algorithm("baseline")
    )
    assert baseline.val == []

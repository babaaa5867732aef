"""The shutdown path's parts, fast: signal handling, forked children, the interrupted summary."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from _support import repo_env

from aspen_rl.records import RolloutRecord
from aspen_rl.reporting import completion
from aspen_rl.run.summary import write_interrupted

SCRIPT = textwrap.dedent(
    """
    import multiprocessing, os, signal, sys, time
    from aspen_rl.lifecycle import Lifecycle, reap_descendants

    def child():
        time.sleep(60)

    multiprocessing.set_start_method("fork", force=True)
    life = Lifecycle()
    with life.installed():
        runner = multiprocessing.Process(target=child)
        runner.start()
        print(runner.pid, flush=True)
        time.sleep(0.5)  # a runner at work, past its start-up
        try:
            {send}
            time.sleep(30)
        except KeyboardInterrupt:
            runner.join(5)
            print(runner.exitcode, flush=True)
    reap_descendants()
    sys.exit(life.exit_code)
    """
)


def run_script(send: str) -> tuple[int, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT.replace("{send}", send)],
        env=repo_env(),
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,  # its own process group, as a shell job
    )
    return proc.returncode, proc.stdout.split()


def test_sigterm_stops_forked_children_and_exits_143() -> None:
    code, (_, child_exit) = run_script("os.kill(os.getpid(), signal.SIGTERM)")  # kill <pid>
    assert code == 143
    assert child_exit == "-15"  # ended by SIGTERM at its default action: no traceback


def test_sigint_exits_130_and_forked_children_ignore_the_group_sigint() -> None:
    code, (_, child_exit) = run_script("os.killpg(0, signal.SIGINT)")  # Ctrl-C: the whole group
    assert code == 130
    assert child_exit == "-15"  # the runner was terminated by the main process, not by the SIGINT


def record(split: str) -> RolloutRecord:
    return RolloutRecord(rollout_id="r", task_id="t", split=split, difficulty="easy", status="ok")


def test_completion_names_complete_incomplete_and_missing_splits() -> None:
    records = [record("train")] * 4 + [record("val")]
    result = completion(records, {"train": 4, "val": 3, "test": 2})
    assert result == {
        "requested_splits": ["train", "val", "test"],
        "completed_splits": ["train"],
        "incomplete_splits": {"val": {"expected": 3, "recorded": 1}},
        "missing_splits": ["test"],
    }
    # An algorithm that decides its own count: any record completes the split.
    assert completion(records, {"train": None, "test": None})["missing_splits"] == ["test"]


def test_interrupted_before_any_rollout_still_writes_a_summary(tmp_path: Path) -> None:
    class Stopped:
        signal_name = "SIGTERM"

    write_interrupted(None, tmp_path, {"algorithm": "baseline"}, {"train": 10}, Stopped())
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["signal"] == "SIGTERM"
    assert summary["rollouts"] == 0 and summary["missing_splits"] == ["train"]

"""SFT saves resumable checkpoints every N updates atomically, resumes from the last one to the same weights
as an uninterrupted run, and saves where it stands when a signal stops it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import torch

from aspen_rl.algorithms.sft.algorithm import run_sft
from aspen_rl.algorithms.sft.checkpoint import checkpoints, resolve_resume
from aspen_rl.algorithms.sft.config import SFTConfig
from aspen_rl.algorithms.sft.trainer import ResumeMismatch, SFTTrainer
from aspen_rl.llm.tiny_bytes import build_tiny_model
from aspen_rl.llm.types import TrajectoryRow

VOCAB = 64


def rows(n: int = 12) -> list[TrajectoryRow]:
    rng = random.Random(1)
    out = []
    for _ in range(n):
        ids = [rng.randrange(1, VOCAB) for _ in range(16)]
        mask = [0] * 8 + [1] * 8
        out.append(TrajectoryRow(ids, mask, [0.0] * 16))
    return out


def config(tmp_path: Path, **changes: object) -> SFTConfig:
    knobs: dict[str, object] = {
        "model": "tiny",
        "device": "cpu",
        "dtype": "float32",
        "lora": {"enabled": False},
        "epochs": 2,
        "batch_size": 4,
        "micro_batch_size": 2,
        "learning_rate": 1e-2,
        "warmup_steps": 2,
        "save_every": 2,
        "keep_checkpoints": 2,
        "log_every": 1,
        "output_dir": str(tmp_path),
        "run_name": "run",
        **changes,
    }
    return SFTConfig(**knobs)  # type: ignore[arg-type]


def trainer(cfg: SFTConfig) -> SFTTrainer:
    return SFTTrainer(cfg, model=build_tiny_model(VOCAB, seed=0), tokenizer=None)


def weights(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def test_an_interrupted_run_resumes_to_the_weights_of_an_uninterrupted_one(tmp_path: Path) -> None:
    data = rows()  # 12 rows, batch 4, 2 epochs: 6 updates
    whole = trainer(config(tmp_path / "whole"))
    whole.train(data)
    expected = weights(whole.model)

    cfg = config(tmp_path / "cut")
    first = trainer(cfg)
    calls = {"n": 0}
    real_loss = first.loss

    def stop_in_update_five(batch: list[TrajectoryRow]) -> tuple[torch.Tensor, int]:
        calls["n"] += 1
        if calls["n"] == 9:  # the first micro-batch of update 5 (two per update): a signal mid-update
            raise KeyboardInterrupt
        return real_loss(batch)

    first.loss = stop_in_update_five  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        first.train(data)
    assert first.updates == 4
    root = first.checkpoints_dir
    assert [n for n, _ in checkpoints(root)] == [2, 4]  # every 2 updates; the signal's save is step 4 again
    assert not [p for p in root.iterdir() if p.name.startswith(".")]  # no partial directory left

    second = trainer(cfg)
    history = second.train(data, resume=resolve_resume(tmp_path / "cut" / "run"))
    assert second.updates == 6
    assert [h["update"] for h in history] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    for name, tensor in weights(second.model).items():
        torch.testing.assert_close(tensor, expected[name], rtol=1e-5, atol=1e-6, msg=name)

    final = second.save()
    assert (final / "sft_state.json").is_file() and not root.exists()  # the run's checkpoints are done


def test_a_signal_before_the_first_periodic_save_still_saves(tmp_path: Path) -> None:
    cfg = config(tmp_path, save_every=0)
    run = trainer(cfg)
    real_loss = run.loss
    calls = {"n": 0}

    def stop(batch: list[TrajectoryRow]) -> tuple[torch.Tensor, int]:
        calls["n"] += 1
        if calls["n"] == 5:  # update 3
            raise KeyboardInterrupt
        return real_loss(batch)

    run.loss = stop  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        run.train(rows())
    assert [n for n, _ in checkpoints(run.checkpoints_dir)] == [2]


def test_a_checkpoint_of_other_data_is_refused(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    run = trainer(cfg)
    run.train(rows())
    step = checkpoints(run.checkpoints_dir)[-1][1]
    with pytest.raises(ResumeMismatch, match="rows"):
        trainer(cfg).train(rows(8), resume=step)
    with pytest.raises(FileNotFoundError, match="no SFT checkpoint"):
        run_sft(cfg, resume=tmp_path / "nothing-here")


def test_the_final_save_replaces_a_previous_one_whole(tmp_path: Path) -> None:
    cfg = config(tmp_path, save_every=0)
    run = trainer(cfg)
    run.train(rows())
    out = run.save()
    (out / "stale.txt").write_text("from an earlier run")
    assert run.save() == out
    assert not (out / "stale.txt").exists() and (out / "config.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # nothing partial or old left beside it


@pytest.mark.slow  # end-to-end, seconds: run by .ci/run, left out of -m "not slow"
def test_sigterm_of_an_sft_run_saves_it_and_resume_finishes_it(tmp_path: Path) -> None:
    import json
    import signal
    import subprocess
    import sys
    import time

    from _support import repo_env
    from _support.sft import tiny_sft_settings

    settings = tiny_sft_settings(tmp_path, epochs=60, save_every=1)
    yaml = tmp_path / "configs" / "sft.yaml"
    yaml.write_text(json.dumps(settings), encoding="utf-8")
    out = tmp_path / "out" / "warm"
    cmd = [sys.executable, "-m", "aspen_rl.train", "--algorithm", "sft", "--output-dir", str(out)]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=repo_env(), stderr=subprocess.PIPE, text=True)
    root = tmp_path / "out" / "warm-checkpoints"
    try:
        deadline = time.monotonic() + 180
        while not checkpoints(root):
            assert proc.poll() is None, (proc.stderr.read() if proc.stderr else "")[-3000:]
            assert time.monotonic() < deadline, "no checkpoint written in time"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, stderr[-3000:]
    saved = checkpoints(root)[-1]
    assert 0 < saved[0] < 60 and not out.exists()  # stopped part-way; no final model yet

    yaml.write_text(json.dumps({**settings, "save_every": 0}), encoding="utf-8")  # the knob may change
    resumed = [*cmd, "--resume", str(out)]
    done = subprocess.run(resumed, cwd=tmp_path, env=repo_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    state = json.loads((out / "sft_state.json").read_text())
    assert state["updates"] == 60 and not root.exists()


def test_training_in_two_calls_goes_on_with_the_shuffle_as_one_call_does(tmp_path: Path) -> None:
    """The learning benchmark trains a few epochs at a time (evaluating between): the second call draws the
    next epoch's batches, so its weights are those of one call over both epochs (not a replay of the first
    epoch's batches)."""
    one = trainer(config(tmp_path / "one", lr_schedule="constant", save_every=0))
    one.train(rows())
    two = trainer(config(tmp_path / "two", lr_schedule="constant", save_every=0, epochs=1))
    two.train(rows())
    two.config.epochs = 2
    two.train(rows())
    assert two.updates == one.updates == 6
    for name, value in weights(one.model).items():
        assert torch.allclose(weights(two.model)[name], value, atol=1e-6), name

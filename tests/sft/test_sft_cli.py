"""The SFT command: checks before any work (one ``error:`` line, exit 2, nothing written), ``--config``
honoured, a run folder with its log and per-update metrics, demonstrations kept out of the repo's data/."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _support.env import repo_env
from _support.ports import free_port

from aspen_rl.algorithms.sft.config import SFTConfig, load_sft_config
from aspen_rl.algorithms.sft.preflight import SFTPreflightError, check_model_source, preflight
from aspen_rl.tasks import load_tasks, save_tasks

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "data" / "generated"


def _sft(workdir: Path, config: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "aspen_rl.train", "--algorithm", "sft", "--config", str(config)]
    env = env or repo_env()
    return subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=300)


def test_a_hub_model_that_cannot_be_reached_is_refused_before_any_work(tmp_path: Path) -> None:
    config = tmp_path / "sft.yaml"
    out = tmp_path / "out"
    save_tasks(load_tasks(GENERATED / "train.jsonl")[:2], tmp_path / "tasks.jsonl")
    tasks = str(tmp_path / "tasks.jsonl")
    config.write_text(json.dumps({"model": "nobody/no-such-model", "tasks": tasks, "output_dir": str(out)}))
    env = repo_env(HF_HOME=str(tmp_path / "hf"), HF_ENDPOINT=f"http://127.0.0.1:{free_port()}")
    env.pop("HF_HUB_OFFLINE", None)
    proc = _sft(tmp_path, config, env)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "nobody/no-such-model" in errors[0]
    assert "Traceback" not in proc.stderr
    assert not out.exists()  # no run folder, no demonstrations recorded


def test_preflight_names_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(SFTPreflightError, match="not a folder"):
        check_model_source(str(tmp_path / "no-model"))
    check_model_source(str(tmp_path))  # an existing folder is accepted as is
    with pytest.raises(SFTPreflightError, match=r"missing\.jsonl"):
        preflight(SFTConfig(model="tiny", tasks=str(tmp_path / "missing.jsonl")))
    with pytest.raises(SFTPreflightError, match="no `tasks`"):
        preflight(SFTConfig(model="tiny", tasks=None, demonstrations=str(tmp_path / "d.jsonl")))


def test_the_tiny_cpu_recipe_builds_its_model_here() -> None:
    recipe = load_sft_config(ROOT / "configs" / "sft_tiny_cpu.yaml")
    assert recipe.model == "tiny" and recipe.device == "cpu" and not recipe.lora.enabled
    assert recipe.demonstrations is None and recipe.epoch_checkpoints
    preflight(recipe)  # nothing to download, the task file is shipped


@pytest.mark.slow  # records 2 demonstrations and trains a tiny model: ~20 s
def test_sft_honours_its_config_and_writes_its_run_folder_from_the_first_update(tmp_path: Path) -> None:
    save_tasks(load_tasks(GENERATED / "train.jsonl")[:2], tmp_path / "tasks.jsonl")
    out = tmp_path / "out"
    settings = {
        "model": "tiny",
        "tiny": {"vocab_size": 400, "hidden_size": 32, "num_layers": 1, "num_heads": 2},
        "device": "cpu",
        "dtype": "float32",
        "lora": {"enabled": False},
        "tasks": str(tmp_path / "tasks.jsonl"),
        "max_assistant_turns": 1,
        "epochs": 2,
        "batch_size": 1,
        "output_dir": str(out),
        "run_name": "mine",
        "epoch_checkpoints": True,
    }
    config = tmp_path / "my_sft.yaml"
    config.write_text(json.dumps(settings))
    proc = _sft(tmp_path, config)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = out / "mine-run"
    assert f"run folder {run}" in " ".join(proc.stderr.split())
    assert len((run / "demos.jsonl").read_text().splitlines()) == 2  # recorded into the run folder
    metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    # 2 demonstrations -> 2 first-turn rows, batch 1, 2 epochs: a line per update from the first
    assert [m["update"] for m in metrics] == [1.0, 2.0, 3.0, 4.0]
    assert [m["epoch"] for m in metrics] == [0.5, 1.0, 1.5, 2.0]
    assert (run / "epoch_1" / "config.json").is_file() and (run / "epoch_2" / "config.json").is_file()
    assert json.loads((run / "epoch_1" / "config.json").read_text())["hidden_size"] == 32  # the config's
    assert "sft update 4/4" in (run / "train.log").read_text()
    assert "sft updates: 4/4" in proc.stderr  # progress with count, rate and time left
    assert (out / "mine" / "model.safetensors").is_file()

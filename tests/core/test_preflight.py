"""Every argument, path, model and environment check answers before any service starts: an `error:` line,
exit 2, no traceback, and nothing started (how fast is benchmarks' business: the README states the timing)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _train(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("MODEL_API_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "aspen_rl.train", *args, "--output-dir", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--algorithm", "grpo", "--model", "models/absent-model"), "policy model directory not found"),
        (("--algorithm", "grpo", "--model", "{tmp}", "--resume", "{tmp}"), "not a GRPO checkpoint"),
        (("--algorithm", "grpo", "--repeats", "1"), "--repeats (G) must be >= 2"),
        (("--algorithm", "grpo", "--model", "Org/not-cached-model"), "not in the Hugging Face cache"),
        (("--config", "{tmp}/typo.yaml"), "unknown algorithm section(s) grop; known: baseline"),
        (("--config", "{tmp}/broken.yaml"), "invalid settings"),
        (("--algorithm", "prompt_opt", "--config", "{tmp}/beam.yaml"), "algorithms.prompt_opt settings"),
        (("--algorithm", "grpo", "--config", "{tmp}/compiled.yaml"), "decode 'compiled' needs a CUDA GPU"),
    ],
)
def test_bad_input_is_a_clear_error_before_any_service(
    tmp_path: Path, argv: tuple[str, ...], message: str
) -> None:
    (tmp_path / "typo.yaml").write_text("algorithms:\n  grop: {}\n", encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("reward: [unclosed\n", encoding="utf-8")
    (tmp_path / "beam.yaml").write_text("algorithms:\n  prompt_opt: {beam_widht: 3}\n", encoding="utf-8")
    compiled = "algorithms:\n  grpo: {decode: compiled, device: cpu}\n"
    (tmp_path / "compiled.yaml").write_text(compiled, encoding="utf-8")
    proc = _train(tmp_path, *(a.replace("{tmp}", str(tmp_path)) for a in argv))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert message in " ".join(proc.stderr.split()), proc.stderr
    assert "Traceback" not in proc.stderr and "started the mock" not in proc.stderr
    assert not (tmp_path / "run" / "simulator.log").exists()  # no service was started for the run


def test_an_api_key_without_a_url_is_warned(tmp_path: Path) -> None:
    proc = _train(tmp_path, "--api-key", "sk-test", "--algorithm", "grpo", "--repeats", "1")
    text = " ".join(proc.stderr.split())
    assert "an API key is set (--api-key / MODEL_API_KEY) but no model URL" in text
    assert "sk-test" not in proc.stderr


def test_a_model_url_without_a_key_is_warned(tmp_path: Path) -> None:
    proc = _train(tmp_path, "--api-url", "http://127.0.0.1:9/v1", "--algorithm", "grpo", "--repeats", "1")
    text = " ".join(proc.stderr.split())
    assert "a model URL is set (--api-url / MODEL_API_URL: http://127.0.0.1:9/v1) but no API key" in text
    assert text.count("warning:") == 1


def test_verl_without_its_extra_or_a_gpu_is_refused_at_once(tmp_path: Path) -> None:
    from aspen_rl.algorithms.verl.config import missing_verl_requirements

    if not missing_verl_requirements():
        pytest.skip("verl and a GPU are available here")
    proc = _train(tmp_path, "--algorithm", "verl")
    assert proc.returncode == 2 and "missing here:" in proc.stderr and "Traceback" not in proc.stderr
    assert "started the mock" not in proc.stderr


def test_a_resume_that_does_not_fit_the_config_is_refused_before_any_service(tmp_path: Path) -> None:
    from aspen_rl.algorithms.grpo.config import load_grpo_config
    from aspen_rl.llm.tiny_bytes import save_tiny_chat_model

    model = save_tiny_chat_model(tmp_path / "tiny")
    lora = load_grpo_config(model=str(model)).lora.enabled
    step = tmp_path / "ckpt" / "step_3"
    step.mkdir(parents=True)
    (step / "trainer_state.json").write_text(f'{{"lora": {str(not lora).lower()}, "config": {{}}}}')
    proc = _train(tmp_path, "--algorithm", "grpo", "--model", str(model), "--resume", str(step.parent))
    assert proc.returncode == 2, proc.stderr[-2000:]
    text = " ".join(proc.stderr.split())
    assert "step_3 holds" in text and f"lora.enabled={lora}" in text and "Traceback" not in text
    assert "started the mock" not in text


def test_a_reward_function_that_does_not_load_is_refused_before_any_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASPEN_RL_REWARD_FN", "my_rewardz.strict:score")  # a misspelt module
    proc = _train(tmp_path, "--mode", "dev")
    assert proc.returncode == 2, proc.stderr[-2000:]
    text = " ".join(proc.stderr.split())
    assert "error: reward function 'my_rewardz.strict:score'" in text and "ModuleNotFoundError" in text
    assert "Traceback" not in proc.stderr and not (tmp_path / "run" / "simulator.log").exists()


def test_limit_zero_without_task_files_is_refused(tmp_path: Path) -> None:
    proc = _train(tmp_path, "--limit", "0")
    assert proc.returncode == 2 and "no task to run" in proc.stderr and "Traceback" not in proc.stderr


def test_limit_zero_with_a_task_file_runs_only_that_file(tmp_path: Path) -> None:
    from aspen_rl.algorithms.registry import get_algorithm
    from aspen_rl.cli import build_parser
    from aspen_rl.run.inputs import load_task_splits
    from aspen_rl.settings import Settings
    from aspen_rl.tasks import load_split, save_tasks

    mine = load_split("train")[0].model_copy(update={"task_id": "mine-1", "split": None})
    save_tasks([mine], tmp_path / "mine.jsonl")
    args = build_parser().parse_args(["--tasks", str(tmp_path / "mine.jsonl"), "--limit", "0"])
    splits = load_task_splits(args, Settings(_env_file=None), get_algorithm("baseline"))
    assert [t.task_id for t in splits.all()] == ["mine-1"] and splits.train[0].split == "custom"


def test_temperature_zero_reaches_the_models_resource_for_a_greedy_evaluation(tmp_path: Path) -> None:
    from aspen_rl.cli import build_parser
    from aspen_rl.run.inputs import load_run_settings
    from aspen_rl.run.policy import llm_resource

    args = build_parser().parse_args(["--temperature", "0", "--config", str(tmp_path / "none.yaml")])
    (tmp_path / "none.yaml").write_text("{}\n", encoding="utf-8")
    settings = load_run_settings(args)
    assert settings.temperature == 0.0
    llm = llm_resource("http://127.0.0.1:9/v1", "m", proxy=False, temperature=settings.temperature)
    assert llm.sampling_parameters == {"temperature": 0.0}
    default = load_run_settings(build_parser().parse_args(["--config", str(tmp_path / "none.yaml")]))
    assert default.temperature == 0.7

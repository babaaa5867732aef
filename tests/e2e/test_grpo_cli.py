"""End to end: ``--algorithm grpo`` on CPU with a tiny local model, then ``--resume``; ``--algorithm verl``
failing fast here; the CLI's GRPO and VERL configuration from settings."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _support import free_port, offline_env
from rich.console import Console

from aspen_rl.algorithms.base import BuildContext
from aspen_rl.algorithms.grpo.algorithm import STEP_KEY
from aspen_rl.algorithms.registry import get_algorithm
from aspen_rl.algorithms.verl.algorithm import (
    TASK_KEY,
    VerlTaskAgent,
    local_llm_proxy,
    verl_config_from_settings,
    verl_rows,
)
from aspen_rl.algorithms.verl.config import VerlConfigError, missing_verl_requirements
from aspen_rl.cli import build_parser
from aspen_rl.errors import UsageError
from aspen_rl.llm.tiny_bytes import save_tiny_chat_model
from aspen_rl.reporting import RunReport, load_records
from aspen_rl.settings import Settings
from aspen_rl.tasks import load_split
from aspen_rl.tasks.splits import TaskSplits
from aspen_rl.train import build_algorithm, resolve_mode

SMOKE_CONFIG = """\
models_dir: {models}
algorithms:
  grpo:
    model: {model}
    device: cpu
    steps: 1
    tasks_per_step: 2
    max_response_tokens: 16
    lora: {{r: 4, alpha: 8}}
    tensorboard: false
"""


def train(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "aspen_rl.train", *args]
    return subprocess.run(
        cmd, cwd=tmp_path, env=env or offline_env(), capture_output=True, text=True, timeout=300
    )


def metrics(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_one_grpo_step_through_the_real_agent_then_resume(tmp_path: Path) -> None:
    model = save_tiny_chat_model(tmp_path / "tiny-chat")
    config = tmp_path / "settings.yaml"
    config.write_text(SMOKE_CONFIG.format(models=tmp_path / "models", model=model))
    common = ["--config", str(config), "--algorithm", "grpo", "--limit", "2"]  # --mode train is the default
    common += ["--repeats", "2", "--seed", "3"]

    first = train(tmp_path, *common, "--output-dir", str(tmp_path / "run1"))
    assert first.returncode == 0, first.stderr[-4000:]
    # 2 tasks x G=2 through AutoGen, the tools and the auto-started mock simulator, on the policy endpoint.
    records = load_records(tmp_path / "run1" / "rollouts.jsonl")
    assert len(records) == 4 and {r.task_id for r in records} == {t.task_id for t in load_split("train")[:2]}
    assert {r.extra[STEP_KEY] for r in records} == {1}
    (line,) = metrics(tmp_path / "run1")
    assert line["step"] == 1 and line["rollouts"] + line["failed_rollouts"] == 4
    assert line["llm_calls"] >= line["rollouts"] and line["total_tokens"] > 0  # token data was recorded
    assert line["policy_version"] == 1
    assert (tmp_path / "run1" / "reward_curve.png").is_file()
    step_1 = tmp_path / "models" / "grpo" / "run1" / "step_1"
    state = json.loads((step_1 / "trainer_state.json").read_text())
    assert state["global_step"] == 1 and state["lora"] is True
    assert (step_1 / "model" / "adapter_model.safetensors").is_file()
    assert "GRPO metrics per step" in first.stderr and str(step_1) in first.stderr.replace("\n", "")
    assert json.loads((tmp_path / "run1" / "summary.json").read_text())["algorithm"] == "grpo"

    # --resume on the run directory picks its latest step; steps=2 (by environment) trains step 2 only.
    env = offline_env() | {"ASPEN_RL_ALGORITHMS__GRPO__STEPS": "2"}
    resume = ["--resume", str(step_1.parent), "--output-dir", str(tmp_path / "run2")]
    second = train(tmp_path, *common, *resume, env=env)
    assert second.returncode == 0, second.stderr[-4000:]
    assert "steps 2..2" in second.stderr
    assert [m["step"] for m in metrics(tmp_path / "run2")] == [1, 2]  # step 1 replayed from the checkpoint
    assert {r.extra[STEP_KEY] for r in load_records(tmp_path / "run2" / "rollouts.jsonl")} == {2}
    state = json.loads((step_1.parent / "step_2" / "trainer_state.json").read_text())
    # An optimiser update happens in a step unless every group had zero reward variance (a random tiny
    # model often earns the same capped reward in every rollout): the count must follow the metrics.
    updates = sum(int(m["updates"]) for m in metrics(tmp_path / "run2"))
    assert state["global_step"] == 2 and state["optimizer_steps"] == updates


@pytest.mark.slow
@pytest.mark.skipif(not missing_verl_requirements(), reason="verl and a GPU are available here")
def test_verl_fails_fast_with_exit_code_2(tmp_path: Path) -> None:
    proc = train(tmp_path, "--mode", "train", "--algorithm", "verl", "--limit", "1")
    assert proc.returncode == 2, proc.stderr[-4000:]
    assert "--algorithm verl runs verl on Ray and needs CUDA GPUs" in proc.stderr
    assert "missing here:" in proc.stderr.replace("\n", " ") and "Traceback" not in proc.stderr


def build(tmp_path: Path, *argv: str, settings: Settings | None = None) -> Any:
    args = build_parser().parse_args(list(argv))
    report = RunReport(tmp_path / "run", Console(file=io.StringIO()))
    settings = settings or Settings(_env_file=None, models_dir=tmp_path / "models")
    return build_algorithm(BuildContext(args, settings, {}, report, TaskSplits(load_split("train")[:1]), 1))


def test_mode_defaults_to_train_for_grpo_and_dev_is_refused() -> None:
    parse = build_parser().parse_args
    assert resolve_mode(parse(["--algorithm", "grpo"]), get_algorithm("grpo")) == "train"
    assert resolve_mode(parse(["--algorithm", "baseline"]), get_algorithm("baseline")) == "dev"
    assert (
        resolve_mode(parse(["--algorithm", "prompt_opt", "--mode", "train"]), get_algorithm("prompt_opt"))
        == "train"
    )
    for algorithm in ("grpo", "verl"):
        with pytest.raises(UsageError, match=r"trains through Trainer\.fit: use --mode train"):
            resolve_mode(parse(["--algorithm", algorithm, "--mode", "dev"]), get_algorithm(algorithm))


def test_grpo_refuses_bad_inputs(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"--repeats \(G\) must be >= 2"):
        build(tmp_path, "--mode", "train", "--algorithm", "grpo", "--repeats", "1")
    with pytest.raises(UsageError, match="not a GRPO checkpoint"):
        build(tmp_path, "--mode", "train", "--algorithm", "grpo", "--resume", str(tmp_path))
    with pytest.raises(UsageError, match="policy model directory not found"):
        build(tmp_path, "--mode", "train", "--algorithm", "grpo", "--model", str(tmp_path / "absent"))
    bad = Settings(_env_file=None, algorithms={"grpo": {"group_size": 1}})
    with pytest.raises(UsageError, match="'group_size': Input should be greater than or equal to 2"):
        build(tmp_path, "--mode", "train", "--algorithm", "grpo", settings=bad)


def test_verl_config_from_settings(tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None,
        models_dir=tmp_path / "models",
        algorithms={"verl": {"overrides": {"trainer.nnodes": 2, "trainer.n_gpus_per_node": 8}}},
    )
    config = verl_config_from_settings(settings, model="/models/qwen", group_size=4, run_name="r1")
    assert config["actor_rollout_ref"]["model"]["path"] == "/models/qwen"
    assert config["actor_rollout_ref"]["rollout"]["n"] == 4
    assert (config["trainer"]["nnodes"], config["trainer"]["n_gpus_per_node"]) == (2, 8)
    assert config["trainer"]["default_local_dir"] == str(tmp_path / "models" / "verl" / "r1")
    assert config["algorithm"]["adv_estimator"] == "grpo"  # the rest from configs/verl.yaml
    with pytest.raises(VerlConfigError, match=r"unknown key\(s\) \['nnodes'\]"):
        verl_config_from_settings(Settings(_env_file=None, algorithms={"verl": {"nnodes": 2}}))
    with pytest.raises(VerlConfigError, match=r"rollout\.n"):
        verl_config_from_settings(Settings(_env_file=None), group_size=1)


async def test_verl_rows_carry_whole_tasks_to_the_agent() -> None:
    tasks = load_split("train")[:2]
    rows = verl_rows(tasks)
    assert [r["task_id"] for r in rows] == [t.task_id for t in tasks]
    seen = []

    class Probe(VerlTaskAgent):
        async def run_episode(self, task: Any, resources: Any, rollout: Any) -> Any:
            seen.append(task)
            raise RuntimeError("stop here")

    row = rows[1] | {"data_id": "d-1", "index": 0}  # keys verl adds
    with pytest.raises(RuntimeError, match="stop here"):
        await Probe(Settings(_env_file=None)).rollout_async(row, {}, None)
    assert seen == [tasks[1]] and TASK_KEY in row


@pytest.mark.slow
async def test_verl_llm_proxy_starts_on_loopback_and_wants_its_key() -> None:
    import httpx
    from agentlightning import InMemoryLightningStore
    from agentlightning.store.client_server import LightningStoreServer

    store = LightningStoreServer(InMemoryLightningStore(), host="127.0.0.1", port=free_port())
    await store.start()
    proxy, key = local_llm_proxy(free_port())
    proxy.set_store(store)
    # What VERL's daemon does once its vLLM servers are up (none here: the backend is unreachable).
    proxy.update_model_list(
        [
            {
                "model_name": "m",
                "litellm_params": {"model": "hosted_vllm/m", "api_base": "http://127.0.0.1:9/v1"},
            }
        ]
    )
    try:
        await proxy.restart()
        url = proxy.as_resource().get_base_url(None, None) + "/v1/chat/completions"
        assert url.startswith("http://127.0.0.1:")
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        async with httpx.AsyncClient(timeout=30) as client:
            answers = {
                name: await client.post(url, json=body, headers=headers)
                for name, headers in (
                    ("none", {}),
                    ("wrong", {"Authorization": "Bearer sk-wrong"}),
                    ("key", {"Authorization": f"Bearer {key}"}),
                )
            }
        # Only the key gets through to the (missing) backend; litellm answers the others 4xx/5xx itself.
        forwarded = {name: "hosted_vllm" in a.text.lower() for name, a in answers.items()}
        assert forwarded == {"none": False, "wrong": False, "key": True}
        assert all(a.status_code >= 400 for a in answers.values())
    finally:
        await proxy.stop()
        await store.stop()

"""Metrics sink (JSONL, optional TensorBoard, PNG curve) and the VERL config building (verl not needed)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.algorithms.grpo.metrics import MetricsSink
from aspen_rl.algorithms.verl.config import (
    VerlConfigError,
    VerlUnavailableError,
    build_verl_algorithm,
    load_verl_config,
    missing_verl_requirements,
    verl_overrides_from_grpo,
)


def test_metrics_jsonl_and_reward_curve(tmp_path: Path) -> None:
    sink = MetricsSink(tmp_path / "run", tensorboard=True)
    assert sink.tensorboard_enabled == (importlib.util.find_spec("tensorboard") is not None)
    for step in (1, 2, 3):
        sink.log(step, {"reward_mean": 0.1 * step, "loss": float("nan"), "note": "x"})
    sink.log(3, {"reward_mean": 0.5}, prefix="eval/")
    lines = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert lines[0] == {"step": 1, "reward_mean": 0.1, "loss": None, "note": "x"}
    assert lines[-1] == {"step": 3, "eval/reward_mean": 0.5}
    png = sink.plot_rewards()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    sink.close()


def test_verl_config_loads_and_validates() -> None:
    config = load_verl_config()
    assert config["algorithm"]["adv_estimator"] == "grpo"
    assert config["actor_rollout_ref"]["rollout"]["n"] >= 2
    assert config["agentlightning"]["trace_aggregator"]["level"] == "trajectory"
    changed = load_verl_config(overrides={"trainer.nnodes": 2, "actor_rollout_ref.model.path": "/m"})
    assert changed["trainer"]["nnodes"] == 2 and changed["actor_rollout_ref"]["model"]["path"] == "/m"
    with pytest.raises(VerlConfigError, match=r"rollout\.n"):
        load_verl_config(overrides={"actor_rollout_ref.rollout.n": 1})
    with pytest.raises(VerlConfigError, match="unknown section"):
        load_verl_config(overrides={"trainr.nnodes": 1})


def test_verl_config_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "verl.yaml"
    bad.write_text("trainer: [1\n")
    with pytest.raises(VerlConfigError, match="malformed YAML"):
        load_verl_config(bad)
    bad.write_text("trainer:\n  nnodes: 1\n")
    with pytest.raises(VerlConfigError, match=r"missing required key 'actor_rollout_ref\.model\.path'"):
        load_verl_config(bad)


def test_grpo_knobs_carry_over_to_verl() -> None:
    grpo = GRPOConfig(
        model="/models/qwen", group_size=4, scale_rewards="none", loss_aggregation="token_mean", beta=0.01
    )
    config = load_verl_config(overrides=verl_overrides_from_grpo(grpo))
    actor = config["actor_rollout_ref"]["actor"]
    assert config["actor_rollout_ref"]["model"]["path"] == "/models/qwen"
    assert config["actor_rollout_ref"]["rollout"]["n"] == 4
    assert (actor["clip_ratio_low"], actor["clip_ratio_high"]) == (0.2, 0.28)
    assert actor["loss_agg_mode"] == "token-mean" and actor["use_kl_loss"] and actor["kl_loss_coef"] == 0.01
    assert config["algorithm"]["norm_adv_by_std_in_grpo"] is False


@pytest.mark.skipif(not missing_verl_requirements(), reason="verl and a GPU are available here")
def test_building_verl_without_verl_fails_fast_with_the_install_hint() -> None:
    with pytest.raises(VerlUnavailableError, match=r"pip install 'aspen_rl\[verl\]'") as err:
        build_verl_algorithm(load_verl_config())
    assert "missing here" in str(err.value)

"""GRPOConfig: the YAML documents every default; bad files and keys fail with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from aspen_rl.algorithms.grpo.config import GRPOConfig, GRPOConfigError, load_grpo_config

REPO = Path(__file__).resolve().parents[2]


def test_yaml_matches_defaults_and_names_every_field() -> None:
    assert load_grpo_config() == GRPOConfig()
    documented = yaml.safe_load((REPO / "configs/grpo.yaml").read_text())
    assert set(documented) == set(GRPOConfig.model_fields)
    assert set(documented["lora"]) == set(GRPOConfig().lora.model_dump())
    for name, field in GRPOConfig.model_fields.items():
        assert field.description, f"{name} has no help text"


def test_defaults_follow_the_issue() -> None:
    cfg = GRPOConfig()
    assert (cfg.epsilon_low, cfg.epsilon_high, cfg.beta) == (0.2, 0.28, 0.0)
    assert cfg.loss_aggregation == "rollout_mean"
    assert cfg.scale_rewards == "std"


def test_overrides_merge_into_nested_sections(tmp_path: Path) -> None:
    cfg = load_grpo_config(group_size=4, lora={"r": 8}, checkpoint_dir=str(tmp_path), run_name="r1")
    assert cfg.group_size == 4
    assert cfg.lora.r == 8 and cfg.lora.alpha == 32
    assert cfg.checkpoint_path(3) == tmp_path / "r1" / "step_3"


def test_unknown_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "grpo.yaml"
    path.write_text("group_size: 4\ngroup_sizes: 8\nlora:\n  rank: 4\n")
    with pytest.raises(GRPOConfigError) as err:
        load_grpo_config(path)
    assert "unknown key 'group_sizes'" in str(err.value)
    assert "unknown key 'lora.rank'" in str(err.value)


def test_malformed_yaml_and_non_mapping(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("group_size: [4\n")
    with pytest.raises(GRPOConfigError, match="malformed YAML"):
        load_grpo_config(bad)
    listing = tmp_path / "list.yaml"
    listing.write_text("- 1\n- 2\n")
    with pytest.raises(GRPOConfigError, match="expected a mapping"):
        load_grpo_config(listing)
    with pytest.raises(FileNotFoundError):
        load_grpo_config(tmp_path / "absent.yaml")


def test_invalid_values_are_refused() -> None:
    with pytest.raises(GRPOConfigError, match="group_size"):
        load_grpo_config(None, group_size=1)
    with pytest.raises(GRPOConfigError, match="loss_aggregation"):
        load_grpo_config(None, loss_aggregation="mean")
    with pytest.raises(GRPOConfigError, match="run_name"):
        load_grpo_config(None, run_name="a/b")

"""Settings: source precedence, env names, YAML/env reward weights, secret handling."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from heater_case import outlet_temperature, run_and_read
from pydantic import ValidationError

from aspen_rl.reward import compute_reward
from aspen_rl.settings import load_settings
from aspen_rl.tasks import AspenTask
from aspen_rl.trace import RunTrace

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No inherited settings: empty working directory, no MODEL*/ASPEN_* variables."""
    for name in list(os.environ):
        if name.startswith(("ASPEN_RL_", "MODEL")) or name == "ASPEN_SIMULATOR_URL":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_precedence_cli_env_dotenv_yaml_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    yaml_file = write(
        tmp_path / "cfg.yaml",
        "model: yaml-model\nllm_timeout_s: 11\nsimulator_retries: 5\nmax_tool_iterations: 7\n",
    )
    dotenv = write(
        tmp_path / "my.env", "MODEL=dotenv-model\nASPEN_RL_LLM_TIMEOUT_S=22\nASPEN_RL_SIMULATOR_RETRIES=4\n"
    )
    monkeypatch.setenv("MODEL", "env-model")
    monkeypatch.setenv("ASPEN_RL_LLM_TIMEOUT_S", "33")

    s = load_settings(yaml_file, env_file=dotenv, model="cli-model", llm_retries=None)
    assert s.model == "cli-model"  # CLI > env
    assert s.llm_timeout_s == 33  # env > .env
    assert s.simulator_retries == 4  # .env > YAML
    assert s.max_tool_iterations == 7  # YAML > default
    assert s.rollout_timeout_s == 600  # default
    assert s.llm_retries == 1  # a None override (unset flag) does not mask lower sources

    assert load_settings(yaml_file, env_file=dotenv).model == "env-model"
    monkeypatch.delenv("MODEL")
    assert load_settings(yaml_file, env_file=dotenv).model == "dotenv-model"
    assert load_settings(yaml_file, env_file=None).model == "yaml-model"
    assert load_settings(env_file=None).model == "gpt-4o-mini"


def test_default_yaml_is_used_when_present(tmp_path: Path) -> None:
    write(tmp_path / "configs" / "default.yaml", "max_tool_iterations: 4\n")
    assert load_settings().max_tool_iterations == 4
    with pytest.raises(FileNotFoundError, match=r"missing\.yaml"):
        load_settings("missing.yaml")


def test_shipped_default_yaml_matches_code_defaults() -> None:
    shipped = load_settings(REPO / "configs" / "default.yaml", env_file=None)
    assert shipped.model_dump(exclude={"algorithms"}) == load_settings(env_file=None).model_dump(
        exclude={"algorithms"}
    )
    assert shipped.algorithms.baseline.repeats == 1


def test_env_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL", "qwen2.5-7b")
    monkeypatch.setenv("MODEL_API_URL", "http://127.0.0.1:9000/v1/")
    monkeypatch.setenv("ASPEN_SIMULATOR_URL", "https://aspen.example:8443")
    monkeypatch.setenv("ASPEN_RL_SIMULATOR_VERIFY_TLS", "false")
    monkeypatch.setenv("ASPEN_RL_ALGORITHMS__BASELINE__REPEATS", "3")
    s = load_settings(env_file=None)
    assert s.model == "qwen2.5-7b"
    assert s.model_api_url == "http://127.0.0.1:9000/v1"
    assert s.aspen_simulator_url == "https://aspen.example:8443"
    assert s.simulator_verify_tls is False
    assert s.algorithms.baseline.repeats == 3


def test_bad_values_name_the_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASPEN_SIMULATOR_URL", "localhost:8002")
    with pytest.raises(ValidationError, match="aspen_simulator_url must start with http"):
        load_settings(env_file=None)
    monkeypatch.delenv("ASPEN_SIMULATOR_URL")
    with pytest.raises(ValidationError, match="simulator_timeout_s"):
        load_settings(env_file=None, simulator_timeout_s=0)


def test_api_key_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL_API_KEY", "sk-very-secret")
    s = load_settings(env_file=None)
    assert s.model_api_key is not None
    assert s.model_api_key.get_secret_value() == "sk-very-secret"
    for text in (repr(s), str(s), s.model_dump_json(), str(s.redacted())):
        assert "sk-very-secret" not in text


# -- reward weights from configuration ----------------------------------------------------------

TASK = AspenTask(
    task_id="t",
    user_requirement="Heat FEED-1 to 80 C in H1 and report the PRO-1 temperature.",
    difficulty="easy",
    expected_output=[outlet_temperature("T", abs_tol=0.5)],
)
RESULT_PATH = "/srv/results/aspen_result_export_1.xlsx"
SUMMARY = {
    "row_count": 1,
    "column_count": 3,
    "column_names": ["Unnamed: 0", "Units", "PRO-1"],
    "data": [{"Unnamed: 0": "Temperature", "Units": "C", "PRO-1": 80.0}],
}
# No schema call: funnel 0.9 (every stage but schema's 0.1), so tool efficiency 0.9; completion 1 (the
# schema call is tool use, not work); response quality 1 (80.0 reported right; 42 chars on 2 lines).
NO_SCHEMA = RunTrace(
    calls=run_and_read(
        {"blocks": []},
        RESULT_PATH,
        {"status": "success", "file_info": {}, "data": {"Stream Summary": SUMMARY}},
    ),
    final_answer="Simulation done.\n- PRO-1 temperature: 80.0 C",
)


def test_reward_weights_from_yaml(tmp_path: Path) -> None:
    cfg = write(
        tmp_path / "w.yaml", "reward:\n  completion: 0.6\n  tool_efficiency: 0.2\n  response_quality: 0.2\n"
    )
    s = load_settings(cfg, env_file=None)
    # 0.6*1 + 0.2*0.9 + 0.2*1 = 0.98
    assert compute_reward(TASK, NO_SCHEMA, s.reward).total == pytest.approx(0.6 + 0.2 * 0.9 + 0.2)
    assert compute_reward(TASK, NO_SCHEMA, load_settings(env_file=None).reward).total == pytest.approx(0.97)


def test_reward_weights_from_env_override_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = write(
        tmp_path / "w.yaml", "reward:\n  completion: 0.6\n  tool_efficiency: 0.2\n  response_quality: 0.2\n"
    )
    monkeypatch.setenv("ASPEN_RL_REWARD__COMPLETION", "0.2")
    monkeypatch.setenv("ASPEN_RL_REWARD__TOOL_EFFICIENCY", "0.6")
    s = load_settings(cfg, env_file=None)
    # env completion/tool_efficiency merged over YAML's response_quality 0.2:
    # 0.2*1 + 0.6*0.9 + 0.2*1 = 0.94
    assert s.reward.model_dump() == {"completion": 0.2, "tool_efficiency": 0.6, "response_quality": 0.2}
    assert compute_reward(TASK, NO_SCHEMA, s.reward).total == pytest.approx(0.94)


def test_invalid_weights_in_config_are_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = write(tmp_path / "bad.yaml", "reward:\n  completion: 0.7\n")
    with pytest.raises(ValidationError, match=r"reward weights must sum to 1, got completion=0.7"):
        load_settings(cfg, env_file=None)
    monkeypatch.setenv("ASPEN_RL_REWARD__RESPONSE_QUALITY", "-0.1")
    with pytest.raises(ValidationError, match="response_quality must be a non-negative"):
        load_settings(env_file=None)


def test_shipped_env_example_loads() -> None:
    s = load_settings(REPO / "configs" / "default.yaml", env_file=REPO / ".env.example")
    assert (s.model, s.aspen_simulator_url, s.model_api_key) == ("gpt-4o-mini", "http://localhost:8002", None)


def test_malformed_yaml_and_unknown_keys_are_refused(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("reward: [1, 2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.yaml: malformed YAML"):
        load_settings(broken, env_file=None)
    typo = tmp_path / "typo.yaml"
    typo.write_text("rewards:\n  completion: 1.0\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"unknown setting\(s\) rewards"):
        load_settings(typo, env_file=None)


def test_a_simulator_url_is_named_only_by_a_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unnamed, a run starts its own mock; named, it is used or refused; the shipped YAML names none."""
    assert not load_settings(env_file=None).simulator_named
    assert not load_settings(REPO / "configs" / "default.yaml", env_file=None).simulator_named
    assert load_settings(env_file=None, aspen_simulator_url="http://127.0.0.1:9").simulator_named
    monkeypatch.setenv("ASPEN_SIMULATOR_URL", "https://aspen.example:8443")
    assert load_settings(env_file=None).simulator_named


def test_ca_bundle_must_be_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASPEN_RL_SIMULATOR_CA_BUNDLE", str(tmp_path / "missing.pem"))
    with pytest.raises(ValidationError, match="simulator_ca_bundle"):
        load_settings(env_file=None)
    bundle = write(tmp_path / "ca.pem", "-----BEGIN CERTIFICATE-----\n")
    monkeypatch.setenv("ASPEN_RL_SIMULATOR_CA_BUNDLE", str(bundle))
    assert load_settings(env_file=None).simulator_ca_bundle == bundle

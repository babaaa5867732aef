"""The algorithm registry: the CLI's only list of algorithms, its typed sections, the package's exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from aspen_rl.algorithms.registry import (
    AlgorithmSpec,
    algorithm_names,
    check_algorithm_sections,
    get_algorithm,
    register_algorithm,
)
from aspen_rl.cli import build_parser
from aspen_rl.errors import UsageError
from aspen_rl.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_algorithms_and_their_flags() -> None:
    assert algorithm_names()[:4] == ("baseline", "prompt_opt", "grpo", "verl")
    assert get_algorithm("grpo").default_mode == "train" and get_algorithm("grpo").min_repeats == 2
    assert get_algorithm("prompt_opt").needs_validation and get_algorithm("baseline").default_mode == "dev"
    with pytest.raises(
        UsageError, match=r"unknown algorithm 'grop'; known: baseline, prompt_opt, grpo, verl"
    ):
        get_algorithm("grop")


def test_cli_choices_come_from_the_registry() -> None:
    spec = register_algorithm(AlgorithmSpec("mine_for_test", build=lambda ctx: ctx, help="a test algorithm"))
    try:
        args = build_parser().parse_args(["--algorithm", "mine_for_test"])
        assert args.algorithm == "mine_for_test"
        assert spec.build("ctx") == "ctx"
        with pytest.raises(ValueError, match="already registered"):
            register_algorithm(spec)
    finally:
        from aspen_rl.algorithms import registry

        registry._REGISTRY.pop("mine_for_test")


def test_a_misspelt_algorithm_section_is_refused_naming_key_and_known(tmp_path: Path) -> None:
    config = tmp_path / "typo.yaml"
    config.write_text("algorithms:\n  grop:\n    learning_rate: 1.0e-5\n", encoding="utf-8")
    settings = load_settings(config, env_file=None)  # settings know no algorithm names; the registry does
    with pytest.raises(UsageError, match=r"unknown algorithm section\(s\) grop; known: baseline, prompt_opt"):
        check_algorithm_sections(settings)
    check_algorithm_sections(
        Settings(_env_file=None, algorithms={"grpo": {"steps": 2}})
    )  # a known one passes
    with pytest.raises(ValueError, match="repeatz"):  # a typed section refuses its own unknown keys
        Settings(_env_file=None, algorithms={"baseline": {"repeatz": 2}})
    with pytest.raises(ValueError, match="grpo must be a mapping"):
        Settings(_env_file=None, algorithms={"grpo": 3})


def test_baseline_runs_without_a_report() -> None:
    from aspen_rl.algorithms import BaselineAlgorithm

    algorithm = BaselineAlgorithm({}, repeats=1)
    assert algorithm.report is None


def test_settings_import_no_algorithm() -> None:
    """The cycle names.py used to dodge is gone: settings sit below every algorithm."""
    import ast

    import aspen_rl.settings as settings_module

    tree = ast.parse(Path(settings_module.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "aspen_rl.reward.base" in imported  # the walk sees imports, lazy ones included
    assert not [m for m in imported if m.startswith("aspen_rl.algorithms")]
    assert Settings(_env_file=None, algorithms={"grpo": {"steps": 2}}).algorithms.section("grpo") == {
        "steps": 2
    }

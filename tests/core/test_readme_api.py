"""The README's Python API, custom-algorithm and custom-task examples work as printed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def readme_block(heading: str, language: str = "python") -> str:
    """The first fenced block of ``language`` after ``heading``."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    match = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert match, f"no {language} block after {heading!r}"
    return match.group(1)


@pytest.mark.slow
def test_the_readme_python_api_example_runs_as_printed(tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(readme_block("### The Python API"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for key in ("MODEL_API_URL", "MODEL_API_KEY", "ASPEN_SIMULATOR_URL"):
        env.pop(key, None)
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=240
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("train-")]
    assert len(lines) == 3 and all(": ok, reward " in line for line in lines), proc.stdout
    assert "AgentOps" not in proc.stdout + proc.stderr
    # Agent Lightning's store and uvicorn lines go to the log file, not to the console
    console = proc.stdout + proc.stderr
    assert "Uvicorn running" not in console and "Server is not healthy yet" not in console, console[-3000:]
    assert (tmp_path / "runs" / "api_example" / "training.log").stat().st_size > 0


def test_the_readme_custom_algorithm_registers() -> None:
    from aspen_rl.algorithms import registry
    from aspen_rl.cli import build_parser

    namespace: dict = {}
    exec(readme_block("### Your own algorithm"), namespace)  # as a user would paste it
    try:
        spec = registry.get_algorithm("twice")
        assert build_parser().parse_args(["--algorithm", "twice"]).algorithm == "twice"
        algorithm = spec.build(registry.BuildContext(args=None, settings=None, resources={"x": 1}))
        assert type(algorithm).__name__ == "EveryTaskTwice" and algorithm.resources == {"x": 1}
    finally:
        registry._REGISTRY.pop("twice", None)


def test_the_readme_task_line_pastes_validates_and_needs_regeneration(tmp_path: Path, capsys) -> None:
    from aspen_rl.datagen.cli import main as datagen_main
    from aspen_rl.tasks.__main__ import main as tasks_main

    line = readme_block("### Your own tasks", "json").strip()
    assert "\n" not in line  # one line: pastes into a .jsonl file
    path = tmp_path / "my_tasks.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert tasks_main(["validate", str(path)]) == 2  # the placeholder value is reported
    assert f"python -m aspen_rl.datagen regenerate {path}" in capsys.readouterr().err
    assert datagen_main(["regenerate", str(path)]) == 0
    assert tasks_main(["validate", str(path)]) == 0
    assert json.loads(path.read_text(encoding="utf-8"))["expected_output"][0]["value"] > 0

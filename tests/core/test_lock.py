"""The committed lock: every dependency pyproject.toml names is pinned there, inside its range, and the
README's two commands and CI install through it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements-lock.txt"


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"not an exact pin: {line!r}"
            pins[canonicalize_name(name)] = Version(version)
    return pins


def test_every_base_and_test_dependency_is_pinned_within_its_range() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = _pins()
    required = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]
    for req in required:
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not in requirements-lock.txt: run bash .ci/refresh-lock"
        assert req.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} is outside {req}"
    # the CPU build of torch is installed first, pinned without its local label
    assert str(pins["torch"]) == "2.13.0"
    assert "pip" in pins and "setuptools" in pins


def test_the_readme_commands_and_ci_install_through_the_lock() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line for line in readme.splitlines()[:20] if line.startswith("python3.11 -m venv")]
    assert len(commands) == 2
    for command in commands:
        installs = re.findall(r"pip install ([^&]+)", command)
        assert installs and all(i.startswith("-c requirements-lock.txt ") for i in installs), command
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    installs = re.findall(r"pip install (.+)", ci)
    assert installs and all("-c requirements-lock.txt" in i for i in installs), installs
    assert (ROOT / ".ci" / "refresh-lock").is_file() and "bash .ci/refresh-lock" in readme

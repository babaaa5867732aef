"""Wheels carried to a lent GPU machine: the list agrees with the lock, packing is lossless, gaps named."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
from _support.benchmarks import load_benchmark
from _support.env import REPO


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def test_every_carried_wheel_is_pinned_at_the_locked_version() -> None:
    carried = _pins(REPO / "benchmarks" / "gpu_wheels.txt")
    locked = _pins(REPO / "requirements-lock.txt")

    assert {name: version for name, version in carried.items() if locked.get(name) != version} == {}
    assert {"agentlightning", "litellm", "thermo", "chemicals", "pint", "pydantic-settings"} <= set(carried)
    assert "botocore" not in carried  # 17 MiB that accelerate imports only when installed


def test_packed_wheels_unpack_to_stored_zips_with_the_same_contents(tmp_path: Path) -> None:
    pack_wheels = load_benchmark("pack_wheels")
    src = tmp_path / "src"
    src.mkdir()
    files = {
        "demo/__init__.py": b"VALUE = 1\n" * 200,
        "demo-1.0.dist-info/METADATA": b"Name: demo\nVersion: 1.0\n",
    }
    with zipfile.ZipFile(src / "demo-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)

    packed = pack_wheels.pack(src, tmp_path / "carry" / "wheels.tar.xz")
    names = pack_wheels.unpack(tmp_path / "carry" / "wheels.tar.xz", tmp_path / "out")

    assert packed == names == ["demo-1.0-py3-none-any.whl"]
    with zipfile.ZipFile(tmp_path / "out" / names[0]) as wheel:
        assert {info.filename: wheel.read(info) for info in wheel.infolist()} == files
        assert {info.compress_type for info in wheel.infolist()} == {zipfile.ZIP_STORED}


def test_only_the_uninstalled_requirements_are_reported_absent(tmp_path: Path) -> None:
    pick_wheels = load_benchmark("pick_wheels")
    listing = tmp_path / "wheels.txt"
    listing.write_text("# header\npydantic==2.14.4\n\nno-such-distribution-aspen-rl==1.0  # not installed\n")

    assert pick_wheels.absent(listing) == ["no-such-distribution-aspen-rl==1.0"]


def test_pick_wheels_refuses_a_missing_argument_or_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pick_wheels = load_benchmark("pick_wheels")
    with pytest.raises(SystemExit) as neither:
        pick_wheels.main([])
    assert neither.value.code == 2
    capsys.readouterr()

    assert pick_wheels.main([str(tmp_path / "absent")]) == 2
    assert capsys.readouterr().err.startswith(f"error: {tmp_path / 'absent'}: no such folder")

    listing = tmp_path / "wheels.txt"
    listing.write_text("no-such-distribution-aspen-rl==1.0\n")
    assert pick_wheels.main(["--require", str(listing)]) == 1
    assert pick_wheels.main([str(tmp_path)]) == 0  # an empty folder: nothing needed

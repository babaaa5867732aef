"""Print the carried wheels a machine still needs: those missing there, or installed older than needed.

Used on the lent GPU machine (no network) before ``pip install --no-index --no-deps --target``:

    python3 benchmarks/pick_wheels.py .whl    # one wheel path per line on stdout, the reasons on stderr
    python3 benchmarks/pick_wheels.py --require benchmarks/gpu_wheels.txt   # after the install: none missing?

A wheel is needed when its distribution is absent or older than the wheel (``MINIMUM`` lowers that bar
for large packages where any version the dependants accept will do). ``--require`` prints an ``error:`` line
for each ``name==version`` of a list whose distribution this interpreter lacks, and exits 1 if any.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import pathlib
import re
import sys

from packaging.version import Version

MINIMUM = {"pyarrow": "24.0.0"}
"""datasets 5.2 needs pyarrow >= 24: an installed one that new enough is kept."""


def needed(folder: pathlib.Path) -> list[pathlib.Path]:
    """The wheels in ``folder`` this interpreter lacks (or has too old)."""
    out = []
    for wheel in sorted(folder.glob("*.whl")):
        name, version = wheel.name.split("-")[:2]
        dist = re.sub(r"[-_.]+", "-", name).lower()
        need = Version(MINIMUM.get(dist, version))
        try:
            have: Version | None = Version(md.version(dist))
        except md.PackageNotFoundError:
            have = None
        print(f"{dist}: have {have}, need >= {need}", file=sys.stderr)
        if have is None or have < need:
            out.append(wheel)
    return out


def absent(requirements: pathlib.Path) -> list[str]:
    """The ``name==version`` lines of ``requirements`` (``#`` comments skipped) not installed here."""
    out = []
    for line in requirements.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            md.version(line.split("==")[0])
        except md.PackageNotFoundError:
            out.append(line)
    return out


def main(argv: list[str]) -> int:
    """``FOLDER``: print the wheels needed; ``--require LIST``: 1 when any listed distribution is absent."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=pathlib.Path, help="folder of carried .whl files")
    parser.add_argument("--require", type=pathlib.Path, help="name==version list that must be installed")
    args = parser.parse_args(argv)
    if (args.folder is None) == (args.require is None):
        parser.error("give a wheel folder or --require LIST (one of them)")
    given = args.require if args.require is not None else args.folder
    if not given.exists():
        print(f"error: {given}: no such {'file' if args.require else 'folder'}", file=sys.stderr)
        return 2
    if args.require is not None:
        lacking = absent(args.require)
        for line in lacking:
            print(f"error: {line} ({args.require}): not installed, not carried", file=sys.stderr)
        return 1 if lacking else 0
    for path in needed(args.folder):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

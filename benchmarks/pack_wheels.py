"""Pack wheels into one ``.tar.xz`` to carry to the lent GPU machine, and unpack them there.

A wheel is a deflate zip, compressed file by file; re-zipped uncompressed ("stored", still a valid wheel
with the same RECORD) and packed into one xz stream, the learning recipe's set shrinks from ~82 MiB to
~53 MiB, which lets it travel within the 64 MiB a call may carry (docs/benchmarks/learning_curve.md,
"GPU recipe").

    python3 benchmarks/pack_wheels.py pack .whl-src .whl/wheels.tar.xz          # here, after downloading
    python3 benchmarks/pack_wheels.py unpack .whl/wheels.tar.xz /tmp/lc/wheels  # there, before pick_wheels.py
"""

from __future__ import annotations

import argparse
import pathlib
import tarfile
import tempfile
import zipfile


def stored_copy(wheel: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    """Write ``wheel`` re-zipped without compression into folder ``dest``; return the new path."""
    out = dest / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = src.read(info)
            info.compress_type = zipfile.ZIP_STORED
            dst.writestr(info, data)
    return out


def pack(folder: pathlib.Path, archive: pathlib.Path) -> list[str]:
    """Pack every wheel in ``folder`` into the xz tar ``archive``; return the wheel names packed."""
    wheels = sorted(folder.glob("*.whl"))
    if not wheels:
        raise SystemExit(f"error: no wheels in {folder}")
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(archive, "w:xz", preset=6) as tar:
        for wheel in wheels:
            tar.add(stored_copy(wheel, pathlib.Path(tmp)), arcname=wheel.name)
    return [w.name for w in wheels]


def unpack(archive: pathlib.Path, dest: pathlib.Path) -> list[str]:
    """Extract the wheels of ``archive`` into ``dest``; return their names."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive, "r:xz") as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".whl")]
        tar.extractall(dest, members=members, filter="data")
    return [m.name for m in members]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["pack", "unpack"])
    parser.add_argument("source", type=pathlib.Path, help="pack: folder of wheels; unpack: the archive")
    parser.add_argument("target", type=pathlib.Path, help="pack: the archive to write; unpack: the folder")
    args = parser.parse_args()
    if args.action == "pack":
        names = pack(args.source, args.target)
    else:
        if not args.source.is_file():
            raise SystemExit(f"error: no archive {args.source}")
        names = unpack(args.source, args.target)
    print(f"{args.action}ed {len(names)} wheels: {args.source} -> {args.target}")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Fetch the wheels the learning recipe carries to the lent GPU machine (benchmarks/gpu_wheels.txt) as Python 3.12
# manylinux x86_64 wheels into .whl-src/, pack them into .whl/wheels.tar.xz, and print the sizes against the
# 64 MiB a call may carry (the tracked and untracked-not-ignored tree plus the carried .whl/).
#   benchmarks/gpu_wheels.sh      # from the repository root, on a machine that reaches a package registry
# Then: run with carry [".whl"] and `benchmarks/gpu_call.sh SEEDS SECONDS` (docs/benchmarks/learning_curve.md).
set -euo pipefail
python="${PYTHON:-python3}"
list=benchmarks/gpu_wheels.txt
src=.whl-src
built_here="gpustat"  # PyPI has only an sdist of these (pure Python): built into a wheel here
mkdir -p "$src"
rm -f "$src"/*.whl
reqs=$(grep -v -e '^#' -e '^$' "$list")
binary=$(grep -v -E "^(${built_here// /|})==" <<<"$reqs")
sdist=$(grep -E "^(${built_here// /|})==" <<<"$reqs" || true)
"$python" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$src" $binary
if [ -n "$sdist" ]; then
    "$python" -m pip wheel -q --no-deps -w "$src" $sdist
fi
for wheel in "$src"/*.whl; do
    case "$wheel" in
        *-py3-none-any.whl | *-py2.py3-none-any.whl | *cp312* | *-abi3-* | *-py3-none-manylinux* | *-py2.py3-none-manylinux*) ;;
        *) echo "error: $wheel is not for CPython 3.12 on x86_64" >&2; exit 1 ;;
    esac
done
count=$(find "$src" -name '*.whl' | wc -l)
want=$(wc -l <<<"$reqs")
if [ "$count" -ne "$want" ]; then
    echo "error: $count wheels in $src for the $want requirements of $list" >&2
    exit 1
fi
mkdir -p .whl
rm -f .whl/*.whl .whl/wheels.tar.xz
"$python" benchmarks/pack_wheels.py pack "$src" .whl/wheels.tar.xz
wheels=$(du -cb "$src"/*.whl | tail -1 | cut -f1)
packed=$(stat -c %s .whl/wheels.tar.xz)
tree=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
"$python" - "$count" "$wheels" "$packed" "$tree" <<'EOF'
import sys
count, wheels, packed, tree = (int(x) for x in sys.argv[1:])
mib = 1 << 20
print(f"{count} wheels: {wheels / mib:.1f} MiB as downloaded, {packed / mib:.1f} MiB packed (.whl/wheels.tar.xz)")
print(f"tree {tree / mib:.1f} MiB + packed {packed / mib:.1f} MiB = {(tree + packed) / mib:.1f} MiB of 64 MiB")
if tree + packed > 64 * mib:
    sys.exit("error: over the 64 MiB a call may carry")
EOF

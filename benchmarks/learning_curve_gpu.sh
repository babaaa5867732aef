#!/usr/bin/env bash
# The learning benchmark's GPU recipe: one prepared call (one seed, under 10 minutes planned on one H100).
#   benchmarks/learning_curve_gpu.sh SEED            # on the GPU machine, from the repository root
#   benchmarks/learning_curve_gpu.sh 0 --smoke --device cpu   # the plumbing on a CPU, minutes
# Writes docs/benchmarks/learning_curve_gpu_seed<SEED>.{json,png} (or under $OUT when set, as the lent
# machine returns only $OUT) and the log next to them.
# With a .whl/ folder (carried from benchmarks/gpu_wheels.sh; the lent machine has no network), the wheels there
# that this machine lacks are installed into /tmp/lc/site-packages first; without one, nothing is installed.
# Either way, a distribution of benchmarks/gpu_wheels.txt still missing stops the recipe with an error: line.
set -euo pipefail
seed="${1:?usage: learning_curve_gpu.sh SEED [extra learning_curve.py flags]}"
shift
python="${PYTHON:-python}"
out_dir="${OUT:-docs/benchmarks}"
mkdir -p "$out_dir"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
if [ -d .whl ]; then
    site=/tmp/lc/site-packages  # the folder's name must hold site-packages (docs/benchmarks/grpo_gpu.md)
    rm -rf /tmp/lc/wheels "$site" && mkdir -p /tmp/lc/wheels "$site"  # nothing left from an earlier run
    if [ -f .whl/wheels.tar.xz ]; then
        "$python" benchmarks/pack_wheels.py unpack .whl/wheels.tar.xz /tmp/lc/wheels
    fi
    find .whl -maxdepth 1 -type f -name '*.whl' -exec cp {} /tmp/lc/wheels/ \;
    picked=$("$python" benchmarks/pick_wheels.py /tmp/lc/wheels 2>/tmp/lc/pick_wheels.log)  # reasons in the log
    mapfile -t wheels <<<"${picked:-}"
    [ -n "${picked:-}" ] || wheels=()
    echo "installing ${#wheels[@]} carried wheels into $site"
    if [ "${#wheels[@]}" -gt 0 ]; then
        "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target "$site" "${wheels[@]}"
    fi
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
"$python" benchmarks/pick_wheels.py --require benchmarks/gpu_wheels.txt
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$python" benchmarks/learning_curve.py \
    --config configs/learning_curve_gpu.yaml --seeds "$seed" \
    --out "$out_dir/learning_curve_gpu_seed$seed" "$@" 2>&1 | tee "$out_dir/learning_curve_gpu_seed$seed.log"

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
source benchmarks/gpu_install.sh  # the carried wheels, if any (.whl/)
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$python" benchmarks/learning_curve.py \
    --config configs/learning_curve_gpu.yaml --seeds "$seed" \
    --out "$out_dir/learning_curve_gpu_seed$seed" "$@" 2>&1 | tee "$out_dir/learning_curve_gpu_seed$seed.log"

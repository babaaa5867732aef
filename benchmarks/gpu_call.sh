#!/usr/bin/env bash
# Issue 22's prepared device call, one call under 10 minutes on one H100/H200, all inputs carried (.whl/):
#   1. the transformers engine's decode speed per KV-cache mode (eager, static, compiled) at 0.5B, batch 64,
#      128-token prompts, 256 steps (benchmarks/grpo_bench.py --parts decode), on the GPU alone, while
#   2. the learning benchmark (configs/learning_curve_gpu.yaml, one seed) draws its tasks and records its
#      demonstrations on the CPU; it waits for the decode timing to end (--wait-for) before it touches the GPU,
#      and is cut at LC_SECONDS from its start (its JSON and PNG are rewritten after every evaluation and GRPO
#      step, so a cut run keeps what it measured).
#   OUT=/tmp/g benchmarks/gpu_call.sh SEED LC_SECONDS [learning_curve.py flags overriding the config]
#   DECODE_SECONDS=0 ... skips step 1 (the learning curve has the GPU from the start); default 200 s.
# Writes under $OUT (what the lent machine returns): env.txt, decode.log, decode_summary.json,
# learning_curve.log, learning_curve_gpu_seed<SEED>.{json,png}.
# On CPU, to check the plumbing: DEVICE=cpu OUT=/tmp/g benchmarks/gpu_call.sh 0 600 --smoke --device cpu ...
set -uo pipefail
seed="${1:?usage: gpu_call.sh SEED LC_SECONDS [learning_curve.py flags]}"
budget="${2:?usage: gpu_call.sh SEED LC_SECONDS [learning_curve.py flags]}"
shift 2
python="${PYTHON:-python3}"
device="${DEVICE:-cuda}"
out="${OUT:-/tmp/gpu_call}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
started=$(date +%s)
source benchmarks/gpu_install.sh || exit 1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
{
    date -u
    nvidia-smi 2>&1 || echo "no nvidia-smi"
    nproc
    "$python" -c "import sys, torch, transformers; print(sys.version); print(torch.__version__, transformers.__version__)"
} >"$out/env.txt" 2>&1
gate=$(mktemp -u /tmp/gpu_call_gate.XXXXXX)
timeout -k 10 "$budget" "$python" benchmarks/learning_curve.py --config configs/learning_curve_gpu.yaml \
    --seeds "$seed" --out "$out/learning_curve_gpu_seed$seed" --wait-for "$gate" "$@" \
    >"$out/learning_curve.log" 2>&1 &
curve=$!
trap 'kill $curve 2>/dev/null; rm -f "$gate"' EXIT
if [ "$device" = cuda ]; then
    decode=(--batch 64 --prompt-len 128 --new-tokens 256)
else
    decode=(--device cpu --shape tiny --batch 8 --prompt-len 16 --new-tokens 16)
fi
if [ "${DECODE_SECONDS:-200}" -gt 0 ]; then
    echo "$(($(date +%s) - started)) s: decode timing"
    timeout -k 10 "${DECODE_SECONDS:-200}" "$python" benchmarks/grpo_bench.py --gpu --parts decode \
        "${decode[@]}" --out /tmp/gpu_call_decode >"$out/decode.log" 2>&1
    echo "decode exit $?"
    cp /tmp/gpu_call_decode/summary.json "$out/decode_summary.json" 2>/dev/null
fi
touch "$gate"
echo "$(($(date +%s) - started)) s: the learning curve has the GPU"
wait "$curve"
echo "learning curve exit $? after $(($(date +%s) - started)) s"
tail -n 25 "$out/learning_curve.log"
grep -h "ms/step" "$out/decode.log" 2>/dev/null || true

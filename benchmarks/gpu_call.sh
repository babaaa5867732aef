#!/usr/bin/env bash
# Issue 22's prepared device call, one call under 10 minutes on one H100/H200, all inputs carried (.whl/):
#   1. the transformers engine's decode speed per KV-cache mode (eager, static, compiled) at 0.5B, batch 64,
#      128-token prompts, 256 steps (benchmarks/grpo_bench.py --parts decode), on the GPU alone, while
#   2. the learning benchmark (configs/learning_curve_gpu.yaml) draws its tasks and records its
#      demonstrations on the CPU; it waits for the decode timing to end (--wait-for) before it touches the GPU,
#      and is cut at LC_SECONDS from its start (its JSON and PNG are rewritten after every evaluation and GRPO
#      step, so a cut run keeps what it measured).
#   OUT=/tmp/g benchmarks/gpu_call.sh SEEDS LC_SECONDS [learning_curve.py flags overriding the config]
# SEEDS is one seed ("0") or several ("0,1,2"): several run as concurrent processes sharing the GPU (a 0.1B
# model leaves it mostly idle: its decoding is launch-bound), each cut at the same LC_SECONDS.
#   DECODE_SECONDS=0 ... skips step 1 (the learning curve has the GPU from the start); default 200 s.
#   LC_CONFIG=configs/learning_curve_gpu_spread.yaml ... another recipe (default configs/learning_curve_gpu.yaml).
# Writes under $OUT (what the lent machine returns, at most 8 files): env.txt, decode.log, decode_summary.json,
# and for one seed learning_curve_gpu_seed<SEED>.{json,png,log}; for several, learning_curves.tgz (the same
# three files per seed).
# On CPU, to check the plumbing: DEVICE=cpu OUT=/tmp/g benchmarks/gpu_call.sh 0 600 --smoke --device cpu ...
set -uo pipefail
seeds="${1:?usage: gpu_call.sh SEEDS LC_SECONDS [learning_curve.py flags]}"
budget="${2:?usage: gpu_call.sh SEEDS LC_SECONDS [learning_curve.py flags]}"
shift 2
python="${PYTHON:-python3}"
device="${DEVICE:-cuda}"
config="${LC_CONFIG:-configs/learning_curve_gpu.yaml}"
[ -f "$config" ] || { echo "error: LC_CONFIG $config is not a file" >&2; exit 2; }
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
read -ra seed_list <<<"${seeds//,/ }"
curves_dir="$out"
[ "${#seed_list[@]}" -gt 1 ] && curves_dir=/tmp/gpu_call_curves && rm -rf "$curves_dir" && mkdir -p "$curves_dir"
curves=()
for seed in "${seed_list[@]}"; do
    timeout -k 10 "$budget" "$python" benchmarks/learning_curve.py --config "$config" \
        --seeds "$seed" --out "$curves_dir/learning_curve_gpu_seed$seed" --wait-for "$gate" "$@" \
        >"$curves_dir/learning_curve_gpu_seed$seed.log" 2>&1 &
    curves+=($!)
done
trap 'kill "${curves[@]}" 2>/dev/null; rm -f "$gate"' EXIT
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
echo "$(($(date +%s) - started)) s: the learning curve has the GPU (seeds ${seed_list[*]})"
for i in "${!curves[@]}"; do
    wait "${curves[$i]}"
    echo "learning curve seed ${seed_list[$i]} exit $? after $(($(date +%s) - started)) s"
done
if [ "$curves_dir" != "$out" ]; then
    tar czf "$out/learning_curves.tgz" -C "$curves_dir" .
fi
for seed in "${seed_list[@]}"; do
    grep -h -e "seed $seed .* (" -e "GRPO step" -e "copy warm-up in" -e "SFT to epoch" \
        "$curves_dir/learning_curve_gpu_seed$seed.log" | cut -c1-400
done
grep -h "ms/step" "$out/decode.log" 2>/dev/null || true

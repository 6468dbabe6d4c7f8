#!/usr/bin/env bash
# Where ONNX Runtime (CPU) spends its time on a model, kernel by kernel: its
# own profiler (bench/ort_profile.js), summed per op type and per node by
# bench/ort_profile.py. The peer's side of bench/kernel-profile.sh: compare
# a class of kernels (the 3x3 convolutions, the pointwise ones, the pools)
# in the same model on the same machine.
# Usage: bench/ort-profile.sh MODEL.onnx [THREADS=1] [RUNS=20] [TOP=30]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" >/dev/null
source "$root/bench/common.sh"
model="$(realpath "${1:?usage: bench/ort-profile.sh MODEL.onnx [THREADS] [RUNS] [TOP]}")"
threads="${2:-1}"; runs="${3:-20}"; top="${4:-30}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cores=$(seq -s, 0 $((threads - 1)))
ORT_NODE="$ort/node_modules/onnxruntime-node" taskset -c "$cores" \
  node "$root/bench/ort_profile.js" "$model" "$threads" "$runs" "$dir/profile"
/usr/bin/python3 "$root/bench/ort_profile.py" "$(ls "$dir"/profile*.json | head -1)" "$runs" "$top"

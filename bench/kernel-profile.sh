#!/usr/bin/env bash
# Where a model's default CPU engine spends its time, kernel by kernel
# (bench/kernel_profile.py): compiles MODEL, records `int21-run --bench`
# with perf (Debian's linux-perf), and prints each kernel's share of the
# samples with the fusion group it comes from, most expensive first.
# Usage: bench/kernel-profile.sh MODEL.onnx [THREADS=1] [RUNS=100] [TOP=30]
# Env: INT21_BIN / INT21_BUILD_DIR as bench/tools.sh; PROFILE_DIR keeps the
#      engine, the IR and perf's data there (default: a temporary folder).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" >/dev/null
source "$root/bench/tools.sh"
model="${1:?usage: bench/kernel-profile.sh MODEL.onnx [THREADS] [RUNS] [TOP]}"
threads="${2:-1}"; runs="${3:-100}"; top="${4:-30}"
command -v perf >/dev/null || { echo "kernel-profile: needs perf (Debian's linux-perf)" >&2; exit 1; }
dir="${PROFILE_DIR:-$(mktemp -d)}"
mkdir -p "$dir"
[ -z "${PROFILE_DIR:-}" ] && trap 'rm -rf "$dir"' EXIT
"$bin/int21-compile" "$model" --target=cpu -o "$dir/engine.int21"
# The weights printed: a constant weight folds (transposes, padding) as in
# the engine, so that its kernels are the same code.
"$bin/int21-compile" "$model" --emit=linalg --print-weights -o "$dir/linalg.mlir"
"$bin/int21-opt" "$dir/linalg.mlir" --int21-cpu-codegen --mlir-print-debuginfo -o "$dir/llvm.mlir"
cores=$(seq -s, 0 $((threads - 1)))
perf record -q -F 4000 -o "$dir/perf.data" taskset -c "$cores" \
  "$bin/int21-run" "$dir/engine.int21" --bench "$runs" --threads "$threads" 2>&1 | grep latency_ms
/usr/bin/python3 "$root/bench/kernel_profile.py" "$dir/engine.int21" "$dir/perf.data" \
  "$dir/linalg.mlir" "$dir/llvm.mlir" "$top"

#!/usr/bin/env bash
# Tuned CPU engines against ONNX Runtime (CPU, npm onnxruntime-node) on the
# shared models, in one run, at the same thread count: each model is tuned
# on this machine (--time SECONDS, kernels timed at THREADS), then the
# default engine, the tuned engine and ORT are timed one after the other.
# Usage: bench/tuned-vs-ort.sh [SECONDS=120] [THREADS=1] [RUNS=50]
# Env: INT21_BUILD_DIR (default build), INT21_BIN (the tools to time, default
#      build/bin; skips the build), MODELS (default ../shared/models).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-120}"
threads="${2:-1}"
runs="${3:-50}"
source "$root/bench/common.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

machine_line "; tuned ${seconds} s per model, ${threads} thread(s)"
printf '%-9s %12s %10s %9s %9s %12s %12s\n' model default_ms tuned_ms ort_ms speedup tuned/ort default/ort
for m in mlp encoder resnet18; do
  data="$models/$m/test_data_set_0"
  "$bin/int21-compile" "$models/$m.onnx" --no-kb --target=cpu -o "$work/$m.default.int21"
  "$bin/int21-compile" "$models/$m.onnx" --no-kb --target=cpu --tune --time "$seconds" \
    --tune-threads "$threads" -o "$work/$m.tuned.int21" 2>/dev/null >"$work/$m.tune.txt"
  # The tuned engine must still compute the model.
  "$bin/int21-run" "$work/$m.tuned.int21" --input "input=$data/input_0.pb" \
    --expect "$data" --atol 1e-5 >/dev/null
  bench() { "$bin/int21-run" "$1" --bench "$runs" --threads "$threads" |
    sed -n 's/.*median=\([0-9.]*\).*/\1/p'; }
  d=$(bench "$work/$m.default.int21")
  t=$(bench "$work/$m.tuned.int21")
  o=$(cd "$ort" && node ort_bench.js "$models/$m.onnx" "$threads" "$runs" |
    sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
  awk -v m="$m" -v d="$d" -v t="$t" -v o="$o" 'BEGIN {
    printf "%-9s %12.3f %10.3f %9.3f %8.2fx %12.2f %12.2f\n", m, d, t, o, d / t, t / o, d / o }'
  sed 's/^/    search: /' "$work/$m.tune.txt"
done

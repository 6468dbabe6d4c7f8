#!/usr/bin/env bash
# The untuned CPU engine against ONNX Runtime (CPU, from the npm registry) on
# the shared models, one after the other in one run, at the same thread
# counts. Also times compilation (import to engine) and engine loading.
# Usage: bench/cpu-vs-ort.sh [RUNS=50] [THREADS="1 2"]
# Env: INT21_BUILD_DIR (default build), INT21_BIN (the tools to time, default
#      build/bin; skips the build), MODELS (default ../shared/models),
#      NAMES (the models of MODELS to run, default "mlp encoder resnet18").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-50}"
threads="${2:-1 2}"
source "$root/bench/common.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

machine_line ""
printf '%-9s %7s %11s %9s %11s %11s %7s\n' model threads compile_s load_ms int21_ms ort_ms ratio
for m in ${NAMES:-mlp encoder resnet18}; do
  start=$(date +%s%N)
  "$bin/int21-compile" "$models/$m.onnx" --no-kb --target=cpu -o "$work/$m.int21"
  end=$(date +%s%N)
  compile_s=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.2f", ns / 1e9 }')
  # Loading alone (file read, checks, code mapped), without running.
  load_ms=$("$bin/int21-run" "$work/$m.int21" --load-time | awk -F= '/^load_ms=/ { print $2 }')
  for t in $threads; do
    ours=$("$bin/int21-run" "$work/$m.int21" --bench "$runs" --threads "$t" |
      sed -n 's/.*median=\([0-9.]*\).*/\1/p')
    theirs=$(cd "$ort" && node ort_bench.js "$models/$m.onnx" "$t" "$runs" |
      sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
    ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')
    printf '%-9s %7s %11s %9s %11s %11s %7s\n' "$m" "$t" "$compile_s" "$load_ms" "$ours" "$theirs" "$ratio"
  done
done

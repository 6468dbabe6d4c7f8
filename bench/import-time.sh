#!/usr/bin/env bash
# Times int21-compile on the shared models: the import phase (libonnx checks,
# shape inference, building int21) as --mlir-timing reports it, and the whole
# process (median of 5 runs) for --emit=int21 and --emit=linalg.
# Usage: bench/import-time.sh [BUILD_DIR] [MODELS_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
models="${2:-$root/../shared/models}"
tool="$build/bin/int21-compile"

median_ms() {
  local times=()
  for _ in 1 2 3 4 5; do
    local start end
    start=$(date +%s%N)
    "$tool" "$@" -o /dev/null
    end=$(date +%s%N)
    times+=($(((end - start) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 3p
}

printf '%-10s %12s %14s %14s\n' model import_ms int21_total_ms linalg_total_ms
for m in mlp encoder resnet18; do
  import=$("$tool" "$models/$m.onnx" -o /dev/null --mlir-timing 2>&1 |
    awk '$NF == "import" { printf "%.0f", $1 * 1000 }')
  printf '%-10s %12s %14s %14s\n' "$m" "$import" \
    "$(median_ms "$models/$m.onnx")" "$(median_ms "$models/$m.onnx" --emit=linalg)"
done

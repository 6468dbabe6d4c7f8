#!/usr/bin/env bash
# The knowledge base's two figures (issue 7), in one run on this machine:
#  1. reuse: a model tuned into a knowledge base, compiled again with it, runs
#     no trial and keeps the tuned latency;
#  2. transfer: mlp and resnet18 tuned into a knowledge base; encoder then
#     tuned cold (no knowledge base, BUDGET trials) and warm (that knowledge
#     base, BUDGET/5 trials). Reported: trials and whole-model latency (one
#     thread, median of int21-run --bench) of default, cold and warm engines.
# Usage: bench/kb-transfer.sh [BUDGET=100] [SEED_BUDGET=60]
# Env: INT21_BIN (the tools, default build/bin; skips the build), MODELS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
budget="${1:-100}"
seed_budget="${2:-60}"
warm_budget=$((budget / 5))
if [ -z "${INT21_BIN:-}" ]; then
  "$root/scripts/build.sh" >/dev/null
fi
bin="${INT21_BIN:-${INT21_BUILD_DIR:-$root/build}/bin}"
models="${MODELS:-$root/../shared/models}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tune=(--target=cpu --tune --tune-threads 1 --jobs 2)

latency() { # ENGINE -> median ms, one thread
  "$bin/int21-run" "$1" --bench 50 --threads 1 | sed -n 's/.*median=\([0-9.]*\).*/\1/p'
}
trials() { # the final line of a search -> its trial count
  sed -n 's/^tuned [0-9]* kernels in \([0-9]*\) trials.*/\1/p' "$1"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# budget $budget (cold), $warm_budget (warm), $seed_budget per seeding model"

# 1. Reuse.
"$bin/int21-compile" "$models/mlp.onnx" "${tune[@]}" --budget "$seed_budget" \
  --kb "$work/reuse.sqlite" -o "$work/mlp.tuned.int21" 2>/dev/null >"$work/mlp.tune.txt"
"$bin/int21-compile" "$models/mlp.onnx" "${tune[@]}" --budget "$seed_budget" \
  --kb "$work/reuse.sqlite" -o "$work/mlp.again.int21" 2>/dev/null >"$work/mlp.again.txt"
echo "reuse mlp: first search $(trials "$work/mlp.tune.txt") trials," \
  "again $(trials "$work/mlp.again.txt") trials;" \
  "latency tuned $(latency "$work/mlp.tuned.int21") ms, again $(latency "$work/mlp.again.int21") ms"

# 2. Transfer.
for m in mlp resnet18; do
  "$bin/int21-compile" "$models/$m.onnx" "${tune[@]}" --budget "$seed_budget" \
    --kb "$work/seeded.sqlite" -o "$work/$m.seed.int21" 2>/dev/null | tail -1 | sed "s/^/seed $m: /"
done
"$bin/int21-compile" "$models/encoder.onnx" --target=cpu --no-kb -o "$work/encoder.default.int21"
"$bin/int21-compile" "$models/encoder.onnx" "${tune[@]}" --budget "$budget" \
  --kb "$work/cold.sqlite" -o "$work/encoder.cold.int21" 2>/dev/null >"$work/cold.txt"
cp "$work/seeded.sqlite" "$work/warm.sqlite"
"$bin/int21-compile" "$models/encoder.onnx" "${tune[@]}" --budget "$warm_budget" \
  --kb "$work/warm.sqlite" --tune-log "$work/warm.jsonl" -o "$work/encoder.warm.int21" \
  2>/dev/null >"$work/warm.txt"
t_default=$(latency "$work/encoder.default.int21")
t_cold=$(latency "$work/encoder.cold.int21")
t_warm=$(latency "$work/encoder.warm.int21")
echo "encoder default: $t_default ms"
echo "encoder cold: $(trials "$work/cold.txt") trials, $t_cold ms ($(tail -1 "$work/cold.txt"))"
echo "encoder warm: $(trials "$work/warm.txt") trials, $t_warm ms ($(tail -1 "$work/warm.txt"))"
echo "knowledge-agent trials in the warm search: $(grep -c '"agent":"knowledge"' "$work/warm.jsonl" || true)"
awk -v c="$t_cold" -v w="$t_warm" 'BEGIN { printf "warm/cold latency: %.3f (bar: at most 1.05)\n", w / c }'

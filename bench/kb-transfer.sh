#!/usr/bin/env bash
# The knowledge base's two figures (issue 7), in one run on this machine:
#  1. reuse: a model tuned into a knowledge base, compiled again with it, runs
#     no trial and keeps the tuned latency;
#  2. transfer: mlp and resnet18 tuned into a knowledge base; encoder then
#     tuned cold (no knowledge base, BUDGET trials beyond its defaults) and
#     warm (that knowledge base, as many trials as keep its total, defaults
#     included, at most a fifth of the cold search's). Reported: trials and
#     whole-model latency (one thread) of default, cold and warm engines,
#     each the median of ROUNDS rounds of int21-run --bench taken in turn,
#     so that a slow spell of the machine weighs on all alike; and a control:
#     encoder tuned with as few trials as the warm search, without the
#     knowledge base.
# Usage: bench/kb-transfer.sh [BUDGET=200] [SEED_BUDGET=60] [ROUNDS=7]
# Env: INT21_BIN (the tools, default build/bin; skips the build), MODELS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
budget="${1:-200}"
seed_budget="${2:-60}"
rounds="${3:-7}"
if [ -z "${INT21_BIN:-}" ]; then
  "$root/scripts/build.sh" >/dev/null
fi
bin="${INT21_BIN:-${INT21_BUILD_DIR:-$root/build}/bin}"
models="${MODELS:-$root/../shared/models}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tune=(--target=cpu --tune --tune-threads 1 --jobs 2)

latency() { # ENGINE... -> the median ms of each, one thread, in rounds
  local round e
  for round in $(seq "$rounds"); do
    for e in "$@"; do
      echo "$e $("$bin/int21-run" "$e" --bench 30 --threads 1 | sed -n 's/.*median=\([0-9.]*\).*/\1/p')"
    done
  done >"$work/latency.txt"
  for e in "$@"; do
    echo "$e $(awk -v e="$e" '$1 == e { print $2 }' "$work/latency.txt" | sort -g |
      awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
  done
}
ms() { # ENGINE TABLE -> its median
  awk -v e="$1" '$1 == e { print $2 }' <<<"$2"
}
trials() { # the final line of a search -> its trial count
  sed -n 's/^tuned [0-9]* kernels in \([0-9]*\) trials.*/\1/p' "$1"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# budget $budget (cold; warm: a fifth of its trials in all), $seed_budget per seeding model, latency in $rounds rounds"

# 1. Reuse.
"$bin/int21-compile" "$models/mlp.onnx" "${tune[@]}" --budget "$seed_budget" \
  --kb "$work/reuse.sqlite" -o "$work/mlp.tuned.int21" 2>/dev/null >"$work/mlp.tune.txt"
"$bin/int21-compile" "$models/mlp.onnx" "${tune[@]}" --budget "$seed_budget" \
  --kb "$work/reuse.sqlite" -o "$work/mlp.again.int21" 2>/dev/null >"$work/mlp.again.txt"
reuse="$(latency "$work/mlp.tuned.int21" "$work/mlp.again.int21")"
echo "reuse mlp: first search $(trials "$work/mlp.tune.txt") trials," \
  "again $(trials "$work/mlp.again.txt") trials;" \
  "latency tuned $(ms "$work/mlp.tuned.int21" "$reuse") ms, again $(ms "$work/mlp.again.int21" "$reuse") ms;" \
  "the engines are $(cmp -s "$work/mlp.tuned.int21" "$work/mlp.again.int21" && echo identical || echo different)"

# 2. Transfer.
for m in mlp resnet18; do
  "$bin/int21-compile" "$models/$m.onnx" "${tune[@]}" --budget "$seed_budget" \
    --kb "$work/seeded.sqlite" -o "$work/$m.seed.int21" 2>/dev/null | tail -1 | sed "s/^/seed $m: /"
done
"$bin/int21-compile" "$models/encoder.onnx" --target=cpu --no-kb -o "$work/encoder.default.int21"
"$bin/int21-compile" "$models/encoder.onnx" "${tune[@]}" --budget "$budget" \
  --kb "$work/cold.sqlite" -o "$work/encoder.cold.int21" 2>/dev/null >"$work/cold.txt"
kernels=$(sed -n 's/^tuned \([0-9]*\) kernels in.*/\1/p' "$work/cold.txt")
warm_budget=$(( ($(trials "$work/cold.txt") / 5) - kernels ))
cp "$work/seeded.sqlite" "$work/warm.sqlite"
"$bin/int21-compile" "$models/encoder.onnx" "${tune[@]}" --budget "$warm_budget" \
  --kb "$work/warm.sqlite" --tune-log "$work/warm.jsonl" -o "$work/encoder.warm.int21" \
  2>/dev/null >"$work/warm.txt"
# The control: as few trials without the knowledge base.
"$bin/int21-compile" "$models/encoder.onnx" "${tune[@]}" --budget "$warm_budget" \
  --no-kb -o "$work/encoder.control.int21" 2>/dev/null >"$work/control.txt"
table="$(latency "$work/encoder.default.int21" "$work/encoder.cold.int21" "$work/encoder.warm.int21" "$work/encoder.control.int21")"
t_default=$(ms "$work/encoder.default.int21" "$table")
t_cold=$(ms "$work/encoder.cold.int21" "$table")
t_warm=$(ms "$work/encoder.warm.int21" "$table")
echo "encoder default: $t_default ms"
echo "encoder cold: $(trials "$work/cold.txt") trials, $t_cold ms ($(tail -1 "$work/cold.txt"))"
echo "encoder warm: $(trials "$work/warm.txt") trials ($warm_budget beyond $kernels defaults), $t_warm ms ($(tail -1 "$work/warm.txt"))"
echo "encoder control (no knowledge base): $(trials "$work/control.txt") trials, $(ms "$work/encoder.control.int21" "$table") ms ($(tail -1 "$work/control.txt"))"
echo "knowledge-agent trials in the warm search: $(grep -c '"agent":"knowledge"' "$work/warm.jsonl" || true)"
awk -v c="$t_cold" -v w="$t_warm" -v tc="$(trials "$work/cold.txt")" -v tw="$(trials "$work/warm.txt")" \
  'BEGIN { printf "warm/cold latency: %.3f (bar: at most 1.05); warm/cold trials: %.3f (bar: at most 0.2)\n", w / c, tw / tc }'

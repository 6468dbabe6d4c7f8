#!/usr/bin/env bash
# The agent team against the random agent at equal budget, on the shared
# models' kernels, over three seeds: how many of the random agent's trials
# the team needs to reach the random search's best time (bench/agents_vs_random.py).
# Usage: bench/agents-vs-random.sh [BUDGET=default] [MODELS="mlp encoder resnet18"] [SEEDS="1 2 3"]
# BUDGET is trials per run; "default" is int21-compile's own (20 per kernel).
# Env: INT21_BIN (the tools, default build/bin; skips the build),
#      INT21_BUILD_DIR (default build), MODELS (default ../shared/models),
#      KEEP_LOGS=DIR to keep the tuning logs,
#      TUNE_THREADS (default 1): threads the kernels are timed on; one keeps
#      the figures comparable with earlier runs and least disturbed by the
#      machine (the comparison is of the searches, not of the threads).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
budget="${1:-default}"
names="${2:-mlp encoder resnet18}"
seeds="${3:-1 2 3}"
if [ -z "${INT21_BIN:-}" ]; then
  "$root/scripts/build.sh" >/dev/null
fi
bin="${INT21_BIN:-${INT21_BUILD_DIR:-$root/build}/bin}"
dir="${MODELS:-$root/../shared/models}"
source "$root/bench/machine.sh"
work="${KEEP_LOGS:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "${KEEP_LOGS:-}" ] || trap 'rm -rf "$work"' EXIT

machine_line "; budget $budget trials per run, kernels timed on ${TUNE_THREADS:-1} thread(s)"
for m in $names; do
  for s in $seeds; do
    for who in random team; do
      extra=()
      [ "$who" = random ] && extra=(--agents=random)
      [ "$budget" = default ] || extra+=(--budget "$budget")
      "$bin/int21-compile" "$dir/$m.onnx" --no-kb --target=cpu --tune \
        --tune-threads "${TUNE_THREADS:-1}" --seed "$s" "${extra[@]}" --tune-log "$work/$m-$who-$s.jsonl" \
        -o "$work/$m.int21" 2>/dev/null | sed "s/^/$m $who seed $s: /"
    done
  done
done
/usr/bin/python3 "$root/bench/agents_vs_random.py" "$work"

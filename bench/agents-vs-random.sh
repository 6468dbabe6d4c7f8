#!/usr/bin/env bash
# The agent team against the random agent at equal budget, on the shared
# models' kernels, over three seeds: how many of the random agent's trials
# the team needs to reach the random search's best time (bench/agents_vs_random.py).
# Usage: bench/agents-vs-random.sh [BUDGET=60] [MODELS="mlp encoder resnet18"] [SEEDS="1 2 3"]
# Env: INT21_BUILD_DIR (default build), MODELS (default ../shared/models),
#      KEEP_LOGS=DIR to keep the tuning logs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
budget="${1:-60}"
names="${2:-mlp encoder resnet18}"
seeds="${3:-1 2 3}"
source "$root/bench/common.sh"
dir="$models"
work="${KEEP_LOGS:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "${KEEP_LOGS:-}" ] || trap 'rm -rf "$work"' EXIT

machine_line "; budget $budget trials per run"
for m in $names; do
  for s in $seeds; do
    for who in random team; do
      agents=()
      [ "$who" = random ] && agents=(--agents=random)
      "$build/bin/int21-compile" "$dir/$m.onnx" --no-kb --target=cpu --tune --budget "$budget" \
        --seed "$s" "${agents[@]}" --tune-log "$work/$m-$who-$s.jsonl" \
        -o "$work/$m.int21" 2>/dev/null | sed "s/^/$m $who seed $s: /"
    done
  done
done
/usr/bin/python3 "$root/bench/agents_vs_random.py" "$work"

#!/usr/bin/env bash
# The main job: build, then tune a small transformer (the shared encoder
# model: two layers, d=256, 4 heads) on this machine with the agent search,
# check the tuned engine against the outputs PyTorch recorded, and time it
# against the engine of the default schedules. The winners go into the
# default knowledge base ($XDG_CACHE_HOME/int21/kb.sqlite): a second run
# reuses them without a trial.
# Usage: scripts/demo.sh [SECONDS=150]   (the search's time; ~3 min in all)
# Env: INT21_BUILD_DIR (default build), INT21_MODELS (default ../shared/models),
#      INT21_DEMO_REPORT (default build/demo-report).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-150}"
"$root/scripts/build.sh"
build="${INT21_BUILD_DIR:-$root/build}"
models="${INT21_MODELS:-$root/../shared/models}"
report="${INT21_DEMO_REPORT:-$build/demo-report}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

if [ ! -f "$models/encoder.onnx" ]; then
  echo "(no ../shared/models here: showing fusion groups of examples/mlp-block.mlir)"
  "$build/bin/int21-opt" "$root/examples/mlp-block.mlir" --canonicalize --int21-form-fusion-groups
  exit 0
fi

model="$models/encoder.onnx"
data="$models/encoder/test_data_set_0"
echo "== tuning $(basename "$model") on this machine for at most ${seconds} s"
rm -rf "$report"
"$build/bin/int21-compile" "$model" --target=cpu --tune --time "$seconds" \
  --report "$report" -o "$out/tuned.int21" | tee "$out/tune.txt"
"$build/bin/int21-compile" "$model" --no-kb --target=cpu -o "$out/default.int21"

echo "== the tuned engine against PyTorch's output"
"$build/bin/int21-run" "$out/tuned.int21" --input "input=$data/input_0.pb" \
  --expect "$data" --atol 1e-5

# Both engines on the threads an engine runs on by default (the physical
# cores), which are those the search timed the kernels on. A process on a
# shared or virtual machine may run all its parallel loops slowly (threads
# placed on one core): three rounds, alternating, each engine's best median.
echo "== whole-model latency on the engine's default threads (the kernels were tuned on as many)"
for _ in 1 2 3; do
  for e in default tuned; do
    "$build/bin/int21-run" "$out/$e.int21" --bench 50 | tee -a "$out/bench.txt" |
      sed -n 's/.*median=\([0-9.]*\).*/\1/p' >>"$out/$e.times"
  done
done
t_default=$(sort -n "$out/default.times" | head -1)
t_tuned=$(sort -n "$out/tuned.times" | head -1)
echo "   $(sed -n 's/.*threads=\([0-9]*\).*/\1/p' "$out/bench.txt" | head -1) threads, best of 3 rounds:" \
  "default schedules: ${t_default} ms, tuned: ${t_tuned} ms:" \
  "speed-up $(awk -v a="$t_default" -v b="$t_tuned" 'BEGIN { printf "%.2fx", a / b }')"
echo "   the search's own estimate (kernels timed alone):" \
  "$(tail -1 "$out/tune.txt" | sed -n 's/.*: \([0-9.]*x\) faster than the default schedules.*/\1/p')"
echo "   report: $report/report.md (convergence plots: $report/kernel-*.svg)"
echo "   knowledge base: $("$build/bin/int21-kb" check | cut -d: -f1)" \
  "(run the demo again: every kernel comes from it, no trial; int21-kb list shows them)"

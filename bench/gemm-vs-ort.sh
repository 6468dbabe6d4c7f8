#!/usr/bin/env bash
# One CPU GEMM (MatMul of two SIZE x SIZE f32 matrices) on one thread: the
# default int21 schedule, the same template with given knobs, a tuned engine,
# and ONNX Runtime's MatMul, timed one after the other in one run, printed as
# GFLOP/s side by side. B is a weight (an initializer, as in real models) and,
# in a second model, an input.
#
# Usage: bench/gemm-vs-ort.sh [KNOBS...]
#   KNOBS: --schedule-knobs strings, one engine each, e.g.
#          cpu.matmul.pack_b=1,cpu.matmul.reg_m=12,cpu.matmul.reg_n=32
# Env: SIZE (1024), RUNS per round (30), ROUNDS (5), INT21_BUILD_DIR (build),
#      INT21_BIN (the tools to time, default build/bin; skips the build),
#      TUNE_FLAGS (--tune --budget 40 --tune-threads 1),
#      BASELINE_BIN: the tools of an earlier commit (e.g. the one that closed
#      the CPU issue, built in a worktree); its default engine is compiled and
#      timed with those tools, in the same rounds, as column `baseline`.
#
# The machine may be shared: every engine and ORT run ROUNDS times,
# interleaved, and each column reports the best round: `med` from the lowest
# round median, `best` from the fastest single run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
size="${SIZE:-1024}"
runs="${RUNS:-30}"
rounds="${ROUNDS:-5}"

source "$root/bench/common.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 - "$work" "$size" <<'EOF'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

work, n = sys.argv[1], int(sys.argv[2])
info = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [n, n])
node = helper.make_node("MatMul", ["A", "B"], ["Y"])
weight = numpy_helper.from_array(
    np.random.RandomState(0).uniform(-1, 1, (n, n)).astype(np.float32), "B")
graphs = {
    "weight": helper.make_graph([node], "gemm", [info("A")], [info("Y")],
                                initializer=[weight]),
    "input": helper.make_graph([node], "gemm", [info("A"), info("B")],
                               [info("Y")]),
}
for name, graph in graphs.items():
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, f"{work}/{name}.onnx")
EOF

# Columns: default, each KNOBS string, tuned, ORT. The tuned engine is the
# search's pick (`int21-compile --tune`, lib/AgentSearch); TUNE_FLAGS replaces
# those flags (default: --tune --budget 40, kernels timed on one thread).
labels=(default)
knobs=("")
for k in "$@"; do
  labels+=("knobs$((${#labels[@]}))")
  knobs+=("$k")
done
tune=1
baseline="${BASELINE_BIN:-}"

for model in weight input; do
  if [ -n "$baseline" ]; then
    "$baseline/int21-compile" "$work/$model.onnx" --target=cpu \
      -o "$work/$model.baseline.int21"
  fi
  for i in "${!labels[@]}"; do
    args=()
    [ -n "${knobs[$i]}" ] && args=(--schedule-knobs "${knobs[$i]}")
    "$bin/int21-compile" "$work/$model.onnx" --no-kb --target=cpu "${args[@]}" \
      -o "$work/$model.${labels[$i]}.int21"
  done
  if [ "$tune" = 1 ]; then
    # shellcheck disable=SC2086 # TUNE_FLAGS is a list of flags.
    "$bin/int21-compile" "$work/$model.onnx" --no-kb --target=cpu ${TUNE_FLAGS:---tune --budget 40 --tune-threads 1} \
      -o "$work/$model.tuned.int21" 2>/dev/null | sed "s/^/# tuned, B $model: /" >>"$work/tune.txt"
  fi
done

for _ in $(seq "$rounds"); do
  for model in weight input; do
    engines=("${labels[@]}")
    [ "$tune" = 1 ] && engines+=(tuned)
    [ -n "$baseline" ] && engines+=(baseline)
    for e in "${engines[@]}"; do
      run="$bin/int21-run"
      [ "$e" = baseline ] && run="$baseline/int21-run"
      "$run" "$work/$model.$e.int21" --bench "$runs" --threads 1 |
        sed -n 's/.*median=\([0-9.]*\) min=\([0-9.]*\).*/\1 \2/p' >>"$work/$model.$e.times"
    done
    (cd "$ort" && node ort_bench.js "$work/$model.onnx" 1 "$runs") |
      sed -n 's/.*median_ms=\([0-9.]*\) min_ms=\([0-9.]*\).*/\1 \2/p' >>"$work/$model.ort.times"
  done
done

gflops() { awk -v n="$size" -v ms="$1" 'BEGIN { printf "%.1f", 2 * n * n * n / (ms * 1e6) }'; }
machine_line ""
echo "# MatMul ${size}x${size}x${size} f32, 1 thread, GFLOP/s; $rounds rounds of $runs runs"
columns=("${labels[@]}" tuned)
[ -n "$baseline" ] && columns+=(baseline)
columns+=(ort)
printf '%-7s' B
for c in "${columns[@]}"; do printf ' %15s' "$c(med/best)"; done
echo
for model in weight input; do
  printf '%-7s' "$model"
  for c in "${columns[@]}"; do
    f="$work/$model.$c.times"
    if [ ! -s "$f" ]; then
      printf ' %15s' "n/a"
      continue
    fi
    med=$(sort -n -k1,1 "$f" | head -1 | cut -d' ' -f1)
    min=$(sort -n -k2,2 "$f" | head -1 | cut -d' ' -f2)
    printf ' %15s' "$(gflops "$med")/$(gflops "$min")"
  done
  echo
done
for i in "${!labels[@]}"; do
  [ -n "${knobs[$i]}" ] && echo "# ${labels[$i]}: --schedule-knobs ${knobs[$i]}"
done
echo "# tuned: int21-compile ${TUNE_FLAGS:---tune --budget 40 --tune-threads 1}"
[ -n "$baseline" ] && echo "# baseline: $baseline/int21-compile (default schedule)"
cat "$work/tune.txt"

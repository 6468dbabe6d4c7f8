#!/usr/bin/env bash
# Dynamic dimensions (issue 23): torchvision models exported with a dynamic
# batch and image size (bench/dynamic_export.py), each compiled once into a
# dynamic engine and once more with a shape profile, both run at every shape
# of SHAPES against torch (relative L2, bar 1e-4); then, at the first shape,
# the dynamic engine (generic code) and the profiled engine (--shape-profile
# with the first shape as its opt shape: its specialised code) timed against
# a static engine of that shape (--input-shape), alternated for ROUNDS
# rounds, the best of the rounds' medians kept, one thread. Prints a
# markdown table.
# Usage: bench/dynamic.sh [RUNS=10] [ROUNDS=3]
# Env: DYNAMIC_DIR (the exports, default $XDG_CACHE_HOME/int21/dynamic),
#      NAMES (default below), SHAPES (NxHxW,..., default
#      1x64x64,3x64x64,8x64x64,2x96x80; the first is timed),
#      INT21_BUILD_DIR / INT21_BIN as bench/tools.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-10}"
rounds="${2:-3}"
source "$root/bench/tools.sh"
require_torchvision dynamic
dir="${DYNAMIC_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/int21/dynamic}"
names="${NAMES:-resnet18 mobilenet_v2 mobilenet_v3_small efficientnet_b0 mnasnet1_0 regnet_y_400mf squeezenet1_1 googlenet convnext_tiny}"
shapes="${SHAPES:-1x64x64,3x64x64,8x64x64,2x96x80}"
/usr/bin/python3 "$root/bench/dynamic_export.py" "$dir" "$shapes" $names >/dev/null
first="${shapes%%,*}"
n="${first%%x*}"; hw="${first#*x}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

median() { sed -n 's/.*median=\([0-9.]*\).*/\1/p'; }
echo "| model | compile | worst rel. L2 over $shapes | dynamic ms | static ms | dynamic / static | profiled at opt ms | profiled / static |"
echo "|---|---|---|---|---|---|---|---|"
for name in $names; do
  if ! "$bin/int21-compile" "$dir/$name.onnx" --target=cpu -o "$work/d.int21" \
       >"$work/err" 2>&1; then
    echo "| $name | fails: $(head -c 160 "$work/err" | tr '\n|' '  ') | | | | | | |"
    continue
  fi
  "$bin/int21-compile" "$dir/$name.onnx" --target=cpu -o "$work/s.int21" \
    --input-shape "input=${n}x3x${hw}" >/dev/null 2>&1
  # The profile spans every shape run here; its opt shape is the first.
  "$bin/int21-compile" "$dir/$name.onnx" --target=cpu -o "$work/p.int21" \
    --shape-profile "input=1x3x32x32:${n}x3x${hw}:8x3x512x512" >/dev/null 2>&1
  worst=0
  k=0
  for s in ${shapes//,/ }; do
    # Both engines: the profiled one runs the first shape on its
    # specialised code, the others on its generic code.
    for engine in d p; do
      l2=$("$bin/int21-run" "$work/$engine.int21" \
             --input "input=$dir/$name/set_$k/input_0.pb" \
             --expect "$dir/$name/set_$k" --atol 1 --rtol 1 |
           sed -n 's/.*rel_l2=\([0-9.e+-]*\).*/\1/p')
      worst=$(/usr/bin/python3 -c "print(max($worst, float('${l2:-inf}')))")
    done
    k=$((k + 1))
  done
  best_d=""; best_s=""; best_p=""
  for r in $(seq "$rounds"); do
    d=$("$bin/int21-run" "$work/d.int21" --input-shape "input=${n}x3x${hw}" \
          --bench "$runs" --threads 1 | median)
    s=$("$bin/int21-run" "$work/s.int21" --bench "$runs" --threads 1 | median)
    best_d=$(/usr/bin/python3 -c "print(min(float('${best_d:-inf}'), $d))")
    p=$("$bin/int21-run" "$work/p.int21" --input-shape "input=${n}x3x${hw}" \
          --bench "$runs" --threads 1 | median)
    best_s=$(/usr/bin/python3 -c "print(min(float('${best_s:-inf}'), $s))")
    best_p=$(/usr/bin/python3 -c "print(min(float('${best_p:-inf}'), $p))")
  done
  ratio=$(/usr/bin/python3 -c "print(f'{$best_d / $best_s:.1f}')")
  pratio=$(/usr/bin/python3 -c "print(f'{$best_p / $best_s:.2f}')")
  echo "| $name | ok | $(printf '%.1e' "$worst") | $best_d | $best_s | $ratio | $best_p | $pratio |"
done

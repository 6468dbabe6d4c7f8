#!/usr/bin/env bash
# Transformers with a dynamic batch and sequence length (issue 23): the
# shared encoder and a decoder with a causal mask (bench/dynamic_transformers.py),
# each compiled once into a dynamic engine, run at every shape of SHAPES
# against torch (relative L2, bar 1e-4), and timed at each shape against a
# static engine of that shape (--input-shape), alternated for ROUNDS rounds,
# the best of the rounds' medians kept, one thread; the encoder also against
# ONNX Runtime on the same dynamic export (bench/ort_dynamic.js). Prints a
# markdown table.
# Usage: bench/dynamic-transformers.sh [RUNS=30] [ROUNDS=3]
# Env: DYNAMIC_DIR (the exports, default $XDG_CACHE_HOME/int21/transformers),
#      SHAPES (BxT,..., default 1x77,1x128,1x200,4x64),
#      INT21_BUILD_DIR / INT21_BIN as bench/tools.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-30}"
rounds="${2:-3}"
source "$root/bench/common.sh"
require_torchvision dynamic-transformers
cp "$root/bench/ort_dynamic.js" "$ort/"
dir="${DYNAMIC_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/int21/transformers}"
shapes="${SHAPES:-1x77,1x128,1x200,4x64}"
/usr/bin/python3 "$root/bench/dynamic_transformers.py" "$dir" "$shapes" >/dev/null 2>&1
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

median() { sed -n 's/.*median=\([0-9.]*\).*/\1/p'; }
best() { /usr/bin/python3 -c "print(min(float('${1:-inf}'), float('$2')))"; }
echo "| model | shape | rel. L2 | generic ms | static ms | generic / static | ORT ms |"
echo "|---|---|---|---|---|---|---|"
for name in encoder decoder; do
  "$bin/int21-compile" "$dir/$name.onnx" --target=cpu -o "$work/d.int21" >/dev/null
  k=0
  for s in ${shapes//,/ }; do
    b="${s%%x*}"; t="${s#*x}"
    inputs=(--input "input=$dir/$name/set_$k/input_0.pb")
    shape_args=(--input-shape "input=${b}x${t}x256")
    if [ "$name" = decoder ]; then
      inputs+=(--input "memory=$dir/$name/set_$k/input_1.pb")
      shape_args+=(--input-shape "memory=${b}x$((t + 5))x256")
    fi
    l2=$("$bin/int21-run" "$work/d.int21" "${inputs[@]}" --expect "$dir/$name/set_$k" \
           --atol 1 --rtol 1 | sed -n 's/.*rel_l2=\([0-9.e+-]*\).*/\1/p')
    "$bin/int21-compile" "$dir/$name.onnx" --target=cpu -o "$work/s.int21" \
      "${shape_args[@]}" >/dev/null
    best_d=""; best_s=""; best_o=""
    for r in $(seq "$rounds"); do
      best_d=$(best "$best_d" "$("$bin/int21-run" "$work/d.int21" "${inputs[@]}" \
                 --bench "$runs" --threads 1 | median)")
      best_s=$(best "$best_s" "$("$bin/int21-run" "$work/s.int21" "${inputs[@]}" \
                 --bench "$runs" --threads 1 | median)")
      if [ "$name" = encoder ]; then
        o=$(cd "$ort" && SHAPE="${b}x${t}x256" node ort_dynamic.js "$dir/$name.onnx" 1 "$runs" |
            sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
        best_o=$(best "$best_o" "$o")
      fi
    done
    ratio=$(/usr/bin/python3 -c "print(f'{$best_d / $best_s:.2f}')")
    echo "| $name | $s | $l2 | $best_d | $best_s | $ratio | ${best_o:-} |"
    k=$((k + 1))
  done
done

#!/usr/bin/env bash
# The model zoo against torch and ONNX Runtime: exports (bench/zoo_export.py,
# cached), compiles each model with int21 (the default engine, and with
# TUNE_TIME set a tuned one too), checks each engine against torch's output
# for the same input (relative L2, bar 1e-4), and times int21 and ONNX
# Runtime (CPU) at each thread count, alternated model by model for ROUNDS
# rounds, the best of the rounds' medians kept. Prints a markdown table and
# the geometric mean of int21 / ORT per thread count.
# Usage: bench/zoo.sh [RUNS=30] [THREADS="1 2"] [ROUNDS=3]
# Env: ZOO_DIR (the exports, default $XDG_CACHE_HOME/int21/zoo), NAMES (the
#      models, default all of bench/zoo_export.py), TUNE_TIME (seconds of
#      --tune per model; unset: default engines only), BEFORE_BIN (a second
#      int21-compile's directory, e.g. an older build, timed beside it),
#      INT21_BUILD_DIR / INT21_BIN as bench/tools.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-30}"
threads="${2:-1 2}"
rounds="${3:-3}"
source "$root/bench/common.sh"

require_torchvision zoo
zoo="${ZOO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/int21/zoo}"
mkdir -p "$zoo"
names="${NAMES:-$(/usr/bin/python3 -c "import sys; sys.path.insert(0, '$root/bench'); import zoo_export; print(' '.join(zoo_export.DEFAULT))")}"
/usr/bin/python3 "$root/bench/zoo_export.py" "$zoo" $names >/dev/null

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
kinds="default"
[ -n "${TUNE_TIME:-}" ] && kinds="$kinds tuned"
[ -n "${BEFORE_BIN:-}" ] && kinds="before $kinds"

# The engines, each checked against torch.
declare -A engine check
for m in $names; do
  data="$zoo/$m/test_data_set_0"
  inputs=()
  for f in "$data"/input_*.pb; do
    name=$(/usr/bin/python3 -c "import onnx, sys; t = onnx.TensorProto(); t.ParseFromString(open(sys.argv[1], 'rb').read()); print(t.name)" "$f")
    inputs+=(--input "$name=$f")
  done
  for kind in $kinds; do
    compiler="$bin/int21-compile"
    flags=(--target=cpu --no-kb)
    [ "$kind" = before ] && compiler="$BEFORE_BIN/int21-compile"
    [ "$kind" = tuned ] && flags=(--target=cpu --tune --time="$TUNE_TIME" --kb "$work/kb.sqlite")
    out="$work/$m.$kind.int21"
    if ! "$compiler" "$zoo/$m/model.onnx" "${flags[@]}" -o "$out" >"$work/$m.$kind.log" 2>&1; then
      check[$m.$kind]="compile failed: $(grep -m1 error "$work/$m.$kind.log" | cut -c1-120)"
      continue
    fi
    engine[$m.$kind]="$out"
    # (int21-run exits 1 when an element is beyond its tolerance; the
    # relative L2 over the whole output is the bar here.)
    rel=$("$bin/int21-run" "$out" "${inputs[@]}" --expect "$data" --rtol 1e-4 2>&1 |
      sed -n 's/.*rel_l2=\([0-9.e+-]*\).*/\1/p' | head -1 || true)
    check[$m.$kind]="${rel:-no output}"
  done
done

# Timing: every engine and ORT, model by model, round by round.
declare -A best
better() { # best[$1] = min(best[$1], $2)
  local key=$1 value=$2
  [ -z "$value" ] && return
  if [ -z "${best[$key]:-}" ] || awk -v a="$value" -v b="${best[$key]}" 'BEGIN { exit !(a < b) }'; then
    best[$key]=$value
  fi
}
for round in $(seq "$rounds"); do
  for t in $threads; do
    for m in $names; do
      for kind in $kinds; do
        [ -n "${engine[$m.$kind]:-}" ] || continue
        better "$m.$kind.$t" "$("$bin/int21-run" "${engine[$m.$kind]}" --bench "$runs" --threads "$t" |
          sed -n 's/.*median=\([0-9.]*\).*/\1/p')"
      done
      better "$m.ort.$t" "$(cd "$ort" && node ort_bench.js "$zoo/$m/model.onnx" "$t" "$runs" 2>/dev/null |
        sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')"
    done
  done
done

machine_line ""
echo "zoo: $zoo; $rounds rounds of $runs runs, best median (ms)"
header="| model | threads |"
rule="| --- | --- |"
for kind in $kinds; do header="$header $kind | rel L2 |"; rule="$rule --- | --- |"; done
echo "$header ORT | default / ORT |"
echo "$rule --- | --- |"
declare -A logsum count
for t in $threads; do
  for m in $names; do
    line="| $m | $t |"
    for kind in $kinds; do
      line="$line ${best[$m.$kind.$t]:--} | ${check[$m.$kind]:--} |"
    done
    ours=${best[$m.default.$t]:-}
    theirs=${best[$m.ort.$t]:-}
    ratio=-
    if [ -n "$ours" ] && [ -n "$theirs" ]; then
      ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')
      logsum[$t]=$(awk -v s="${logsum[$t]:-0}" -v r="$ratio" 'BEGIN { print s + log(r) }')
      count[$t]=$(( ${count[$t]:-0} + 1 ))
    fi
    echo "$line ${theirs:--} | $ratio |"
  done
done
for t in $threads; do
  [ -n "${count[$t]:-}" ] &&
    awk -v s="${logsum[$t]}" -v n="${count[$t]}" -v t="$t" \
      'BEGIN { printf "geometric mean of default / ORT at %s thread(s), %d models: %.2f\n", t, n, exp(s / n) }'
done

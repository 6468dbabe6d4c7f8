#!/usr/bin/env bash
# int21-kb export of a large knowledge base (issue 22: under 10 s for 20000
# records): one matmul tuned into a fresh knowledge base, its record copied
# RECORDS - 1 times under other signatures, loop sizes (ten in turn) and
# knob values (50 schedules, each on all ten sizes, so that shape classes
# form too), then `int21-kb check` and `int21-kb export` timed ROUNDS times
# each; the best and the median are printed, with the library's size and
# schedule count.
# Usage: bench/kb-export.sh [RECORDS=20000] [ROUNDS=3]
# Env: INT21_BIN (the tools, default build/bin; skips the build).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
records="${1:-20000}"
rounds="${2:-3}"
source "$root/bench/tools.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$bin/int21-compile" "$root/test/AgentSearch/Inputs/linear-relu.onnxtext" \
  --target=cpu --tune --tune-threads 1 --budget 1 --jobs 2 --seed 5 \
  --measure-seconds 0.02 --kb "$work/kb.sqlite" -o "$work/tuned.int21" >/dev/null
/usr/bin/python3 - "$work/kb.sqlite" "$records" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
columns = [row[1] for row in db.execute("PRAGMA table_info(records)") if row[1] != "id"]
first = list(db.execute(f"SELECT {', '.join(columns)} FROM records WHERE id = 1").fetchone())
sig, dims, knobs = (columns.index(c) for c in ("signature", "dims", "knobs"))
m, n_, k = (int(d) for d in first[dims].split("x"))
base = json.loads(first[knobs])
rows = []
for i in range(1, n):
    row = list(first)
    row[sig] = f"{i:016x}"
    row[dims] = f"{m * (1 + i % 10)}x{n_}x{k}"
    # Knobs of their own too, as a tuned knowledge base has.
    # (ten consecutive copies, one per shape, share theirs: shape classes).
    j = i // 10
    values = dict(base, par_m=(8, 16, 32, 64, 128)[j % 5],
                  reg_n=(8, 16, 32, 48, 64)[(j // 5) % 5], pack_b=(j // 25) % 2)
    row[knobs] = json.dumps(values, separators=(",", ":"), sort_keys=True)
    rows.append(row)
db.executemany(f"INSERT INTO records({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)
db.commit()
PY

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { sort -n | head -1; }
timeit() { # COMMAND... -> seconds
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
machine_line "; int21-kb on $records records, $rounds rounds"
: >"$work/check.s"; : >"$work/export.s"
for _ in $(seq "$rounds"); do
  timeit "$bin/int21-kb" check --kb "$work/kb.sqlite" >>"$work/check.s"
  timeit "$bin/int21-kb" export --kb "$work/kb.sqlite" --target cpu -o "$work/lib.mlir" >>"$work/export.s"
done
schedules=$(grep -m1 -o '[0-9]* schedules' "$work/lib.mlir")
classes=$(grep -c '^  // Shape class of' "$work/lib.mlir" || true)
printf 'int21-kb check   best %.2f s, median %.2f s\n' "$(best <"$work/check.s")" "$(median <"$work/check.s")"
printf 'int21-kb export  best %.2f s, median %.2f s (%s, %s shape classes, %s MB)\n' \
  "$(best <"$work/export.s")" "$(median <"$work/export.s")" "$schedules" "$classes" \
  "$(du -m "$work/lib.mlir" | cut -f1)"

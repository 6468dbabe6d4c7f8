#!/usr/bin/env bash
# Fuzzes int21 with libFuzzer (clang-22, AddressSanitizer + UBSan): one
# target per input int21 reads (fuzz/int21-fuzz-*.cpp).
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags]   fuzz one target
#   scripts/fuzz.sh --replay [TARGET...]                run every file of the
#       checked-in corpus (fuzz/corpus/TARGET: seeds and each reproducer of a
#       finding) once: a regression test, no mutation
#   scripts/fuzz.sh --smoke SECONDS                     --replay, then every
#       target for a fixed number of runs (about SECONDS each) from a fixed
#       seed (what scripts/test.sh runs)
#   scripts/fuzz.sh --build                             configure and build
#       all of the sanitizer build (the tools and unit tests too)
#
# TARGET is one of: onnx engine kb agent ir. Seeds beyond the checked-in
# ones are made from the test inputs on first use (ONNX text models
# converted, engines compiled, a knowledge base tuned, IR split) under
# $INT21_FUZZ_WORK (default BUILD/fuzz-work), where new corpus entries and
# crash artifacts land too. A run ends with a line
#   fuzz TARGET: N runs in S s, cov C, ft F, corpus K, 0 crashes
# and exits non-zero on a crash, a hang, a leak or a sanitizer report.
# Env: INT21_FUZZ_BUILD_DIR (default build-fuzz), INT21_BUILD_DIR (the
# regular build whose tools make the seeds, default build).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" >/dev/null || exit 1
targets=(onnx engine kb agent ir)
# Leaks are findings; LLVM's threads set alternate signal stacks of their
# own, which ASan's would then fail to unmap.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:use_sigaltstack=0}"
fuzz_build="${INT21_FUZZ_BUILD_DIR:-$root/build-fuzz}"
build="${INT21_BUILD_DIR:-$root/build}"
work="${INT21_FUZZ_WORK:-$fuzz_build/fuzz-work}"

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
known() { local t; for t in "${targets[@]}"; do [ "$t" = "$1" ] && return 0; done; return 1; }

# Clang and libFuzzer's runtime, then the fuzz build.
build_fuzzers() {
  local missing=()
  for pkg in clang-22 libclang-rt-22-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "fuzz: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
      { echo "fuzz: cannot install ${missing[*]}"; exit 1; }
  fi
  if [ ! -f "$fuzz_build/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$fuzz_build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DINT21_ENABLE_FUZZERS=ON -DINT21_ENABLE_PYTHON=OFF \
      -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null || { echo "fuzz: configuring $fuzz_build failed"; exit 1; }
  fi
  # Every fuzz target, everything (all), or the targets named: a run of one
  # target relinks only its own binary, so that campaigns of other targets
  # can go on running theirs.
  local what=(--target "${targets[@]/#/int21-fuzz-}")
  [ "${1:-}" = all ] && what=()
  [ $# -gt 0 ] && [ "$1" != all ] && what=(--target "${@/#/int21-fuzz-}")
  cmake --build "$fuzz_build" -j "$(nproc)" "${what[@]}" >"$fuzz_build/fuzz-build.log" 2>&1 ||
    { tail -30 "$fuzz_build/fuzz-build.log"; echo "fuzz: the build failed"; exit 1; }
}

# Seeds made from the test inputs, once: $work/seeds/TARGET.
make_seeds() {
  local t="$1" dir="$work/seeds/$1"
  [ -f "$dir/.done" ] && return 0
  rm -rf "$dir" && mkdir -p "$dir"
  case "$t" in
    onnx)
      # Every ONNX text model of the tests, the bad ones included, in the
      # binary form int21-compile reads.
      /usr/bin/python3 - "$root/test" "$dir" <<'PY' || return 1
import hashlib, pathlib, sys
import onnx.parser
out = pathlib.Path(sys.argv[2])
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.onnxtext")):
    try:
        model = onnx.parser.parse_model(path.read_text())
    except Exception:
        continue
    data = model.SerializeToString()
    (out / (path.stem + "-" + hashlib.sha1(data).hexdigest()[:8] + ".onnx")).write_bytes(data)
PY
      ;;
    engine)
      "$root/scripts/build.sh" >/dev/null || return 1
      local m
      for m in "$root/test/AgentSearch/Inputs/linear-relu.onnxtext" "$root/test/Compiler/kernels.onnxtext"; do
        INT21_OBJECT_CACHE=off "$build/bin/int21-compile" "$m" --target=cpu --no-kb \
          -o "$dir/$(basename "$m" .onnxtext).int21" >/dev/null 2>&1 || return 1
      done
      ;;
    kb)
      "$root/scripts/build.sh" >/dev/null || return 1
      INT21_OBJECT_CACHE=off "$build/bin/int21-compile" "$root/test/AgentSearch/Inputs/linear-relu.onnxtext" \
        --target=cpu --tune --tune-threads 1 --budget 1 --jobs 2 --seed 5 --measure-seconds 0.02 \
        --kb "$dir/kb.sqlite" -o "$work/tuned.int21" >/dev/null 2>&1 || return 1
      # One file, no WAL beside it, as a seed must be.
      /usr/bin/python3 -c "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute('PRAGMA wal_checkpoint(TRUNCATE)'); db.execute('PRAGMA journal_mode=DELETE'); db.close()" "$dir/kb.sqlite" || return 1
      rm -f "$dir"/kb.sqlite-*
      cp "$dir/kb.sqlite" "$dir/twin.sqlite"
      /usr/bin/python3 "$root/test/AgentSearch/Inputs/clone-kb-record.py" "$dir/twin.sqlite" ffffffffffff >/dev/null || return 1
      ;;
    agent)
      # A reply nested 100k deep (it overflowed the JSON parser's stack).
      /usr/bin/python3 -c "print('{\"candidates\": ' + '['*100000 + ']'*100000 + '}')" >"$dir/deep-nesting.jsonl"
      ;;
    ir)
      # Each case of the dialect's and the passes' lit tests.
      /usr/bin/python3 - "$root/test" "$dir" <<'PY' || return 1
import hashlib, pathlib, sys
out = pathlib.Path(sys.argv[2])
for sub in ("Dialect", "Transforms"):
    for path in sorted((pathlib.Path(sys.argv[1]) / sub).rglob("*.mlir")):
        for case in path.read_text().split("// -----"):
            lines = [l for l in case.splitlines() if not l.lstrip().startswith("// RUN")]
            text = "\n".join(lines).strip() + "\n"
            if len(text) > 16:
                (out / (path.stem + "-" + hashlib.sha1(text.encode()).hexdigest()[:8] + ".mlir")).write_text(text)
PY
      ;;
  esac
  touch "$dir/.done"
}

# libFuzzer's flags for a target: its dictionary, the largest input, limits.
flags_of() {
  local f=(-timeout=30 -rss_limit_mb=6144 -malloc_limit_mb=4096 -print_final_stats=1)
  case "$1" in
    onnx) f+=(-max_len=262144) ;;
    # No crossover: libFuzzer's would splice the bytes of two engines' code,
    # and the code is native code, outside what the loader promises (its
    # own mutator never changes the code's bytes, see int21-fuzz-engine.cpp).
    engine) f+=(-max_len=1048576 -cross_over=0 "-dict=$root/fuzz/dict/json.dict") ;;
    kb) f+=(-max_len=1048576) ;;
    agent) f+=(-max_len=262144 "-dict=$root/fuzz/dict/json.dict") ;;
    ir) f+=(-max_len=65536) ;;
  esac
  printf '%s\n' "${f[@]}"
}

# The replay of fuzz/corpus/TARGET and the generated seeds: each file once.
replay() {
  local t="$1" log="$work/replay-$1.log" files
  make_seeds "$t" || { echo "fuzz $t: making the seeds failed"; return 1; }
  mapfile -t files < <(find "$root/fuzz/corpus/$t" "$work/seeds/$t" -type f ! -name .done 2>/dev/null | sort)
  # Without -runs a file list is executed once each.
  if "$fuzz_build/bin/int21-fuzz-$t" \
      $(flags_of "$t") "${files[@]}" >"$log" 2>&1; then
    echo "fuzz $t: replayed ${#files[@]} inputs, 0 crashes"
  else
    grep -E "ERROR|SUMMARY|runtime error|Running:" "$log" | tail -8
    echo "fuzz $t: replay FAILED (log: $log)"
    return 1
  fi
}

# A fuzzing run of SECONDS; extra flags after.
run() {
  local t="$1" seconds="$2"; shift 2
  local corpus="$work/corpus/$t" findings="$work/findings/$t/" log="$work/run-$t.log"
  mkdir -p "$corpus" "$findings"
  make_seeds "$t" || { echo "fuzz $t: making the seeds failed"; return 1; }
  "$fuzz_build/bin/int21-fuzz-$t" $(flags_of "$t") -max_total_time="$seconds" \
    -artifact_prefix="$findings" "$@" "$corpus" "$work/seeds/$t" \
    $( [ -d "$root/fuzz/corpus/$t" ] && echo "$root/fuzz/corpus/$t") >"$log" 2>&1
  local status=$?
  local runs cov ft size time
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
  time=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  size=$(find "$corpus" -type f | wc -l)
  if [ "$status" -ne 0 ]; then
    grep -E "ERROR|SUMMARY|runtime error|Test unit written|artifact" "$log" | tail -8
    echo "fuzz $t: ${runs:-?} runs, cov ${cov:-?}, ft ${ft:-?}: FAILED (exit $status; log: $log, input under $findings)"
    return 1
  fi
  echo "fuzz $t: ${runs:-0} runs in ${time:-$seconds} s, cov ${cov:-0}, ft ${ft:-0}, corpus $size, 0 crashes"
}

[ $# -ge 1 ] || usage
mkdir -p "$work"
case "$1" in
  --replay)
    shift
    [ $# -gt 0 ] || set -- "${targets[@]}"
    for t in "$@"; do known "$t" || usage; done
    build_fuzzers
    status=0
    for t in "$@"; do replay "$t" || status=1; done
    exit "$status"
    ;;
  --smoke)
    [ $# -eq 2 ] || usage
    build_fuzzers
    status=0
    for t in "${targets[@]}"; do replay "$t" || status=1; done
    # A fixed seed and a fixed number of runs (about SECONDS on a 2-core
    # machine; twice SECONDS at most): the same inputs every time, so the
    # tests pass or fail the same way on every machine and a finding is
    # one anybody reproduces with the same command.
    for t in "${targets[@]}"; do
      case "$t" in
        onnx) rate=500 ;; engine) rate=2000 ;; kb) rate=100 ;; agent) rate=1000 ;; ir) rate=150 ;;
      esac
      run "$t" "$((2 * $2))" -seed=1 -runs=$((rate * $2)) || status=1
    done
    exit "$status"
    ;;
  --build) build_fuzzers all ;;
  -h|--help) usage ;;
  *)
    [ $# -ge 2 ] && known "$1" || usage
    t="$1" seconds="$2"; shift 2
    build_fuzzers "$t"
    run "$t" "$seconds" "$@"
    ;;
esac

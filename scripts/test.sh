#!/usr/bin/env bash
# Builds int21, then runs every test: the lit suite, the GoogleTest unit
# tests and the Python package's pytest suite (python/tests). Prints each
# summary and a last line "int21: N passed, M failed"; exits non-zero when
# anything fails.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" || { echo "test: the build failed"; exit 1; }
build="${INT21_BUILD_DIR:-$root/build}"

passed=0
failed=0
status=0

echo "== lit: $build/test"
lit_log="$(mktemp)"
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$lit_log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
count() { sed -nE "s/^ *$1 *: *([0-9]+).*/\1/p" "$lit_log" | tail -1; }
p=$(count Passed); xf=$(count "Expectedly Failed"); f=$(count Failed); u=$(count Unresolved)
passed=$((passed + ${p:-0} + ${xf:-0}))
failed=$((failed + ${f:-0} + ${u:-0}))
rm -f "$lit_log"

echo "== unit tests"
gtest_log="$(mktemp)"
"$build/unittests/int21-unittests" --gtest_brief=1 2>&1 | tee "$gtest_log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
gp=$(grep -oE '\[  PASSED  \] [0-9]+' "$gtest_log" | grep -oE '[0-9]+' | tail -1)
gf=$(grep -oE '\[  FAILED  \] [0-9]+ test' "$gtest_log" | grep -oE '[0-9]+' | tail -1)
passed=$((passed + ${gp:-0}))
failed=$((failed + ${gf:-0}))
rm -f "$gtest_log"

# The Python package's tests (not part of lit: they run here, once). A build
# without the package (an AddressSanitizer one) skips them.
echo "== python: $root/python/tests"
if [ -f "$build/python/int21/__init__.py" ]; then
  py_log="$(mktemp)"
  (pythonpath="$(cd "$build" && pwd)/python" && cd "$root" &&
    PYTHONPATH="$pythonpath" PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests) 2>&1 | tee "$py_log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  pyCount() { grep -E '^=*.* in [0-9.]+s' "$py_log" | tail -1 | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+'; }
  pp=$(pyCount passed); pf=$(pyCount failed); pe=$(pyCount 'errors?')
  passed=$((passed + ${pp:-0}))
  failed=$((failed + ${pf:-0} + ${pe:-0}))
  rm -f "$py_log"
else
  echo "python: skipped, this build has no Python package"
fi

# The sanitizers and the fuzz targets (scripts/fuzz.sh): a second build with
# clang, AddressSanitizer and UBSan (build-fuzz/); in it the importer's,
# runtime's and knowledge base's lit and unit tests; then the checked-in
# reproducers replayed and every fuzz target for INT21_FUZZ_SECONDS (30;
# 0 skips this part).
fuzz_seconds="${INT21_FUZZ_SECONDS:-30}"
if [ "$fuzz_seconds" -gt 0 ]; then
  fuzz_build="${INT21_FUZZ_BUILD_DIR:-$root/build-fuzz}"
  echo "== sanitizers and fuzzing: $fuzz_build"
  if INT21_FUZZ_BUILD_DIR="$fuzz_build" "$root/scripts/fuzz.sh" --build; then
    san_log="$(mktemp)"
    # Leak checks are for the fuzz targets: the tools exit with MLIR's
    # contexts alive by design. LLVM's threads set alternate signal stacks
    # of their own, which ASan's (use_sigaltstack) then fails to unmap.
    # The search's tests that judge timings or expect a worker to die of a
    # plain signal are left to the regular build: ASan changes both.
    export ASAN_OPTIONS=detect_leaks=0:use_sigaltstack=0
    san_tests=("$fuzz_build/test/Import" "$fuzz_build/test/Runtime")
    for t in kb-bad-schedule kb-check kb-library kb-library-conv external-agent worker-request; do
      san_tests+=("$fuzz_build/test/AgentSearch/$t.test")
    done
    /usr/lib/llvm-22/bin/lit -sv "${san_tests[@]}" 2>&1 | tee "$san_log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    lit_log="$san_log"
    p=$(count Passed); f=$(count Failed); u=$(count Unresolved)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0} + ${u:-0}))
    "$fuzz_build/unittests/int21-unittests" --gtest_brief=1 \
      --gtest_filter='EngineFileTest.*:EngineTest.*:KnowledgeBaseTest.*:KnowledgeKeyTest.*:JSONTest.*:ParserGuardTest.*' \
      2>&1 | tee "$san_log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    gp=$(grep -oE '\[  PASSED  \] [0-9]+' "$san_log" | grep -oE '[0-9]+' | tail -1)
    gf=$(grep -oE '\[  FAILED  \] [0-9]+ test' "$san_log" | grep -oE '[0-9]+' | tail -1)
    passed=$((passed + ${gp:-0}))
    failed=$((failed + ${gf:-0}))
    unset ASAN_OPTIONS
    fuzz_log="$(mktemp)"
    INT21_FUZZ_BUILD_DIR="$fuzz_build" "$root/scripts/fuzz.sh" --smoke "$fuzz_seconds" 2>&1 | tee "$fuzz_log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    passed=$((passed + $(grep -cE '^fuzz [a-z]+: .*, 0 crashes$' "$fuzz_log")))
    failed=$((failed + $(grep -cE '^fuzz [a-z]+: .*FAILED' "$fuzz_log")))
    rm -f "$san_log" "$fuzz_log"
  else
    echo "test: the sanitizer build failed (see $fuzz_build/fuzz-build.log)"
    status=1
    failed=$((failed + 1))
  fi
fi

if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "int21: $passed passed, $failed failed"
exit "$status"

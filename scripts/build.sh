#!/usr/bin/env bash
# Configures (once) and builds int21 with Ninja into build/ (or $INT21_BUILD_DIR).
# Extra arguments go to CMake at configure time, e.g. -DINT21_ENABLE_ASAN=ON.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"

build="${INT21_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ] || [ $# -gt 0 ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "$@"
fi
cmake --build "$build" -j "$(nproc)"

#!/usr/bin/env bash
# The main job, as far as int21 goes today: build, then take an example
# through int21-opt (verify, canonicalise, form fusion groups).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
build="${INT21_BUILD_DIR:-$root/build}"

echo "== int21-opt: fusion groups for examples/mlp-block.mlir"
"$build/bin/int21-opt" "$root/examples/mlp-block.mlir" \
  --canonicalize --int21-form-fusion-groups

#!/usr/bin/env bash
# The main job, as far as int21 goes today: build, import the shared ONNX
# models into the int21 dialect, and form the fusion groups (future kernels)
# of the MLP. Later issues grow this into compile, tune and run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
build="${INT21_BUILD_DIR:-$root/build}"
models="${INT21_MODELS:-$root/../shared/models}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

if [ -d "$models" ]; then
  for m in mlp encoder resnet18; do
    [ -f "$models/$m.onnx" ] || continue
    echo "== import $m.onnx"
    start=$(date +%s%N)
    "$build/bin/int21-compile" "$models/$m.onnx" --emit=int21 -o "$out/$m.mlir"
    end=$(date +%s%N)
    echo "   $(grep -c '= int21\.' "$out/$m.mlir") int21 ops in $(((end - start) / 1000000)) ms"
  done
  input="$out/mlp.mlir"
else
  echo "(no ../shared/models here: using examples/mlp-block.mlir)"
  input="$root/examples/mlp-block.mlir"
fi

echo "== int21-opt: fusion groups of $(basename "$input")"
"$build/bin/int21-opt" "$input" --canonicalize --int21-form-fusion-groups

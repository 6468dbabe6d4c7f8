#!/usr/bin/env bash
# The main job, as far as int21 goes today: build, import the shared ONNX
# models into the int21 dialect, lower them to linalg (fusion groups, named
# ops), and run the MLP and the encoder on the reference lowering against
# their recorded outputs. Later issues grow this into compile, tune and run
# engines.
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

if [ -d "$models" ]; then
  for m in mlp encoder resnet18; do
    [ -f "$models/$m.onnx" ] || continue
    "$build/bin/int21-compile" "$models/$m.onnx" --emit=linalg -o "$out/$m-linalg.mlir"
    echo "== $m lowered to linalg: $(grep -c 'int21.fusion_group' "$out/$m-linalg.mlir") fusion groups," \
      "$(grep -oE 'linalg\.[a-z_0-9]+' "$out/$m-linalg.mlir" | sort -u | tr '\n' ' ')"
  done
  echo "== run on the reference lowering (plain loops) against test_data_set_0"
  for m in mlp encoder; do
    /usr/bin/python3 "$root/test/e2e/Inputs/run-shared-model.py" \
      --int21-compile "$build/bin/int21-compile" --int21-opt "$build/bin/int21-opt" \
      --mlir-runner /usr/lib/llvm-22/bin/mlir-runner \
      --runner-libs /usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_runner_utils.so \
      --decompose "$root/test/Transforms/Inputs/decompose-aggregates.mlir" \
      --models "$models" --scratch "$out/run" "$m"
  done
fi

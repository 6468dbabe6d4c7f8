#!/usr/bin/env bash
# The main job, as far as int21 goes today: build, then for each shared ONNX
# model compile a CPU engine (import, fusion groups, linalg, default CPU
# schedule, LLVM), run it against the outputs PyTorch recorded, and time it.
# (Tuning by the agent search comes with its issue; engines are untuned.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
build="${INT21_BUILD_DIR:-$root/build}"
models="${INT21_MODELS:-$root/../shared/models}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

if [ ! -d "$models" ]; then
  echo "(no ../shared/models here: showing fusion groups of examples/mlp-block.mlir)"
  "$build/bin/int21-opt" "$root/examples/mlp-block.mlir" --canonicalize --int21-form-fusion-groups
  exit 0
fi

for m in mlp encoder resnet18; do
  [ -f "$models/$m.onnx" ] || continue
  echo "== $m"
  start=$(date +%s%N)
  "$build/bin/int21-compile" "$models/$m.onnx" --target=cpu -o "$out/$m.int21"
  end=$(date +%s%N)
  echo "   compiled to a CPU engine in $(((end - start) / 1000000)) ms" \
    "($(($(stat -c %s "$out/$m.int21") / 1024)) KiB)"
  data="$models/$m/test_data_set_0"
  inputs=()
  name=$("$build/bin/int21-compile" "$models/$m.onnx" --emit=int21 |
    sed -n 's/.*func.func @main(%[^:]*: [^{]*{onnx.name = "\([^"]*\)".*/\1/p')
  [ -n "$name" ] && inputs=(--input "$name=$data/input_0.pb")
  for t in 1 2; do
    echo "   threads=$t: $("$build/bin/int21-run" "$out/$m.int21" "${inputs[@]}" \
      --expect "$data" --atol 1e-5 --threads "$t")"
  done
  echo "   threads=1: $("$build/bin/int21-run" "$out/$m.int21" --bench 20 --threads 1)"
done

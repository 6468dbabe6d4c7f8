# Shared by the bench scripts (sourced): the build, ONNX Runtime for Node.js
# (the peer, never a dependency of int21 itself) and the machine line.
# Expects $root; sets $build, $models, $ort.
build="${INT21_BUILD_DIR:-$root/build}"
models="${MODELS:-$root/../shared/models}"
"$root/scripts/build.sh" >/dev/null

ort="$build/ort"
if [ ! -d "$ort/node_modules/onnxruntime-node" ]; then
  mkdir -p "$ort"
  cp "$root/../shared/bench/package.json" "$root/../shared/bench/ort_bench.js" "$ort/"
  (cd "$ort" && npm install --ignore-scripts --no-audit --no-fund >/dev/null)
fi

source "$root/bench/machine.sh"

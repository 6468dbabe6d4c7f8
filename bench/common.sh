# Shared by the bench scripts (sourced): the build, ONNX Runtime for Node.js
# (the peer, never a dependency of int21 itself) and the machine line.
# Expects $root; sets $build, $bin (the tools), $models, $ort.
# INT21_BIN names the tools to time (a copy of build/bin, say, so that the
# tree may be rebuilt meanwhile); without it, build/ is built and used.
build="${INT21_BUILD_DIR:-$root/build}"
models="${MODELS:-$root/../shared/models}"
if [ -n "${INT21_BIN:-}" ]; then
  bin="$INT21_BIN"
else
  "$root/scripts/build.sh" >/dev/null
  bin="$build/bin"
fi

ort="$build/ort"
if [ ! -d "$ort/node_modules/onnxruntime-node" ]; then
  mkdir -p "$ort"
  cp "$root/../shared/bench/package.json" "$root/../shared/bench/ort_bench.js" "$ort/"
  (cd "$ort" && npm install --ignore-scripts --no-audit --no-fund >/dev/null)
fi

source "$root/bench/machine.sh"

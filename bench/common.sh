# Shared by the bench scripts (sourced): the int21 tools (bench/tools.sh) and
# ONNX Runtime for Node.js (the peer, never a dependency of int21 itself).
# Expects $root; sets $build, $bin (the tools), $models, $ort.
source "$root/bench/tools.sh"

ort="$build/ort"
if [ ! -d "$ort/node_modules/onnxruntime-node" ]; then
  mkdir -p "$ort"
  cp "$root/../shared/bench/package.json" "$root/../shared/bench/ort_bench.js" "$ort/"
  (cd "$ort" && npm install --ignore-scripts --no-audit --no-fund >/dev/null)
fi


# Shared by the bench scripts (sourced): the int21 tools they time and the
# machine line (bench/machine.sh). Expects $root; sets $build, $bin (the
# tools) and $models (the shared models, or $MODELS).
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
source "$root/bench/machine.sh"

# torch and torchvision export the benchmark models; they are benchmark
# tools, not dependencies of int21, so scripts/setup.sh leaves them out.
require_torchvision() {
  if ! /usr/bin/python3 -c "import torch, torchvision" 2>/dev/null; then
    echo "$1: installing python3-torch python3-torchvision"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      python3-torch python3-torchvision >/dev/null
  fi
}

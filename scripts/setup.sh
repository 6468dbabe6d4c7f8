#!/usr/bin/env bash
# Installs every Debian package int21 needs, idempotently: nothing is done when
# all are present; otherwise `apt-get update` runs once and the missing ones
# are installed. Every other script calls this first.
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build ccache g++ zlib1g-dev libzstd-dev
  # LLVM/MLIR 22: libraries, tablegen, lit, FileCheck, OpenMP
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libomp-22-dev
  # LLVM's linker: CPU engines are linked without a C compiler
  lld-22
  # ONNX import and conformance data
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  # knowledge base
  libsqlite3-dev
  # tests
  libgtest-dev
  # Python package
  pybind11-dev python3-dev python3-numpy python3-pytest
  # end-to-end tests read ONNX test data
  python3-onnx
  # fuzz targets and the sanitizer build (scripts/fuzz.sh): libFuzzer, ASan, UBSan
  clang-22 libclang-rt-22-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

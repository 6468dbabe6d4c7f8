#!/usr/bin/env bash
# Builds int21, then runs the ONNX backend conformance tests (libonnx-testdata)
# through int21-compile and int21-run: per-set counts, the largest failure
# groups, a result table in build/conformance/results.md. Arguments go to
# scripts/conformance.py, e.g. --check, --update-pass-list, --filter 'conv'.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build="${INT21_BUILD_DIR:-$root/build}"
exec /usr/bin/python3 "$root/scripts/conformance.py" --tools "$build/bin" \
  --results "$build/conformance/results.md" "$@"

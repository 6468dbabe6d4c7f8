#!/usr/bin/env bash
# Everything that needs an NVIDIA GPU, in one run of at most ~8 minutes:
#   1. build (scripts/build.sh),
#   2. the GPU tests (the lit tests of GPU engines, kernels and PTX, those
#      that REQUIRE cuda included; the GPU* unit tests),
#   3. the three shared models compiled for the GPU's chip against their
#      expected outputs,
#   4. the ONNX conformance tests that pass on the CPU (test/conformance/
#      passing.txt), compiled for the GPU,
#   5. GEMM (1024^3, 4096^3; f32, f16, bf16) by int21 and by PyTorch's
#      torch.matmul on the same GPU,
# then a short table. Each stage reports its own failure and the script goes
# on (the GPU compile path may be missing or failing); the exit code is 0
# only when every stage passed. Without a GPU it says so and exits 2 at once.
#
# Usage: scripts/gpu-check.sh        Env: INT21_BUILD_DIR (build),
#        PYTHON (python3 with torch; default: the first of python3 and
#        /usr/bin/python3 that imports torch with CUDA), MODELS (../shared/models)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${INT21_BUILD_DIR:-$root/build}"
models="${MODELS:-$root/../shared/models}"
start=$SECONDS
log="$build/gpu-check"
declare -a table=()
status=0

note() { echo "== [$((SECONDS - start))s] $*"; }
# row STAGE RESULT DETAIL: one line of the final table; RESULT other than
# "ok" (or "skip") makes the script fail.
row() {
  table+=("$(printf '%-34s %-5s %s' "$1" "$2" "$3")")
  [ "$2" = ok ] || [ "$2" = skip ] || status=1
}
# cap N: N seconds, or what is left of the 8 minutes when that is less (at
# least 5: a stage out of time fails fast and says so).
cap() {
  local l=$((470 - (SECONDS - start)))
  l=$((l < $1 ? l : $1))
  echo $((l > 5 ? l : 5))
}

# 0. A GPU at all? (before spending minutes on a build)
if [ ! -e /dev/nvidiactl ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  echo "gpu-check: no NVIDIA GPU here (no /dev/nvidiactl, no libcuda.so.1): nothing to check"
  exit 2
fi

# 1. Build.
note "build"
mkdir -p "$build"
if timeout "$(cap 300)" "$root/scripts/build.sh" >"$build/gpu-check-build.log" 2>&1; then
  row "build" ok "$build"
else
  tail -20 "$build/gpu-check-build.log"
  row "build" FAIL "see $build/gpu-check-build.log"
  printf '%s\n' "${table[@]}"
  exit 1
fi
mkdir -p "$log"
bin="$build/bin"

devices="$("$bin/int21-run" --list-devices 2>&1)"
if [ $? -ne 0 ]; then
  echo "gpu-check: $devices"
  echo "gpu-check: no usable CUDA GPU: nothing to check"
  exit 2
fi
echo "$devices"
chip="$(echo "$devices" | sed -nE 's/^device 0: .*, (sm_[0-9]+a?), .*/\1/p')"
row "device 0" ok "$(echo "$devices" | head -1 | sed 's/^device 0: //')"

# 2. GPU tests: the lit tests of GPU engines (those that need a GPU run now)
#    and the GPU* unit tests.
note "GPU tests"
if timeout "$(cap 90)" /usr/lib/llvm-22/bin/lit -sv "$build/test" \
    --filter 'gpu|cuda|nvvm|ptx|sm_?[0-9]' >"$log/lit.log" 2>&1; then
  row "lit (GPU tests)" ok "$(grep -E '^ *(Passed|Unsupported) *:' "$log/lit.log" | sed -E 's/^ *([A-Za-z]+) *: *([0-9]+).*/\2 \1/' | paste -sd, -)"
else
  grep -E '^(FAIL|UNRESOLVED|TIMEOUT):' "$log/lit.log" | head
  row "lit (GPU tests)" FAIL "see $log/lit.log"
fi
if timeout "$(cap 60)" "$build/unittests/int21-unittests" --gtest_filter='GPU*' >"$log/unittests.log" 2>&1; then
  passed="$(grep -oE '\[  PASSED  \] [0-9]+' "$log/unittests.log" | grep -oE '[0-9]+$')"
  skipped="$(grep -oE '\[  SKIPPED \] [0-9]+' "$log/unittests.log" | grep -oE '[0-9]+$')"
  row "unit tests (GPU*)" ok "${passed:-0} passed, ${skipped:-0} skipped (a skip names its reason in $log/unittests.log)"
else
  grep -E '^\[  FAILED  \]|Failure' "$log/unittests.log" | head
  row "unit tests (GPU*)" FAIL "see $log/unittests.log"
fi

# 3. The shared models, compiled for the chip.
for model in mlp encoder resnet18; do
  note "model $model ($chip)"
  engine="$log/$model.$chip.int21"
  data="$models/$model/test_data_set_0"
  if ! timeout "$(cap 60)" "$bin/int21-compile" "$models/$model.onnx" --target="$chip" \
      -o "$engine" >"$log/$model.compile.log" 2>&1; then
    row "model $model" FAIL "compile: $(grep -m1 'error' "$log/$model.compile.log" | cut -c1-120)"
    continue
  fi
  if timeout "$(cap 30)" "$bin/int21-run" "$engine" --input "input=$data/input_0.pb" \
      --expect "$data" --atol 1e-4 --rtol 1e-3 >"$log/$model.run.log" 2>&1; then
    bench="$(timeout "$(cap 30)" "$bin/int21-run" "$engine" --bench 50 2>&1 | sed -nE 's/^device_ms median=([0-9.]+).*/\1/p')"
    row "model $model" ok "$(grep -m1 '^output' "$log/$model.run.log" | cut -d: -f2- | cut -c2-60); device ${bench:-?} ms"
  else
    row "model $model" FAIL "$(head -1 "$log/$model.run.log" | cut -c1-120)"
  fi
done

# 4. The conformance tests that pass on the CPU, on the GPU.
note "conformance on $chip (the CPU's pass list)"
if [ -d /usr/share/libonnx-testdata/data/node ]; then
  timeout "$(cap 180)" /usr/bin/python3 "$root/scripts/conformance.py" \
    --tools "$bin" --target="$chip" --pass-list-only --check --jobs "$(nproc)" \
    --timeout 60 --results "$log/conformance-$chip.md" >"$log/conformance.log" 2>&1
  rc=$?
  summary="$(grep -E '^(node|pytorch-converted|pytorch-operator|simple):' "$log/conformance.log" \
    | sed -E 's/: ([0-9]+) passed, ([0-9]+) failed.*/ \1\/\2/' | paste -sd' ' -)"
  case $rc in
    0) row "conformance ($chip)" ok "pass/fail: $summary" ;;
    124) row "conformance ($chip)" FAIL "time limit; partial: $log/conformance.log" ;;
    *) row "conformance ($chip)" FAIL "pass/fail: $summary; $(grep -c '^REGRESSION' "$log/conformance.log") of the CPU's pass list fail (see $log/conformance.log)" ;;
  esac
else
  row "conformance ($chip)" FAIL "no libonnx-testdata"
fi

# 5. GEMM: int21 engines against torch.matmul, same GPU, same run.
note "GEMM"
/usr/bin/python3 - "$log" <<'EOF' >"$log/gemm-models.log" 2>&1
import sys
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
types = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16,
         "bf16": TensorProto.BFLOAT16}
for n in (1024, 4096):
    for name, t in types.items():
        info = lambda v: helper.make_tensor_value_info(v, t, [n, n])
        graph = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["Y"])],
                                  "gemm", [info("A"), info("B")], [info("Y")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, f"{out}/gemm{n}_{name}.onnx")
EOF
declare -A int21_tflops=()
for n in 1024 4096; do
  for t in f32 f16 bf16; do
    engine="$log/gemm${n}_$t.$chip.int21"
    result="-"
    if timeout "$(cap 60)" "$bin/int21-compile" "$log/gemm${n}_$t.onnx" --target="$chip" -o "$engine" \
        >"$log/gemm${n}_$t.compile.log" 2>&1; then
      ms="$(timeout "$(cap 30)" "$bin/int21-run" "$engine" --bench 20 2>"$log/gemm${n}_$t.run.log" \
        | sed -nE 's/^device_ms median=([0-9.]+).*/\1/p')"
      [ -n "$ms" ] && result="$(awk -v n="$n" -v ms="$ms" 'BEGIN { printf "%.1f", 2 * n^3 / (ms * 1e-3) / 1e12 }')"
      [ -n "$ms" ] || result="run failed"
    else
      result="compile failed"
    fi
    int21_tflops["$n$t"]="$result"
  done
done

python=""
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
  [ -n "$p" ] || continue
  if "$p" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    python="$p"
    break
  fi
done
declare -A torch_tflops=()
if [ -n "$python" ]; then
  while read -r key value; do
    torch_tflops["$key"]="$value"
  done < <(timeout "$(cap 90)" "$python" - <<'EOF' 2>"$log/torch.log"
import torch

types = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
# Plain FP32 GEMM (no TF32), as int21's f32 engines compute it.
torch.backends.cuda.matmul.allow_tf32 = False
for n in (1024, 4096):
    for name, t in types.items():
        a = torch.rand(n, n, device="cuda", dtype=t) - 0.5
        b = torch.rand(n, n, device="cuda", dtype=t) - 0.5
        for _ in range(3):
            torch.matmul(a, b)
        times = []
        for _ in range(20):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            torch.matmul(a, b)
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e))
        times.sort()
        ms = times[len(times) // 2]
        print(f"{n}{name} {2 * n**3 / (ms * 1e-3) / 1e12:.1f}", flush=True)
EOF
  )
  torch_note="torch.matmul via $python (TF32 off)"
else
  torch_note="no python3 with torch and CUDA here: PyTorch column empty"
fi
gemm_ok=ok
for n in 1024 4096; do
  for t in f32 f16 bf16; do
    case "${int21_tflops[$n$t]}" in *failed*|-) gemm_ok=FAIL ;; esac
  done
done
row "GEMM (int21 engines)" "$gemm_ok" "see the GEMM table; logs in $log"

{
  echo
  echo "GEMM, TFLOP/s (device time, median of 20; $torch_note):"
  printf '  %-12s %10s %10s\n' "shape/type" "int21" "torch"
  for n in 1024 4096; do
    for t in f32 f16 bf16; do
      printf '  %-12s %10s %10s\n' "${n}^3 $t" "${int21_tflops[$n$t]}" "${torch_tflops[$n$t]:--}"
    done
  done
  echo
  echo "gpu-check on $chip, $((SECONDS - start)) s (logs: $log):"
  printf '  %s\n' "${table[@]}"
} | tee "$log/summary.txt"
exit $status

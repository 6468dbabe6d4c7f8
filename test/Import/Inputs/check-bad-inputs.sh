#!/usr/bin/env bash
# Runs int21-compile on every case of the bad-input corpus and checks that
# each one fails the way a user should see it fail: exit code 1, exactly one
# line on stderr, which names the problem (the case's "# expect:" text).
# Usage: check-bad-inputs.sh INT21_COMPILE CASE_DIR SCRATCH_DIR [SHARED_MODELS]
set -u
tool=$1 cases=$2 scratch=$3 models=${4:-}
mkdir -p "$scratch"
passed=0 failed=0

# check NAME EXPECTED ARGS...: runs the tool and judges the result.
check() {
  local name=$1 expect=$2
  shift 2
  local err="$scratch/$name.stderr"
  "$tool" "$@" -o /dev/null 2>"$err" >/dev/null
  local rc=$?
  local lines
  lines=$(grep -c . "$err")
  if [ "$rc" -ne 1 ]; then
    echo "FAIL $name: exit code $rc, expected 1"; sed 's/^/  | /' "$err"
    failed=$((failed + 1))
  elif [ "$lines" -ne 1 ]; then
    echo "FAIL $name: $lines lines on stderr, expected 1"; sed 's/^/  | /' "$err"
    failed=$((failed + 1))
  elif ! grep -qF -- "$expect" "$err"; then
    echo "FAIL $name: expected '$expect'"; sed 's/^/  | /' "$err"
    failed=$((failed + 1))
  else
    echo "PASS $name: $(cat "$err")"
    passed=$((passed + 1))
  fi
}

for file in "$cases"/*.onnxtext; do
  name=$(basename "$file" .onnxtext)
  expect=$(sed -n 's/^# expect: //p' "$file")
  args=$(sed -n 's/^# args: //p' "$file")
  # shellcheck disable=SC2086
  check "$name" "$expect" "$file" $args
done

# Binary cases, made here so that the corpus needs no binary files.
printf 'this is not an ONNX model\n' > "$scratch/not-a-model.onnx"
check not-a-model "not an ONNX model, or a truncated one" "$scratch/not-a-model.onnx"
: > "$scratch/empty.onnx"
check empty "not an ONNX model: it has no graph" "$scratch/empty.onnx"
check missing-file "cannot read" "$scratch/does-not-exist.onnx"
# An int64 initializer of dims [2] (the shape of a Reshape) whose raw_data
# has 3 bytes: libonnx's shape inference read past it.
printf '\x08\x08\x3a\x4f\x0a\x12\x0a\x01\x78\x0a\x01\x73\x12\x01\x79\x22\x07\x52\x65\x73\x68\x61\x70\x65\x12\x01\x67\x2a\x0c\x08\x02\x10\x07\x42\x01\x73\x4a\x03\x01\x02\x03\x5a\x13\x0a\x01\x78\x12\x0e\x0a\x0c\x08\x01\x12\x08\x0a\x02\x08\x02\x0a\x02\x08\x03\x62\x13\x0a\x01\x79\x12\x0e\x0a\x0c\x08\x01\x12\x08\x0a\x02\x08\x03\x0a\x02\x08\x02\x42\x04\x0a\x00\x10\x11' > "$scratch/short-raw-data.onnx"
check short-raw-data "tensor 's' holds 3 bytes of data, expected 16 for 2 elements of type INT64" \
  "$scratch/short-raw-data.onnx"
# A node with an empty op type (the text format cannot write one).
printf '\x08\x08\x3a\x2f\x0a\x08\x0a\x01\x78\x12\x01\x79\x22\x00\x12\x01\x67\x5a\x0f\x0a\x01\x78\x12\x0a\x0a\x08\x08\x01\x12\x04\x0a\x02\x08\x02\x62\x0f\x0a\x01\x79\x12\x0a\x0a\x08\x08\x01\x12\x04\x0a\x02\x08\x02\x42\x04\x0a\x00\x10\x11' > "$scratch/empty-op-type.onnx"
check empty-op-type "node #0 has no op type" "$scratch/empty-op-type.onnx"
# A tensor output with no shape field (the text format always writes one):
# libonnx's checker refused it without naming the output.
printf '\x08\x08\x3a\x2d\x0a\x0c\x0a\x01\x78\x12\x01\x79\x22\x04\x52\x65\x6c\x75\x12\x01\x67\x5a\x0f\x0a\x01\x78\x12\x0a\x0a\x08\x08\x01\x12\x04\x0a\x02\x08\x02\x62\x09\x0a\x01\x79\x12\x04\x0a\x02\x08\x01\x42\x04\x0a\x00\x10\x11' > "$scratch/output-without-shape.onnx"
check output-without-shape "output 'y' of graph 'g' has a tensor type without a shape" \
  "$scratch/output-without-shape.onnx"
# Opset 5 (upgraded by libonnx's version converter) with a graph output no
# node defines: the converter dereferenced it (found by int21-fuzz-onnx).
printf '\x08\x08\x3a\x69\x0a\x14\x0a\x01\x78\x0a\x01\x6b\x12\x01\x76\x12\x01\x69\x22\x04\x54\x6f\x70\x4b\x3a\x00\x12\x01\x67\x5a\x13\x0a\x01\x78\x12\x0e\x0a\x0c\x08\x01\x12\x08\x0a\x02\x08\x03\x0a\x02\x08\x04\x5a\x0f\x0a\x01\x6b\x12\x0a\x0a\x08\x08\x07\x12\x04\x0a\x02\x08\x01\x62\x13\x0a\x01\x2f\x12\x0e\x0a\x0c\x08\x01\x12\x08\x0a\x02\x08\x03\x0a\x02\x08\x02\x62\x13\x0a\x01\x69\x12\x0e\x0a\x0c\x08\x07\x12\x08\x0a\x02\x08\x03\x0a\x02\x08\x02\x42\x04\x0a\x00\x10\x05' > "$scratch/converter-undefined-output.onnx"
check converter-undefined-output "graph output '/' is not defined by any node, input or initializer" \
  "$scratch/converter-undefined-output.onnx"
if [ -n "$models" ] && [ -f "$models/mlp.onnx" ]; then
  head -c 100000 "$models/mlp.onnx" > "$scratch/truncated.onnx"
  check truncated "not an ONNX model, or a truncated one" "$scratch/truncated.onnx"
  # A valid model given an input shape of the wrong rank.
  check mlp-wrong-input-rank "gives input 'input' 3 dimensions, but the model declares 2" \
    "$models/mlp.onnx" --input-shape input=64x784x1
fi

echo "bad inputs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env python3
"""Runs a shared ONNX model end to end on the reference lowering and checks it.

int21-compile --emit=linalg (import, fusion groups, linalg) -> int21-opt
(dissolve groups, decompose softmax, bufferize, loops, LLVM) -> mlir-runner
on the model's test_data_set_0 input; the printed output is compared with
output_0.pb. Prints one line `NAME: rel_l2=... max_abs=...` and exits 1 when
the relative L2 error exceeds --rtol.

Usage: run-shared-model.py --int21-compile P --int21-opt P --mlir-runner P
       --runner-libs L --decompose S --models DIR --scratch DIR NAME
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
from onnx import TensorProto, numpy_helper

LOWERING = [
    "--int21-inline-fusion-groups",
    "--transform-interpreter",
    "-one-shot-bufferize=bufferize-function-boundaries",
    "-convert-linalg-to-loops",
    "-convert-scf-to-cf",
    "-expand-strided-metadata",
    "-lower-affine",
    "-finalize-memref-to-llvm",
    "-convert-math-to-funcs",
    "-convert-math-to-llvm",
    "-convert-math-to-libm",
    "-convert-arith-to-llvm",
    "-convert-cf-to-llvm",
    "-convert-func-to-llvm",
    "-reconcile-unrealized-casts",
]


def load(path):
    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def tensor_type(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def main():
    p = argparse.ArgumentParser()
    for flag in ["int21-compile", "int21-opt", "mlir-runner", "runner-libs",
                 "decompose", "models", "scratch"]:
        p.add_argument("--" + flag, required=True)
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("name")
    a = p.parse_args()
    os.makedirs(a.scratch, exist_ok=True)
    data = os.path.join(a.models, a.name, "test_data_set_0")
    x = load(os.path.join(data, "input_0.pb")).astype(np.float32)
    want = load(os.path.join(data, "output_0.pb")).astype(np.float64)

    ir = subprocess.run(
        [a.int21_compile, os.path.join(a.models, a.name + ".onnx"),
         "--emit=linalg", "--print-weights"],
        capture_output=True, text=True, check=True).stdout
    values = np.array2string(x, separator=",", threshold=1 << 40,
                             floatmode="unique").replace("\n", "")
    xt, yt = tensor_type(x.shape), tensor_type(want.shape)
    entry = f"""
  func.func private @printMemrefF32(tensor<*xf32>)
  func.func @entry() {{
    %x = arith.constant dense<{values}> : {xt}
    %y = call @main(%x) : ({xt}) -> {yt}
    %u = tensor.cast %y : {yt} to tensor<*xf32>
    call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
    return
  }}
"""
    # The module ends with "}" and then the resources: put entry before it.
    head, sep, tail = ir.rpartition("\n}\n")
    module = os.path.join(a.scratch, a.name + ".mlir")
    with open(module, "w") as f:
        f.write(head + entry + sep + tail)

    lowered = subprocess.run(
        [a.int21_opt, module,
         f"--transform-preload-library=transform-library-paths={a.decompose}"]
        + LOWERING, capture_output=True, text=True)
    if lowered.returncode:
        sys.exit(f"{a.name}: lowering failed: {lowered.stderr[:2000]}")
    run = subprocess.run(
        [a.mlir_runner, "-e", "entry", "-entry-point-result=void", "-O3",
         f"-shared-libs={a.runner_libs}"],
        input=lowered.stdout, capture_output=True, text=True)
    if run.returncode or "data =" not in run.stdout:
        sys.exit(f"{a.name}: run failed: {run.stderr[:2000]}")
    printed = run.stdout.split("data =", 1)[1]
    numbers = re.findall(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)", printed)
    got = np.array([float(v) for v in numbers]).reshape(want.shape)
    rel = np.linalg.norm(got - want) / np.linalg.norm(want)
    print(f"{a.name}: rel_l2={rel:.3e} max_abs={np.abs(got - want).max():.3e}")
    sys.exit(0 if rel <= a.rtol else 1)


if __name__ == "__main__":
    main()

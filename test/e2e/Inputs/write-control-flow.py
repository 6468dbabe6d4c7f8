# Writes the inputs of control-flow.test: If's conditions and its data,
# Loop's trip counts, thresholds and rows, Scan's initial state and rows.
import sys

import numpy
import onnx.numpy_helper

out = sys.argv[1]
tensors = {
    "c-true": numpy.array(True),
    "c-false": numpy.array(False),
    "x2": numpy.array([1, -2], numpy.float32),
    "z3": numpy.array([-1, 5, -7], numpy.float32),
    "x23": numpy.array([[-1, 2, -3], [4, -5, 6]], numpy.float32),
    "m-3": numpy.array(3, numpy.int64),
    "m-6": numpy.array(6, numpy.int64),
    "m-0": numpy.array(0, numpy.int64),
    "limit-big": numpy.array(1000, numpy.float32),
    "limit-2": numpy.array(2, numpy.float32),
    "x42": numpy.array([[1, 0], [1, 1], [2, 2], [3, 3]], numpy.float32),
    "init": numpy.array([100, 200], numpy.float32),
    "x32": numpy.array([[1, 2], [3, 4], [5, 6]], numpy.float32),
    "x1": numpy.array([7], numpy.float32),
}
for name, value in tensors.items():
    with open(f"{out}/{name}.pb", "wb") as f:
        f.write(onnx.numpy_helper.from_array(value).SerializeToString())

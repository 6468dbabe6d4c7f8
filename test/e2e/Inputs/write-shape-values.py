# Writes the inputs of shape-values.test: x = 0..23 as float[2,3,4] and the
# shapes it is reshaped to at run time; a 2x2 image and the scales it is
# resized by; axes a CumSum reads at run time;
# a TopK's K; the axes of a ReduceSum.
import sys

import numpy
import onnx.numpy_helper

out = sys.argv[1]
tensors = {
    "x": numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4),
    "shape-copy-infer": numpy.array([0, -1], dtype=numpy.int64),
    "shape-5x5": numpy.array([5, 5], dtype=numpy.int64),
    "image": numpy.arange(4, dtype=numpy.float32).reshape(1, 1, 2, 2),
    "scales-2x3": numpy.array([1, 1, 2, 3], dtype=numpy.float32),
    "scales-zero": numpy.array([1, 1, 0, 1], dtype=numpy.float32),
    "axis-last": numpy.array(-1, dtype=numpy.int64),
    "axis-4": numpy.array(4, dtype=numpy.int64),
    "k-1": numpy.array([1], dtype=numpy.int64),
    "k-3": numpy.array([3], dtype=numpy.int64),
    "axes-1-last": numpy.array([1, -1], dtype=numpy.int64),
    "axes-0-5": numpy.array([0, 5], dtype=numpy.int64),
}
for name, value in tensors.items():
    with open(f"{out}/{name}.pb", "wb") as f:
        f.write(onnx.numpy_helper.from_array(value).SerializeToString())

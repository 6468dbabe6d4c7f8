# Writes the inputs of data-extents.test: a float[3,4] with five nonzero
# elements and one of zeros; a float[4,5] and conditions on its columns;
# rows of which two are equal; boxes of which two overlap, their scores and
# the limits of NonMaxSuppression.
import sys

import numpy
import onnx.numpy_helper

out = sys.argv[1]
tensors = {
    "x": numpy.array([[0, 1, 0, 2], [3, 0, 0, 0], [0, 0, 5, -1]], numpy.float32),
    "zeros": numpy.zeros((3, 4), numpy.float32),
    "rows": numpy.arange(-5, 15, dtype=numpy.float32).reshape(4, 5),
    "c-3": numpy.array([1, 0, 1, 1, 0], bool),
    "c-none": numpy.zeros(5, bool),
    "pairs": numpy.array([[2, 1], [0, 5], [2, 1], [0, 3]], numpy.float32),
    "boxes": numpy.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6],
                           [0, 10, 1, 11]]], numpy.float32),
    "scores": numpy.array([[[0.9, 0.95, 0.3, 0.05]]], numpy.float32),
    "m-3": numpy.array([3], numpy.int64),
    "m-0": numpy.array([0], numpy.int64),
    "iou-half": numpy.array([0.5], numpy.float32),
    "floor": numpy.array([0.1], numpy.float32),
}
for name, value in tensors.items():
    with open(f"{out}/{name}.pb", "wb") as f:
        f.write(onnx.numpy_helper.from_array(value).SerializeToString())

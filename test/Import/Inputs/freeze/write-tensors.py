# Writes the ONNX TensorProto files that freeze-input.test freezes inputs to.
import sys

import numpy
import onnx.numpy_helper

out = sys.argv[1]
tensors = {
    "shape-4x6": numpy.array([4, 6], dtype=numpy.int64),
    "shape-3-elements": numpy.array([4, 3, 2], dtype=numpy.int64),
    "shape-int32": numpy.array([4, 6], dtype=numpy.int32),
}
for name, value in tensors.items():
    with open(f"{out}/{name}.pb", "wb") as f:
        f.write(onnx.numpy_helper.from_array(value).SerializeToString())
with open(f"{out}/not-a-tensor.pb", "wb") as f:
    f.write(b"\xff\xff\xff\xff not a tensor")

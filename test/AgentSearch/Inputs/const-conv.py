# Writes OUT.onnx: a 3x3 convolution of 8 channels into 16 filters (a
# constant weight, so that it runs with the filters along the vectors, in
# blocks of 16) on a 16x16 map, then a ReLU.
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(21)
w = (rng.standard_normal((16, 8, 3, 3)) / 8).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
     helper.make_node("Relu", ["c"], ["y"])],
    "const_conv",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 16, 16])],
    [numpy_helper.from_array(w, "w")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])

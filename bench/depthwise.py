#!/usr/bin/python3
"""Depthwise 3x3 convolutions as MobileNet-class exports have them (Conv with
group = channels, a bias from the folded batch norm, then ReLU6 as Clip), at
the shapes of mobilenet_v2's blocks (batch 1, 224x224 input), for
bench/cpu-vs-ort.sh:

    /usr/bin/python3 bench/depthwise.py DIR
    MODELS=DIR NAMES="dw_32x112_s1 dw_96x112_s2 dw_144x56_s1 dw_192x28_s1 \\
        dw_384x14_s1 dw_960x7_s1" bench/cpu-vs-ort.sh 200

Name: dw_<channels>x<input size>_s<stride>."""
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(0)
for c, size, stride in ((32, 112, 1), (96, 112, 2), (144, 56, 1),
                        (144, 56, 2), (192, 28, 1), (384, 14, 1),
                        (576, 14, 2), (960, 7, 1)):
    out_size = (size + 2 - 3) // stride + 1
    weight = numpy_helper.from_array(
        (rng.standard_normal((c, 1, 3, 3)) / 3).astype(np.float32), "weight")
    bias = numpy_helper.from_array(
        rng.standard_normal(c).astype(np.float32), "bias")
    low = numpy_helper.from_array(np.array(0, np.float32), "low")
    high = numpy_helper.from_array(np.array(6, np.float32), "high")
    nodes = [
        helper.make_node("Conv", ["x", "weight", "bias"], ["conv"], group=c,
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[stride, stride], name="dw"),
        helper.make_node("Clip", ["conv", "low", "high"], ["y"], name="relu6"),
    ]
    name = f"dw_{c}x{size}_s{stride}"
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [1, c, out_size, out_size])],
        [weight, bias, low, high])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, out / f"{name}.onnx")

#!/usr/bin/python3
"""Batch-1 classifier heads as torch exports them (nn.Linear: Gemm with
transB=1, weight [N, K], bias [N]), for bench/cpu-vs-ort.sh:

    /usr/bin/python3 bench/linear-heads.py DIR
    MODELS=DIR NAMES="head_512x1000 head_1280x1000 head_768x1000 head_2048x1000" \
        bench/cpu-vs-ort.sh 200

K x N: resnet18/34 (512), mobilenet_v2/efficientnet_b0 (1280), ViT-B (768),
resnet50 (2048), each to 1000 classes."""
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(0)
for k, n in ((512, 1000), (1280, 1000), (768, 1000), (2048, 1000)):
    weight = numpy_helper.from_array(
        (rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32), "weight")
    bias = numpy_helper.from_array(
        rng.standard_normal(n).astype(np.float32), "bias")
    node = helper.make_node("Gemm", ["x", "weight", "bias"], ["y"], transB=1,
                            name="fc")
    graph = helper.make_graph(
        [node], f"head_{k}x{n}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])],
        [weight, bias])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, out / f"head_{k}x{n}.onnx")

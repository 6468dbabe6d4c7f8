# Writes linear layers (MatMul of an activation by a constant weight, then a
# bias and an epilogue) of the shapes transformers and MLPs have, and the
# edge cases around them (rows that are no multiple of the register tile,
# an odd number of 16-column panels, a batch dimension of one on either side
# of the rows as exported encoders have, a Gemm with transB, ReLU, GELU (the
# erf form), a residual add, output columns that fill no whole vector), each
# with inputs and the outputs of a numpy reference, in the ONNX test layout:
# OUT/CASE/model.onnx, OUT/CASE/test_data_set_0/*.pb
import json
import math
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from depthwise import save_case

CASES = [
    # name, input shape, K, N, gemm (transB), epilogue, residual
    ("linear_relu", (64, 96), 96, 256, False, "relu", False),
    ("linear_rows_odd", (37, 64), 64, 80, False, "none", False),
    ("linear_seq_first", (40, 1, 48), 48, 144, False, "gelu", False),
    ("linear_batch_first", (1, 24, 32), 32, 96, False, "none", True),
    ("linear_gemm", (20, 72), 72, 48, True, "relu", False),
    ("linear_narrow", (32, 64), 64, 10, False, "none", False),
]


def gelu(y):
    erf = np.vectorize(math.erf)
    return 0.5 * y * (1 + erf(y / math.sqrt(2)))


def main(out):
    rng = np.random.default_rng(21)
    for name, shape, k, n, gemm, epi, residual in CASES:
        x = rng.standard_normal(shape).astype(np.float32)
        w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        y = x.astype(np.float64) @ w.astype(np.float64) + b
        if gemm:
            inits = [numpy_helper.from_array(np.ascontiguousarray(w.T), "w"),
                     numpy_helper.from_array(b, "b")]
            nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["t1"], transB=1)]
        else:
            inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
            nodes = [helper.make_node("MatMul", ["x", "w"], ["t0"]),
                     helper.make_node("Add", ["t0", "b"], ["t1"])]
        last = "t1"
        if epi == "relu":
            nodes.append(helper.make_node("Relu", [last], ["t2"]))
            y = np.maximum(y, 0)
            last = "t2"
        elif epi == "gelu":
            inits += [numpy_helper.from_array(np.array(math.sqrt(2), np.float32), "sqrt2"),
                      numpy_helper.from_array(np.array(1, np.float32), "one"),
                      numpy_helper.from_array(np.array(0.5, np.float32), "half")]
            nodes += [helper.make_node("Div", [last, "sqrt2"], ["g0"]),
                      helper.make_node("Erf", ["g0"], ["g1"]),
                      helper.make_node("Add", ["g1", "one"], ["g2"]),
                      helper.make_node("Mul", [last, "g2"], ["g3"]),
                      helper.make_node("Mul", ["g3", "half"], ["t2"])]
            y = gelu(y)
            last = "t2"
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)]
        feeds = [("x", x)]
        if residual:
            r = rng.standard_normal(y.shape).astype(np.float32)
            inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, r.shape))
            feeds.append(("r", r))
            nodes.append(helper.make_node("Add", [last, "r"], ["t3"]))
            y = y + r
            last = "t3"
        nodes.append(helper.make_node("Identity", [last], ["y"]))
        y = y.astype(np.float32)
        graph = helper.make_graph(
            nodes, name, inputs,
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)],
            inits)
        save_case(out, name, graph, feeds, y)
        # Sums of up to 96 products in float32 against float64: an element
        # near zero is off by ~1e-6.
        with open(os.path.join(out, name, "data.json"), "w") as f:
            json.dump({"rtol": 1e-4, "atol": 1e-5}, f)


if __name__ == "__main__":
    main(sys.argv[1])

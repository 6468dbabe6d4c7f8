# Writes pointwise convolutions (Conv with a 1x1 kernel), the other half of
# every depthwise-separable block, of the shapes real models have and the
# edge cases around them (channel and pixel counts that are no multiple of
# the vector width, a 1x1 feature map as in squeeze-and-excitation blocks,
# a 7x7 one with 512 filters, 192 channels on a 12x12 map, rows of 784
# pixels, no bias, a residual add, a batch of two, stride 2), each with
# inputs and
# the outputs of a numpy reference, in the ONNX test layout:
# OUT/CASE/model.onnx, OUT/CASE/test_data_set_0/*.pb
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CASES = [
    # name, N, C, F, spatial, stride, bias, epilogue, residual
    ("pw_relu6", 1, 24, 40, (14, 14), 1, True, "relu6", False),
    ("pw_residual", 1, 32, 32, (7, 7), 1, True, "none", True),
    ("pw_odd", 1, 58, 58, (9, 11), 1, True, "relu", False),
    ("pw_nobias_silu", 1, 16, 48, (10, 10), 1, False, "silu", False),
    ("pw_squeeze", 1, 40, 10, (1, 1), 1, True, "sigmoid", False),
    ("pw_excite", 1, 24, 100, (1, 1), 1, False, "none", False),
    ("pw_batch2", 2, 16, 24, (6, 6), 1, True, "relu", False),
    ("pw_stride2", 1, 16, 24, (9, 9), 2, True, "relu6", False),
    ("pw_rows_apart", 1, 16, 512, (7, 7), 1, True, "relu", True),
    ("pw_wide_small_map", 1, 192, 64, (12, 12), 1, True, "relu", True),
    ("pw_long_rows", 1, 40, 24, (28, 28), 1, True, "relu", False),
]


def main(out):
    rng = np.random.default_rng(21)
    for name, n, c, f, spatial, stride, bias, epi, residual in CASES:
        x = rng.standard_normal((n, c) + spatial).astype(np.float32)
        w = (rng.standard_normal((f, c, 1, 1)) / np.sqrt(c)).astype(np.float32)
        b = rng.standard_normal(f).astype(np.float32)
        if c >= 128:
            # Sums of many channels round by ~1e-6 in f32, beyond the
            # absolute tolerance where they fall near zero: a bias away
            # from zero keeps the comparison relative.
            b += np.float32(4)
        xs = x[:, :, ::stride, ::stride].astype(np.float64)
        y = np.einsum("fc,nchw->nfhw", w[:, :, 0, 0].astype(np.float64), xs)
        if bias:
            y += b.reshape(1, -1, 1, 1)
        inits = [numpy_helper.from_array(w, "w")]
        conv_inputs = ["x", "w"]
        if bias:
            inits.append(numpy_helper.from_array(b, "b"))
            conv_inputs.append("b")
        nodes = [helper.make_node("Conv", conv_inputs, ["t0"], kernel_shape=[1, 1],
                                  strides=[stride, stride])]
        last = "t0"
        if epi == "relu6":
            inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
                      numpy_helper.from_array(np.array(6, np.float32), "hi")]
            nodes.append(helper.make_node("Clip", [last, "lo", "hi"], ["t1"]))
            y = np.clip(y, 0, 6)
            last = "t1"
        elif epi == "relu":
            nodes.append(helper.make_node("Relu", [last], ["t1"]))
            y = np.maximum(y, 0)
            last = "t1"
        elif epi == "silu":
            nodes += [helper.make_node("Sigmoid", [last], ["s"]),
                      helper.make_node("Mul", [last, "s"], ["t1"])]
            y = y / (1 + np.exp(-y))
            last = "t1"
        elif epi == "sigmoid":
            nodes.append(helper.make_node("Sigmoid", [last], ["t1"]))
            y = 1 / (1 + np.exp(-y))
            last = "t1"
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)]
        feeds = [("x", x)]
        if residual:
            r = rng.standard_normal(y.shape).astype(np.float32)
            inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, r.shape))
            feeds.append(("r", r))
            nodes.append(helper.make_node("Add", [last, "r"], ["t2"]))
            y = y + r
            last = "t2"
        nodes.append(helper.make_node("Identity", [last], ["y"]))
        y = y.astype(np.float32)
        graph = helper.make_graph(
            nodes, name, inputs,
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)],
            inits)
        model = helper.make_model(graph,
                                  opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        case = os.path.join(out, name)
        os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
        onnx.save(model, os.path.join(case, "model.onnx"))
        for i, (tensor, array) in enumerate(feeds):
            path = os.path.join(case, "test_data_set_0", f"input_{i}.pb")
            with open(path, "wb") as fh:
                fh.write(numpy_helper.from_array(array, tensor).SerializeToString())
        with open(os.path.join(case, "test_data_set_0", "output_0.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(y, "y").SerializeToString())
        print(name)


if __name__ == "__main__":
    main(sys.argv[1])

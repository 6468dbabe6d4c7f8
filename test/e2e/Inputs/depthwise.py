# Writes depthwise convolutions (Conv with group = channels) of the shapes
# MobileNet-, EfficientNet- and ShuffleNet-class models have and of the edge
# cases around them (rows not a multiple of the vector width, stride 2,
# dilation, 5x5 windows, no padding, batch 2, no epilogue, one spatial
# dimension), each with inputs and the outputs of a numpy reference, in the
# ONNX test layout: OUT/CASE/model.onnx, OUT/CASE/test_data_set_0/*.pb
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def grouped_conv(x, w, b, group, strides, pads, dilations):
    """The ONNX Conv of `group` groups (float64): w is [F, C / group, K...]."""
    k = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[k + i]) for i in range(k)])
    window = w.shape[2:]
    out = [(x.shape[2 + i] - dilations[i] * (window[i] - 1) - 1) // strides[i] + 1
           for i in range(k)]
    n, c, f = x.shape[0], x.shape[1], w.shape[0]
    cg, fg = c // group, f // group
    y = np.zeros((n, f) + tuple(out), np.float64)
    for taps in np.ndindex(*window):
        view = x[(slice(None), slice(None)) + tuple(
            slice(taps[i] * dilations[i],
                  taps[i] * dilations[i] + strides[i] * (out[i] - 1) + 1,
                  strides[i]) for i in range(k))]
        for g in range(group):
            y[:, g * fg:(g + 1) * fg] += np.einsum(
                "fc,nc...->nf...", w[(slice(g * fg, (g + 1) * fg), slice(None)) + taps],
                view[:, g * cg:(g + 1) * cg])
    return y + b.reshape((1, -1) + (1,) * k)


EPILOGUES = {
    "none": (lambda y: y, []),
    "relu6": (lambda y: np.clip(y, 0, 6), ["Clip"]),
    "relu": (lambda y: np.maximum(y, 0), ["Relu"]),
    "silu": (lambda y: y / (1 + np.exp(-y)), ["Sigmoid", "Mul"]),
}

CASES = [
    # name, N, C, spatial, window, strides, pads, dilations, epilogue
    ("dw_s1_relu6", 1, 24, (20, 20), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), "relu6"),
    ("dw_s2", 1, 16, (17, 17), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), "none"),
    ("dw_5x5_relu", 1, 8, (14, 14), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1), "relu"),
    ("dw_dilated", 1, 8, (12, 12), (3, 3), (1, 1), (2, 2, 2, 2), (2, 2), "none"),
    ("dw_rect_silu", 1, 12, (10, 30), (3, 3), (1, 1), (0, 0, 0, 0), (1, 1), "silu"),
    ("dw_batch2", 2, 8, (9, 9), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), "relu6"),
    ("dw_asym_pads", 1, 16, (16, 16), (3, 3), (2, 2), (0, 0, 1, 1), (1, 1), "relu"),
    ("dw_1d", 1, 8, (33,), (3,), (1,), (1, 1), (1,), "relu"),
    # Channels along the vectors (blocks of 16): 5x5 windows on rows of
    # fewer than 16 pixels, or strided.
    ("dw_lanes_7_silu", 1, 32, (7, 7), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1), "silu"),
    ("dw_lanes_s2", 1, 16, (15, 15), (5, 5), (2, 2), (2, 2, 2, 2), (1, 1), "relu6"),
    ("dw_lanes_dilated_asym", 2, 48, (9, 11), (5, 5), (1, 1), (1, 2, 3, 0), (1, 2), "none"),
]


def write_case(out, name, x, w, b, group, window, strides, pads, dilations,
               epi, residual=None):
    """OUT/NAME/model.onnx (a Conv, its epilogue and a residual add) and its
    test data, the output from the float64 reference."""
    fn, ops = EPILOGUES[epi]
    y = fn(grouped_conv(x, w, b, group, strides, pads, dilations))
    last = "conv" if ops or residual is not None else "y"
    nodes = [helper.make_node(
        "Conv", ["x", "w", "b"], [last], group=group,
        kernel_shape=list(window), strides=list(strides), pads=list(pads),
        dilations=list(dilations))]
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    act = "act" if residual is not None else "y"
    if ops == ["Clip"]:
        inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
                  numpy_helper.from_array(np.array(6, np.float32), "hi")]
        nodes.append(helper.make_node("Clip", ["conv", "lo", "hi"], [act]))
    elif ops == ["Relu"]:
        nodes.append(helper.make_node("Relu", ["conv"], [act]))
    elif ops == ["Sigmoid", "Mul"]:
        nodes += [helper.make_node("Sigmoid", ["conv"], ["s"]),
                  helper.make_node("Mul", ["conv", "s"], [act])]
    else:
        act = "conv"
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)]
    feeds = [("x", x)]
    if residual is not None:
        inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, y.shape))
        feeds.append(("r", residual))
        nodes.append(helper.make_node("Add", [act, "r"], ["y"]))
        y = y + residual
    y = y.astype(np.float32)
    graph = helper.make_graph(
        nodes, name, inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)], inits)
    save_case(out, name, graph, feeds, y)


def save_case(out, name, graph, feeds, y):
    """Writes OUT/NAME/model.onnx (opset 17, checked) and its test data:
    the (name, array) feeds as input_K.pb, y as output_0.pb."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    case = os.path.join(out, name)
    os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    data = os.path.join(case, "test_data_set_0")
    for i, (tensor, array) in enumerate(feeds):
        with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, tensor).SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
    print(name)


def main(out):
    rng = np.random.default_rng(21)
    for name, n, c, spatial, window, strides, pads, dilations, epi in CASES:
        x = rng.standard_normal((n, c) + spatial).astype(np.float32)
        w = (rng.standard_normal((c, 1) + window) / 3).astype(np.float32)
        b = rng.standard_normal(c).astype(np.float32)
        write_case(out, name, x, w, b, c, window, strides, pads, dilations, epi)


if __name__ == "__main__":
    main(sys.argv[1])

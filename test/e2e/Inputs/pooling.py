# Writes 2-D max and average pooling of the shapes CNNs have (ResNet's 3x3
# stride-2 stem pool on a row that is no multiple of the vector width,
# GoogLeNet's 3x3 stride-1 pool, an average pool that leaves the pads out of
# its count, a ceil_mode pool, a batch of two), each with inputs and the
# outputs of a numpy reference, in the ONNX test layout:
# OUT/CASE/model.onnx, OUT/CASE/test_data_set_0/*.pb
import sys

import numpy as np
from onnx import TensorProto, helper

from depthwise import save_case

CASES = [
    # name, op, N, C, spatial, window, strides, pads, ceil, count_include_pad
    ("maxpool_s2", "MaxPool", 1, 16, (33, 33), (3, 3), (2, 2), (1, 1, 1, 1), 0, 0),
    ("maxpool_s1", "MaxPool", 1, 24, (14, 14), (3, 3), (1, 1), (1, 1, 1, 1), 0, 0),
    ("maxpool_ceil", "MaxPool", 2, 8, (10, 10), (3, 3), (2, 2), (0, 0, 0, 0), 1, 0),
    ("avgpool_exclude_pad", "AveragePool", 1, 12, (20, 20), (3, 3), (1, 1), (1, 1, 1, 1), 0, 0),
    ("avgpool_s2", "AveragePool", 1, 8, (17, 17), (2, 2), (2, 2), (0, 0, 0, 0), 0, 1),
]


def pool(x, op, window, strides, pads, ceil, include_pad):
    n, c, h, w = x.shape
    out = []
    for i in range(2):
        size = x.shape[2 + i] + pads[i] + pads[2 + i] - window[i]
        o = (-(-size // strides[i]) if ceil else size // strides[i]) + 1
        # ONNX: a window that starts in the end padding is dropped.
        if ceil and (o - 1) * strides[i] >= x.shape[2 + i] + pads[i]:
            o -= 1
        out.append(o)
    y = np.zeros((n, c, out[0], out[1]), np.float64)
    for oh in range(out[0]):
        for ow in range(out[1]):
            h0, w0 = oh * strides[0] - pads[0], ow * strides[1] - pads[1]
            h1, w1 = h0 + window[0], w0 + window[1]
            box = x[:, :, max(h0, 0):min(h1, h), max(w0, 0):min(w1, w)]
            if op == "MaxPool":
                y[:, :, oh, ow] = box.max(axis=(2, 3))
            else:
                if include_pad:
                    count = ((min(h1, h + pads[2]) - h0) *
                             (min(w1, w + pads[3]) - w0))
                else:
                    count = box.shape[2] * box.shape[3]
                y[:, :, oh, ow] = box.sum(axis=(2, 3)) / count
    return y


def main(out):
    rng = np.random.default_rng(21)
    for name, op, n, c, spatial, window, strides, pads, ceil, include in CASES:
        x = rng.standard_normal((n, c) + spatial).astype(np.float32)
        y = pool(x, op, window, strides, pads, ceil, include).astype(np.float32)
        attrs = dict(kernel_shape=list(window), strides=list(strides),
                     pads=list(pads), ceil_mode=ceil)
        if op == "AveragePool":
            attrs["count_include_pad"] = include
        graph = helper.make_graph(
            [helper.make_node(op, ["x"], ["y"], **attrs)], name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)])
        save_case(out, name, graph, [("x", x)], y)


if __name__ == "__main__":
    main(sys.argv[1])

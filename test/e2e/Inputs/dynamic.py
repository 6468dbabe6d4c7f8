# Writes models with dynamic dimensions (dim_params), each compiled once and
# run at several shapes: one test_data_set_K per shape, with inputs and the
# outputs of a numpy reference, in the ONNX test layout:
# OUT/CASE/model.onnx, OUT/CASE/test_data_set_K/*.pb
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(out, name, graph, sets):
    """OUT/NAME/model.onnx and, per (feeds, outputs) of `sets`, one
    test_data_set_K."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    case = os.path.join(out, name)
    os.makedirs(case, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    for k, (feeds, outputs) in enumerate(sets):
        data = os.path.join(case, f"test_data_set_{k}")
        os.makedirs(data, exist_ok=True)
        for i, (tensor, array) in enumerate(feeds):
            with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(array, tensor).SerializeToString())
        for i, (tensor, array) in enumerate(outputs):
            with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(array, tensor).SerializeToString())
    print(name)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def mlp(out, rng):
    """A batch of any size through two linear layers (Gemm, MatMul + Add)."""
    w1 = (rng.standard_normal((32, 16)) / 4).astype(np.float32)
    b1 = rng.standard_normal(32).astype(np.float32)
    w2 = (rng.standard_normal((32, 8)) / 4).astype(np.float32)
    b2 = rng.standard_normal(8).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1),
         helper.make_node("Relu", ["h"], ["r"]),
         helper.make_node("MatMul", ["r", "w2"], ["m"]),
         helper.make_node("Add", ["m", "b2"], ["s"]),
         helper.make_node("Sigmoid", ["s"], ["y"])],
        "dynamic_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
        [numpy_helper.from_array(a, n)
         for n, a in [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)]])
    sets = []
    for n in (1, 3, 8):
        x = rng.standard_normal((n, 16)).astype(np.float32)
        h = np.maximum(x.astype(np.float64) @ w1.T + b1, 0)
        y = sigmoid(h @ w2 + b2).astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_mlp", graph, sets)


def broadcast(out, rng):
    """Two dynamic extents, broadcast against 1 and against each other:
    x[B, T] * s[B, 1] + b[T], then the rows' ReLU."""
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "s"], ["m"]),
         helper.make_node("Add", ["m", "b"], ["a"]),
         helper.make_node("Relu", ["a"], ["y"])],
        "dynamic_broadcast",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", "T"]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, ["B", 1]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, ["T"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", "T"])])
    sets = []
    for b, t in ((1, 5), (3, 7), (8, 33)):
        x = rng.standard_normal((b, t)).astype(np.float32)
        s = rng.standard_normal((b, 1)).astype(np.float32)
        bias = rng.standard_normal(t).astype(np.float32)
        y = np.maximum(x * s + bias, 0).astype(np.float32)
        sets.append(([("x", x), ("s", s), ("b", bias)], [("y", y)]))
    save(out, "dynamic_broadcast", graph, sets)


def views(out, rng):
    """Extents through views: Flatten joins a dynamic extent with static
    ones; a transpose moves the dynamic extent of its output."""
    w = (rng.standard_normal((12, 5)) / 3).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Flatten", ["x"], ["f"], axis=1),
         helper.make_node("MatMul", ["f", "w"], ["m"]),
         helper.make_node("Transpose", ["m"], ["y"], perm=[1, 0])],
        "dynamic_views",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, "N"])],
        [numpy_helper.from_array(w, "w")])
    sets = []
    for n in (1, 2, 9):
        x = rng.standard_normal((n, 3, 4)).astype(np.float32)
        y = (x.reshape(n, 12).astype(np.float64) @ w).T.astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_views", graph, sets)


def conv2d(x, w, b, stride, pad):
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            y += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    return y + b[None, :, None, None]


def maxpool(x, k, stride, ceil):
    n, c, h, w = x.shape
    def out(d):
        o = -(-(d - k) // stride) + 1 if ceil else (d - k) // stride + 1
        return o - 1 if ceil and (o - 1) * stride >= d else o
    oh, ow = out(h), out(w)
    y = np.full((n, c, oh, ow), -np.inf)
    for i in range(oh):
        for j in range(ow):
            box = x[:, :, i * stride:i * stride + k, j * stride:j * stride + k]
            y[:, :, i, j] = box.max(axis=(2, 3))
    return y


def cnn(out, rng):
    """A batch of any size and images of any size: a strided 3x3 conv, a
    depthwise 3x3 conv, ReLU, a concatenation of both convs' maps, a 3x3
    stride-2 max pool in ceil_mode, a global average pool and a linear
    head."""
    w1 = (rng.standard_normal((8, 3, 3, 3)) / 3).astype(np.float32)
    b1 = rng.standard_normal(8).astype(np.float32)
    w2 = (rng.standard_normal((8, 1, 3, 3)) / 3).astype(np.float32)
    b2 = rng.standard_normal(8).astype(np.float32)
    fc = (rng.standard_normal((4, 16)) / 3).astype(np.float32)
    fb = rng.standard_normal(4).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1],
                          strides=[2, 2]),
         helper.make_node("Relu", ["c1"], ["r1"]),
         helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1],
                          group=8),
         helper.make_node("Relu", ["c2"], ["r2"]),
         helper.make_node("Concat", ["r2", "r1"], ["cat"], axis=1),
         helper.make_node("MaxPool", ["cat"], ["p"], kernel_shape=[3, 3],
                          strides=[2, 2], ceil_mode=1),
         helper.make_node("GlobalAveragePool", ["p"], ["g"]),
         helper.make_node("Flatten", ["g"], ["f"]),
         helper.make_node("Gemm", ["f", "fc", "fb"], ["y"], transB=1)],
        "dynamic_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 3, "height", "width"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        [numpy_helper.from_array(a, n) for n, a in
         [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("fc", fc), ("fb", fb)]])
    sets = []
    for n, h, w in ((1, 16, 16), (3, 16, 16), (8, 16, 16), (2, 21, 13)):
        x = rng.standard_normal((n, 3, h, w)).astype(np.float32)
        r1 = np.maximum(conv2d(x.astype(np.float64), w1, b1, 2, 1), 0)
        r2 = np.zeros_like(r1)
        for ch in range(8):
            r2[:, ch:ch + 1] = conv2d(r1[:, ch:ch + 1], w2[ch:ch + 1], b2[ch:ch + 1], 1, 1)
        cat = np.concatenate([np.maximum(r2, 0), r1], axis=1)
        p = maxpool(cat, 3, 2, True)
        y = (p.mean(axis=(2, 3)) @ fc.T + fb).astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_cnn", graph, sets)


def depthwise(x, w, b, stride, pad):
    """A depthwise convolution: each channel its own 1-channel conv2d."""
    return np.concatenate(
        [conv2d(x[:, c:c + 1], w[c:c + 1], b[c:c + 1], stride, pad)
         for c in range(x.shape[1])], axis=1)


def separable(out, rng):
    """Images of any size through depthwise-separable layers: a depthwise
    3x3 conv of 24 channels (blocks of 8 along the vectors) with ReLU6, a
    pointwise conv to 32 channels, a depthwise 5x5 conv of stride 2 (blocks
    of 16), and a 3x3 stride-2 max pool with padding; maps from 1 pixel to
    wider than a register tile."""
    w1 = (rng.standard_normal((24, 1, 3, 3)) / 3).astype(np.float32)
    b1 = rng.standard_normal(24).astype(np.float32)
    w2 = (rng.standard_normal((32, 24, 1, 1)) / 5).astype(np.float32)
    w3 = (rng.standard_normal((32, 1, 5, 5)) / 5).astype(np.float32)
    b3 = rng.standard_normal(32).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1],
                          group=24),
         helper.make_node("Clip", ["c1", "lo", "hi"], ["r1"]),
         helper.make_node("Conv", ["r1", "w2"], ["c2"]),
         helper.make_node("Conv", ["c2", "w3", "b3"], ["c3"], pads=[2, 2, 2, 2],
                          strides=[2, 2], group=32),
         helper.make_node("MaxPool", ["c3"], ["y"], kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1], strides=[2, 2])],
        "dynamic_separable",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 24, "height", "width"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", 32, "oh", "ow"])],
        [numpy_helper.from_array(a, n) for n, a in
         [("w1", w1), ("b1", b1), ("w2", w2), ("w3", w3), ("b3", b3),
          ("lo", np.float32(0)), ("hi", np.float32(6))]])
    sets = []
    for n, h, w in ((1, 9, 11), (2, 20, 37), (1, 1, 3)):
        x = rng.standard_normal((n, 24, h, w)).astype(np.float32)
        r1 = np.clip(depthwise(x.astype(np.float64), w1, b1, 1, 1), 0, 6)
        c2 = conv2d(r1, w2, np.zeros(32), 1, 0)
        c3 = depthwise(c2, w3, b3, 2, 2)
        padded = np.pad(c3, ((0, 0), (0, 0), (1, 1), (1, 1)),
                        constant_values=-np.inf)
        y = maxpool(padded, 3, 2, False).astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_separable", graph, sets)


def batch_depthwise(out, rng):
    """A batch of any size, maps of static extents: a depthwise 3x3 conv of
    16 channels with a ReLU, and a 2x2 max pool."""
    w = (rng.standard_normal((16, 1, 3, 3)) / 3).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1],
                          group=16),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[2, 2],
                          strides=[2, 2])],
        "dynamic_batch_depthwise",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 16, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", 16, 6, 6])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    sets = []
    for n in (1, 3):
        x = rng.standard_normal((n, 16, 12, 12)).astype(np.float32)
        c = np.maximum(depthwise(x.astype(np.float64), w, b, 1, 1), 0)
        sets.append(([("x", x)], [("y", maxpool(c, 2, 2, False).astype(np.float32))]))
    save(out, "dynamic_batch_depthwise", graph, sets)


def channels_last_linear(out, rng):
    """A linear layer over the last axis of [N, H, W, C] with every other
    extent dynamic (ConvNeXt's pointwise layers), then ReLU."""
    w = (rng.standard_normal((32, 48)) / 6).astype(np.float32)
    b = rng.standard_normal(48).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]),
         helper.make_node("Add", ["m", "b"], ["a"]),
         helper.make_node("Relu", ["a"], ["y"])],
        "dynamic_channels_last_linear",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", "height", "width", 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", "height", "width", 48])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    sets = []
    for n, h, wd in ((1, 5, 7), (2, 3, 1)):
        x = rng.standard_normal((n, h, wd, 32)).astype(np.float32)
        y = np.maximum(x.astype(np.float64) @ w + b, 0).astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_channels_last_linear", graph, sets)


def rows(out, rng):
    """Rows of a sequence of any length, batched: a layer norm over the
    features, a linear layer, a softmax over the features, a batch norm of
    the sequence positions' mean."""
    scale = rng.standard_normal(8).astype(np.float32)
    bias = rng.standard_normal(8).astype(np.float32)
    w = (rng.standard_normal((8, 8)) / 3).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["n"],
                          axis=-1, epsilon=1e-5),
         helper.make_node("MatMul", ["n", "w"], ["m"]),
         helper.make_node("Softmax", ["m"], ["s"], axis=-1),
         helper.make_node("ReduceMean", ["s"], ["y"], axes=[1], keepdims=0)],
        "dynamic_rows",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", "T", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", 8])],
        [numpy_helper.from_array(a, n)
         for n, a in [("scale", scale), ("bias", bias), ("w", w)]])
    sets = []
    for b, t in ((1, 1), (2, 5), (3, 17)):
        x = rng.standard_normal((b, t, 8)).astype(np.float32)
        x64 = x.astype(np.float64)
        mean = x64.mean(axis=-1, keepdims=True)
        var = ((x64 - mean) ** 2).mean(axis=-1, keepdims=True)
        n = (x64 - mean) / np.sqrt(var + 1e-5) * scale + bias
        m = n @ w
        e = np.exp(m - m.max(axis=-1, keepdims=True))
        s = e / e.sum(axis=-1, keepdims=True)
        y = s.mean(axis=1).astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_rows", graph, sets)


def shuffle(out, rng):
    """Shapes computed from dynamic extents, as PyTorch exports view() with
    x.size(): a channel shuffle (x.view(n, 2, c / 2, h, w), a transpose,
    .view(n, -1, h, w)), then a pool flattened with view(x.size(0), -1).
    Two outputs: the shuffled map and the pooled rows."""
    i64 = lambda name, values: numpy_helper.from_array(
        np.array(values, np.int64), name)
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0),
        helper.make_node("Gather", ["shape", "two"], ["h"], axis=0),
        helper.make_node("Gather", ["shape", "three"], ["w"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Unsqueeze", ["h", "axes"], ["h1"]),
        helper.make_node("Unsqueeze", ["w", "axes"], ["w1"]),
        helper.make_node("Concat", ["n1", "split", "h1", "w1"], ["s5"], axis=0),
        helper.make_node("Reshape", ["x", "s5"], ["x5"]),
        helper.make_node("Transpose", ["x5"], ["t5"], perm=[0, 2, 1, 3, 4]),
        helper.make_node("Concat", ["n1", "minus", "h1", "w1"], ["s4"], axis=0),
        helper.make_node("Reshape", ["t5", "s4"], ["mixed"]),
        helper.make_node("GlobalAveragePool", ["mixed"], ["pooled"]),
        helper.make_node("Shape", ["pooled"], ["pshape"]),
        helper.make_node("Gather", ["pshape", "zero"], ["m"], axis=0),
        helper.make_node("Unsqueeze", ["m", "axes"], ["m1"]),
        helper.make_node("Concat", ["m1", "minus"], ["s2"], axis=0),
        helper.make_node("Reshape", ["pooled", "s2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "dynamic_shuffle",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["N", 4, "H", "W"])],
        [helper.make_tensor_value_info("mixed", TensorProto.FLOAT,
                                       ["N", 4, "H", "W"]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        [i64("zero", 0), i64("two", 2), i64("three", 3), i64("axes", [0]),
         i64("split", [2, 2]), i64("minus", [-1])])
    sets = []
    for n, h, w in ((1, 3, 5), (3, 2, 2), (2, 6, 1)):
        x = rng.standard_normal((n, 4, h, w)).astype(np.float32)
        mixed = x.reshape(n, 2, 2, h, w).transpose(0, 2, 1, 3, 4).reshape(
            n, 4, h, w)
        y = mixed.mean(axis=(2, 3)).astype(np.float32)
        sets.append(([("x", x)], [("mixed", mixed), ("y", y)]))
    save(out, "dynamic_shuffle", graph, sets)


def residual(out, rng):
    """A residual block of 16 channels (the filter-lanes convolutions of a
    dynamic group, their rows tiled by registers and the remainder column by
    column): a 3x3 conv with bias, plus the input, ReLU, then a 1x1 stride-2
    conv to 32 channels, at rows shorter than, equal to and longer than a
    register tile, and not a multiple of it."""
    w1 = (rng.standard_normal((16, 16, 3, 3)) / 12).astype(np.float32)
    b1 = rng.standard_normal(16).astype(np.float32)
    w2 = (rng.standard_normal((32, 16, 1, 1)) / 4).astype(np.float32)
    b2 = rng.standard_normal(32).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Add", ["c", "x"], ["a"]),
         helper.make_node("Relu", ["a"], ["r"]),
         helper.make_node("Conv", ["r", "w2", "b2"], ["y"], strides=[2, 2])],
        "dynamic_residual",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 16, "height", "width"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", 32, "h2", "w2"])],
        [numpy_helper.from_array(a, n) for n, a in
         [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)]])
    sets = []
    for n, h, w in ((1, 8, 8), (2, 13, 9), (1, 1, 3), (3, 20, 17)):
        x = rng.standard_normal((n, 16, h, w)).astype(np.float32)
        r = np.maximum(conv2d(x.astype(np.float64), w1, b1, 1, 1) + x, 0)
        y = conv2d(r, w2, b2, 2, 0).astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_residual", graph, sets)


def attention(out, rng):
    """Causal self-attention of two heads over a sequence of any length, as
    PyTorch exports it: the shapes computed from Shape (batch * heads, the
    causal mask's [T, T] from ConstantOfShape and Trilu), q, k and v sliced
    from one projection, reshapes to extents the program computes."""
    i64 = lambda name, values: numpy_helper.from_array(
        np.array(values, np.int64), name)
    wqkv = (rng.standard_normal((8, 24)) / 3).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "wqkv"], ["qkv"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["b"], axis=0),
        helper.make_node("Gather", ["shape", "one"], ["t"], axis=0),
        helper.make_node("Mul", ["b", "heads"], ["bh"]),
        helper.make_node("Unsqueeze", ["b", "axes"], ["b1"]),
        helper.make_node("Unsqueeze", ["t", "axes"], ["t1"]),
        helper.make_node("Unsqueeze", ["bh", "axes"], ["bh1"]),
        helper.make_node("Concat", ["b1", "t1", "heads1", "four"], ["s4"],
                         axis=0),
        helper.make_node("Concat", ["bh1", "t1", "four"], ["s3"], axis=0),
        helper.make_node("Concat", ["t1", "t1"], ["tt"], axis=0),
        helper.make_node("ConstantOfShape", ["tt"], ["full"],
                         value=numpy_helper.from_array(
                             np.array([-np.inf], np.float32))),
        helper.make_node("Trilu", ["full", "one"], ["mask"], upper=1),
    ]
    for name, start in (("q", 0), ("k", 8), ("v", 16)):
        nodes += [
            helper.make_node("Slice", ["qkv", f"{name}_start", f"{name}_end",
                                       "last"], [f"{name}_flat"]),
            helper.make_node("Reshape", [f"{name}_flat", "s4"], [f"{name}4"]),
            helper.make_node("Transpose", [f"{name}4"], [f"{name}t"],
                             perm=[0, 2, 1, 3]),
            helper.make_node("Reshape", [f"{name}t", "s3"], [name]),
        ]
    nodes += [
        helper.make_node("Transpose", ["k"], ["k_tr"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "k_tr"], ["qk"]),
        helper.make_node("Div", ["qk", "scale"], ["scores"]),
        helper.make_node("Add", ["scores", "mask"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o"]),
        helper.make_node("Concat", ["b1", "heads1", "t1", "four"], ["o4s"],
                         axis=0),
        helper.make_node("Reshape", ["o", "o4s"], ["o4"]),
        helper.make_node("Transpose", ["o4"], ["ot"], perm=[0, 2, 1, 3]),
        helper.make_node("Concat", ["b1", "t1", "minus"], ["ys"], axis=0),
        helper.make_node("Reshape", ["ot", "ys"], ["y"]),
    ]
    inits = [numpy_helper.from_array(wqkv, "wqkv"),
             numpy_helper.from_array(np.array(2, np.float32), "scale"),
             i64("zero", 0), i64("one", 1), i64("heads", 2),
             i64("heads1", [2]), i64("four", [4]), i64("axes", [0]),
             i64("last", [2]), i64("minus", [-1])]
    for name, start in (("q", 0), ("k", 8), ("v", 16)):
        inits += [i64(f"{name}_start", [start]), i64(f"{name}_end", [start + 8])]
    graph = helper.make_graph(
        nodes, "dynamic_attention",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", "T", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", "T", 8])],
        inits)
    sets = []
    for b, t in ((1, 1), (2, 5), (3, 17)):
        x = rng.standard_normal((b, t, 8)).astype(np.float32)
        qkv = x.astype(np.float64) @ wqkv
        heads = [qkv[..., s:s + 8].reshape(b, t, 2, 4).transpose(0, 2, 1, 3)
                 for s in (0, 8, 16)]
        q, k, v = (h.reshape(b * 2, t, 4) for h in heads)
        scores = q @ k.transpose(0, 2, 1) / 2
        scores = scores + np.triu(np.full((t, t), -np.inf), 1)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        o = (p @ v).reshape(b, 2, t, 4).transpose(0, 2, 1, 3).reshape(b, t, 8)
        sets.append(([("x", x)], [("y", o.astype(np.float32))]))
    save(out, "dynamic_attention", graph, sets)


def linear_resize(x, axis, size):
    """ONNX Resize, linear, pytorch_half_pixel, along `axis` to `size`: the
    two taps around each sampled coordinate, clamped to the border."""
    n = x.shape[axis]
    o = np.arange(size, dtype=np.float64)
    c = (o + 0.5) * n / size - 0.5 if size > 1 else np.zeros(size)
    lo = np.floor(c)
    t = (c - lo).reshape([-1 if d == axis else 1 for d in range(x.ndim)])
    i0 = np.clip(lo.astype(np.int64), 0, n - 1)
    i1 = np.clip(lo.astype(np.int64) + 1, 0, n - 1)
    return np.take(x, i0, axis) * (1 - t) + np.take(x, i1, axis) * t


def upsample(out, rng):
    """A feature-pyramid merge on an image of any size: a coarse map doubled
    (Resize with constant scales, nearest) and resized bilinearly to the
    extents of a finer map (sizes from Shape, as PyTorch exports
    interpolate(x, size=f.shape[-2:]))."""
    i64 = lambda name, values: numpy_helper.from_array(
        np.array(values, np.int64), name)
    nodes = [
        helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest"),
        helper.make_node("Shape", ["x"], ["xs"]),
        helper.make_node("Shape", ["f"], ["fs"]),
        helper.make_node("Slice", ["xs", "zero", "two"], ["nc"]),
        helper.make_node("Slice", ["fs", "two", "four"], ["hw"]),
        helper.make_node("Concat", ["nc", "hw"], ["sizes"], axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["r"],
                         mode="linear",
                         coordinate_transformation_mode="pytorch_half_pixel"),
        helper.make_node("Add", ["r", "f"], ["z"]),
    ]
    inits = [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32),
                                     "scales"),
             i64("zero", [0]), i64("two", [2]), i64("four", [4])]
    graph = helper.make_graph(
        nodes, "dynamic_upsample",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "H", "W"]),
         helper.make_tensor_value_info("f", TensorProto.FLOAT,
                                       [1, 3, "H2", "W2"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, None, None]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT,
                                       [1, 3, "H2", "W2"])],
        inits)
    sets = []
    for (h, w), (h2, w2) in (((4, 6), (7, 9)), ((5, 3), (10, 6)),
                             ((1, 2), (3, 1))):
        x = rng.standard_normal((1, 3, h, w)).astype(np.float32)
        f = rng.standard_normal((1, 3, h2, w2)).astype(np.float32)
        y = x.repeat(2, axis=2).repeat(2, axis=3)
        r = linear_resize(linear_resize(x.astype(np.float64), 2, h2), 3, w2)
        sets.append(([("x", x), ("f", f)],
                     [("y", y), ("z", (r + f).astype(np.float32))]))
    save(out, "dynamic_upsample", graph, sets)


def pointwise_map(out, rng):
    """One image of any height and width (a detection backbone's input):
    pointwise convolutions of 16 -> 112 channels (the pixels' product) and
    112 -> 16 (the filter-lanes form), with bias, ReLU6 and a residual
    add."""
    w1 = (rng.standard_normal((112, 16, 1, 1)) / 4).astype(np.float32)
    b1 = rng.standard_normal(112).astype(np.float32)
    w2 = (rng.standard_normal((16, 112, 1, 1)) / 10).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"]),
         helper.make_node("Clip", ["c1", "lo", "hi"], ["r1"]),
         helper.make_node("Conv", ["r1", "w2"], ["c2"]),
         helper.make_node("Add", ["c2", "x"], ["y"])],
        "dynamic_pointwise_map",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [1, 16, "height", "width"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [1, 16, "height", "width"])],
        [numpy_helper.from_array(a, n) for n, a in
         [("w1", w1), ("b1", b1), ("w2", w2), ("lo", np.float32(0)),
          ("hi", np.float32(6))]])
    sets = []
    for h, wd in ((9, 11), (20, 37), (1, 3)):
        x = rng.standard_normal((1, 16, h, wd)).astype(np.float32)
        r1 = np.clip(conv2d(x.astype(np.float64), w1, b1, 1, 0), 0, 6)
        y = (conv2d(r1, w2, np.zeros(16), 1, 0) + x).astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_pointwise_map", graph, sets)


def grouped(out, rng):
    """Grouped 3x3 convolutions (RegNet's groups of 8 channels) on maps and
    batches of any size: stride 1 with bias and ReLU, then stride 2."""
    w1 = (rng.standard_normal((32, 8, 3, 3)) / 8).astype(np.float32)
    b1 = rng.standard_normal(32).astype(np.float32)
    w2 = (rng.standard_normal((32, 8, 3, 3)) / 8).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1],
                          group=4),
         helper.make_node("Relu", ["c1"], ["r1"]),
         helper.make_node("Conv", ["r1", "w2"], ["y"], pads=[1, 1, 1, 1],
                          strides=[2, 2], group=4)],
        "dynamic_grouped",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 32, "height", "width"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", 32, "oh", "ow"])],
        [numpy_helper.from_array(a, n) for n, a in
         [("w1", w1), ("b1", b1), ("w2", w2)]])

    def grouped_conv(x, w, b, stride):
        return np.concatenate(
            [conv2d(x[:, 8 * g:8 * g + 8], w[8 * g:8 * g + 8], b[8 * g:8 * g + 8],
                    stride, 1) for g in range(4)], axis=1)
    sets = []
    for n, h, wd in ((1, 9, 11), (2, 20, 37), (1, 2, 3)):
        x = rng.standard_normal((n, 32, h, wd)).astype(np.float32)
        r1 = np.maximum(grouped_conv(x.astype(np.float64), w1, b1, 1), 0)
        y = grouped_conv(r1, w2, np.zeros(32), 2).astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_grouped", graph, sets)


def batch_pointwise(out, rng):
    """Batches and maps of any size through MobileNetV3's pointwise layers:
    a pointwise conv of 24 -> 48 channels with bias and HardSwish (the
    weight shared by every image's product), a squeeze-excitation block
    (global pooling, 1x1 convs of 48 -> 12 -> 48 on a 1x1 map, ReLU,
    HardSigmoid, the scale) and a pointwise conv of 48 -> 24 with a
    residual add; maps of fewer pixels than a register tile, of a tile and
    a few, and of several tiles."""
    w1 = (rng.standard_normal((48, 24, 1, 1)) / 5).astype(np.float32)
    b1 = rng.standard_normal(48).astype(np.float32)
    ws = (rng.standard_normal((12, 48, 1, 1)) / 7).astype(np.float32)
    bs = rng.standard_normal(12).astype(np.float32)
    we = (rng.standard_normal((48, 12, 1, 1)) / 3).astype(np.float32)
    be = rng.standard_normal(48).astype(np.float32)
    w2 = (rng.standard_normal((24, 48, 1, 1)) / 7).astype(np.float32)
    b2 = rng.standard_normal(24).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"]),
         helper.make_node("HardSwish", ["c1"], ["h1"]),
         helper.make_node("GlobalAveragePool", ["h1"], ["p"]),
         helper.make_node("Conv", ["p", "ws", "bs"], ["s1"]),
         helper.make_node("Relu", ["s1"], ["s2"]),
         helper.make_node("Conv", ["s2", "we", "be"], ["s3"]),
         helper.make_node("HardSigmoid", ["s3"], ["s4"], alpha=1 / 6),
         helper.make_node("Mul", ["h1", "s4"], ["m"]),
         helper.make_node("Conv", ["m", "w2", "b2"], ["c2"]),
         helper.make_node("Add", ["c2", "x"], ["y"])],
        "dynamic_batch_pointwise",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 24, "height", "width"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", 24, "height", "width"])],
        [numpy_helper.from_array(a, n) for n, a in
         [("w1", w1), ("b1", b1), ("ws", ws), ("bs", bs), ("we", we),
          ("be", be), ("w2", w2), ("b2", b2)]])

    def hardswish(v):
        return v * np.clip(v + 3, 0, 6) / 6
    sets = []
    for n, h, wd in ((3, 9, 11), (1, 5, 5), (8, 6, 6)):
        x = rng.standard_normal((n, 24, h, wd)).astype(np.float32)
        h1 = hardswish(conv2d(x.astype(np.float64), w1, b1, 1, 0))
        p = h1.mean(axis=(2, 3), keepdims=True)
        s2 = np.maximum(conv2d(p, ws, bs, 1, 0), 0)
        s4 = np.clip(conv2d(s2, we, be, 1, 0) / 6 + 0.5, 0, 1)
        y = (conv2d(h1 * s4, w2, b2, 1, 0) + x).astype(np.float32)
        sets.append(([("x", x)], [("y", y)]))
    save(out, "dynamic_batch_pointwise", graph, sets)


def row_depthwise(out, rng):
    """A depthwise 3x3 conv of 12 channels (no block of 8 or 16 divides
    them: the row form) with ReLU6 on images of any batch and size: rows
    longer than a register tile with columns over (37), exactly one tile
    (16), and narrower than one (5); bands with rows over."""
    w = (rng.standard_normal((12, 1, 3, 3)) / 3).astype(np.float32)
    b = rng.standard_normal(12).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1],
                          group=12),
         helper.make_node("Clip", ["c", "lo", "hi"], ["y"])],
        "dynamic_row_depthwise",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 12, "height", "width"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", 12, "height", "width"])],
        [numpy_helper.from_array(a, n) for n, a in
         [("w", w), ("b", b), ("lo", np.float32(0)), ("hi", np.float32(6))]])
    sets = []
    for n, h, w_ in ((1, 9, 37), (2, 20, 16), (1, 3, 5)):
        x = rng.standard_normal((n, 12, h, w_)).astype(np.float32)
        y = np.clip(depthwise(x.astype(np.float64), w, b, 1, 1), 0, 6)
        sets.append(([("x", x)], [("y", y.astype(np.float32))]))
    save(out, "dynamic_row_depthwise", graph, sets)


def batch_small_maps(out, rng):
    """A batch of any size, maps of 5x5 (the last stage of a network at
    160x160): a pointwise conv of 128 -> 128 (filters along the vectors) and
    a depthwise 5x5 conv of 128 channels (channels along the vectors) with
    ReLU, whose rows of 5 no tile of 4 columns divides."""
    w1 = (rng.standard_normal((128, 128, 1, 1)) / 11).astype(np.float32)
    w2 = (rng.standard_normal((128, 1, 5, 5)) / 5).astype(np.float32)
    b2 = rng.standard_normal(128).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w1"], ["c1"]),
         helper.make_node("Conv", ["c1", "w2", "b2"], ["c2"],
                          pads=[2, 2, 2, 2], group=128),
         helper.make_node("Relu", ["c2"], ["y"])],
        "dynamic_batch_small_maps",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 128, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", 128, 5, 5])],
        [numpy_helper.from_array(a, n) for n, a in
         [("w1", w1), ("w2", w2), ("b2", b2)]])
    sets = []
    for n in (1, 3):
        x = rng.standard_normal((n, 128, 5, 5)).astype(np.float32)
        c1 = conv2d(x.astype(np.float64), w1, np.zeros(128), 1, 0)
        y = np.maximum(depthwise(c1, w2, b2, 1, 2), 0)
        sets.append(([("x", x)], [("y", y.astype(np.float32))]))
    save(out, "dynamic_batch_small_maps", graph, sets)


def main(out):
    rng = np.random.default_rng(21)
    shuffle(out, rng)
    mlp(out, rng)
    broadcast(out, rng)
    views(out, rng)
    cnn(out, rng)
    rows(out, rng)
    residual(out, rng)
    attention(out, rng)
    upsample(out, rng)
    separable(out, rng)
    batch_depthwise(out, rng)
    channels_last_linear(out, rng)
    pointwise_map(out, rng)
    grouped(out, rng)
    batch_pointwise(out, rng)
    row_depthwise(out, rng)
    batch_small_maps(out, rng)


if __name__ == "__main__":
    main(sys.argv[1])

# Writes RNN, GRU and LSTM models that exercise what the ONNX node tests do
# not (reverse and bidirectional directions, layout 1, sequence_lens shorter
# than the sequence, linear_before_reset, peepholes, clip, other
# activations, a sequence length and batch known at run time only), each
# with inputs and the outputs of a step-by-step numpy reference of the ONNX
# definition, in the ONNX test layout:
#   OUT/CASE/model.onnx, OUT/CASE/test_data_set_0/{input,output}_K.pb
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

ACT = {
    "Tanh": np.tanh,
    "Sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "Relu": lambda x: np.maximum(x, 0),
    "Softsign": lambda x: x / (1 + np.abs(x)),
}


def reference(cell, x, w, r, b, lens, h0, c0, p, hidden, direction, layout,
              acts, clip, lbr):
    if layout == 1:
        x = x.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    steps, batch, _ = x.shape
    dirs = 2 if direction == "bidirectional" else 1
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[cell]
    per = len(acts) // dirs
    y = np.zeros((steps, dirs, batch, hidden), np.float32)
    yh = np.zeros((dirs, batch, hidden), np.float32)
    yc = np.zeros((dirs, batch, hidden), np.float32)
    if lens is None:
        lens = np.full(batch, steps)
    f = lambda k, v: ACT[acts[k]](np.clip(v, -clip, clip) if clip else v)
    for d in range(dirs):
        fs = list(range(d * per, (d + 1) * per))
        wd, rd = w[d], r[d]
        bd = b[d] if b is not None else np.zeros(2 * gates * hidden, np.float32)
        wb, rb = np.split(bd, 2)
        for n in range(batch):
            h = h0[d, n].copy() if h0 is not None else np.zeros(hidden, np.float32)
            c = c0[d, n].copy() if c0 is not None else np.zeros(hidden, np.float32)
            order = range(lens[n])
            if direction == "reverse" or d == 1:
                order = reversed(order)
            for t in order:
                xt = x[t, n]
                if cell == "RNN":
                    h = f(fs[0], wd @ xt + rd @ h + wb + rb)
                elif cell == "GRU":
                    W = np.split(wd, 3); R = np.split(rd, 3)
                    WB = np.split(wb, 3); RB = np.split(rb, 3)
                    z = f(fs[0], W[0] @ xt + R[0] @ h + WB[0] + RB[0])
                    rg = f(fs[0], W[1] @ xt + R[1] @ h + WB[1] + RB[1])
                    if lbr:
                        hh = f(fs[1], W[2] @ xt + rg * (R[2] @ h + RB[2]) + WB[2])
                    else:
                        hh = f(fs[1], W[2] @ xt + R[2] @ (rg * h) + RB[2] + WB[2])
                    h = (1 - z) * hh + z * h
                else:
                    W = np.split(wd, 4); R = np.split(rd, 4)
                    WB = np.split(wb, 4); RB = np.split(rb, 4)
                    P = np.split(p[d], 3) if p is not None else [0, 0, 0]
                    i = f(fs[0], W[0] @ xt + R[0] @ h + P[0] * c + WB[0] + RB[0])
                    fg = f(fs[0], W[2] @ xt + R[2] @ h + P[2] * c + WB[2] + RB[2])
                    g = f(fs[1], W[3] @ xt + R[3] @ h + WB[3] + RB[3])
                    c = fg * c + i * g
                    o = f(fs[0], W[1] @ xt + R[1] @ h + P[1] * c + WB[1] + RB[1])
                    h = o * f(fs[2], c)
                y[t, d, n] = h
            yh[d, n] = h
            yc[d, n] = c
    if layout == 1:
        return y.transpose(2, 0, 1, 3), yh.transpose(1, 0, 2), yc.transpose(1, 0, 2)
    return y, yh, yc


def case(out, name, cell, steps=4, batch=3, size=2, hidden=3,
         direction="forward", layout=0, lens=None, bias=True, init=False,
         peep=False, acts=None, clip=None, lbr=0, seed=0, dynamic=False):
    rng = np.random.default_rng(seed)
    dirs = 2 if direction == "bidirectional" else 1
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[cell]
    rand = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)
    x = rand(steps, batch, size) if layout == 0 else rand(batch, steps, size)
    w, r = rand(dirs, gates * hidden, size), rand(dirs, gates * hidden, hidden)
    b = rand(dirs, 2 * gates * hidden) if bias else None
    state = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
    h0 = rand(*state) if init else None
    c0 = rand(*state) if init and cell == "LSTM" else None
    p = rand(dirs, 3 * hidden) if peep else None
    lens_arr = np.array(lens, np.int32) if lens is not None else None
    default = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
               "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[cell]
    acts = acts or default * dirs
    y, yh, yc = reference(cell, x if layout == 0 else x, w, r, b, lens_arr,
                          h0, c0, p, hidden, direction, layout, acts, clip, lbr)

    names = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
    values = [x, w, r, b, lens_arr, h0, c0, p]
    if cell != "LSTM":
        names, values = names[:6], values[:6]
    while values and values[-1] is None:
        names.pop(); values.pop()
    node_inputs = [nm if v is not None else "" for nm, v in zip(names, values)]
    outputs = ["Y", "Y_h"] + (["Y_c"] if cell == "LSTM" else [])
    results = [y, yh, yc][: len(outputs)]
    attrs = dict(hidden_size=hidden, direction=direction, layout=layout,
                 activations=acts)
    if clip:
        attrs["clip"] = clip
    if cell == "GRU":
        attrs["linear_before_reset"] = lbr
    node = helper.make_node(cell, node_inputs, outputs, **attrs)
    # dynamic: the sequence length and the batch declared as dim_params
    # (the node's layout says where they are).
    def declared(nm, shape):
        if not dynamic:
            return list(shape)
        tb = ("T", "B") if layout == 0 else ("B", "T")
        where = {"X": tb + (None,), "Y": (tb[0], None, tb[1], None),
                 "sequence_lens": ("B",)}
        state = ("D", "B", None) if layout == 0 else ("B", "D", None)
        dims = where.get(nm, state if nm in ("initial_h", "initial_c", "Y_h", "Y_c")
                         else (None,) * len(shape))
        return [d if d in ("T", "B") else s for d, s in zip(dims, shape)]
    graph_inputs = [
        helper.make_tensor_value_info(
            nm, TensorProto.INT32 if nm == "sequence_lens" else TensorProto.FLOAT,
            declared(nm, v.shape) if nm not in ("W", "R", "B", "P") else list(v.shape))
        for nm, v in zip(names, values) if v is not None]
    graph_outputs = [helper.make_tensor_value_info(o, TensorProto.FLOAT,
                                                   declared(o, v.shape))
                     for o, v in zip(outputs, results)]
    graph = helper.make_graph([node], name, graph_inputs, graph_outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    data = os.path.join(out, name, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out, name, "model.onnx"))
    k = 0
    for v in values:
        if v is not None:
            onnx.save_tensor(numpy_helper.from_array(v), os.path.join(data, f"input_{k}.pb"))
            k += 1
    for k, v in enumerate(results):
        onnx.save_tensor(numpy_helper.from_array(v), os.path.join(data, f"output_{k}.pb"))
    print(name)


out = sys.argv[1]
case(out, "rnn_bidirectional_layout1_relu", "RNN", direction="bidirectional",
     layout=1, acts=["Relu", "Tanh"], init=True)
case(out, "rnn_reverse_lens", "RNN", direction="reverse", lens=[4, 2, 1])
case(out, "gru_bidirectional_lbr_lens", "GRU", direction="bidirectional",
     lbr=1, lens=[3, 4, 1], init=True)
case(out, "gru_reverse_clip", "GRU", direction="reverse", clip=0.5,
     acts=["Sigmoid", "Softsign"])
case(out, "lstm_bidirectional_peepholes_lens", "LSTM", direction="bidirectional",
     peep=True, init=True, lens=[2, 4, 3])
case(out, "lstm_reverse_layout1", "LSTM", direction="reverse", layout=1,
     bias=False)
# The same cells with the sequence length and the batch known at run time
# only: the steps are a loop over the time steps.
case(out, "rnn_bidirectional_layout1_relu_dynamic", "RNN",
     direction="bidirectional", layout=1, acts=["Relu", "Tanh"], init=True,
     dynamic=True)
case(out, "gru_bidirectional_lbr_lens_dynamic", "GRU", direction="bidirectional",
     lbr=1, lens=[3, 4, 1], init=True, dynamic=True, steps=5)
case(out, "lstm_bidirectional_peepholes_lens_dynamic", "LSTM",
     direction="bidirectional", peep=True, init=True, lens=[2, 4, 3],
     dynamic=True)
case(out, "lstm_reverse_layout1_dynamic", "LSTM", direction="reverse",
     layout=1, bias=False, dynamic=True, steps=6, batch=2)
case(out, "gru_forward_dynamic", "GRU", dynamic=True, steps=1, batch=1)

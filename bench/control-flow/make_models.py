# Writes the control-flow benchmark models of bench/RESULTS.md ("Session 20"):
# rnn_loop.onnx   Loop of 64 steps (trip count a constant), h = tanh(h @ W + x[i]) on
#                 [1, 256] with W 256x256, each step's h a scan output [64, 1, 256];
# scan_rows.onnx  Scan over the 512 rows of x [512, 1024]: running sum, every partial
#                 sum stacked [512, 1024];
# if_matmul.onnx  If (ReduceSum(x) > 0) between Relu(x @ A) and Neg(x @ B), x [64, 512],
#                 A and B 512x512.
import numpy as np
import onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh

rng = np.random.default_rng(0)


def save(name, nodes, ins, outs, inits=()):
    m = h.make_model(h.make_graph(nodes, name, ins, outs, list(inits)),
                     opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, name + ".onnx")


def weight(name, *shape):
    return nh.from_array((rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32), name)


body = h.make_graph(
    [h.make_node("Identity", ["c"], ["c2"]),
     h.make_node("Gather", ["x", "i"], ["row"], axis=0),
     h.make_node("MatMul", ["hin", "W"], ["p"]),
     h.make_node("Add", ["p", "row"], ["s"]),
     h.make_node("Tanh", ["s"], ["hout"]),
     h.make_node("Identity", ["hout"], ["step"])],
    "step", [h.make_tensor_value_info("i", T.INT64, []), h.make_tensor_value_info("c", T.BOOL, []),
             h.make_tensor_value_info("hin", T.FLOAT, [1, 256])],
    [h.make_tensor_value_info("c2", T.BOOL, []), h.make_tensor_value_info("hout", T.FLOAT, [1, 256]),
     h.make_tensor_value_info("step", T.FLOAT, [1, 256])])
save("rnn_loop", [h.make_node("Loop", ["m", "go", "h0"], ["h", "steps"], body=body)],
     [h.make_tensor_value_info("x", T.FLOAT, [64, 256])],
     [h.make_tensor_value_info("h", T.FLOAT, [1, 256]), h.make_tensor_value_info("steps", T.FLOAT, ["n", 1, 256])],
     [h.make_tensor("m", T.INT64, [], [64]), h.make_tensor("go", T.BOOL, [], [True]),
      nh.from_array(np.zeros((1, 256), np.float32), "h0"), weight("W", 256, 256)])

scan_body = h.make_graph(
    [h.make_node("Add", ["s", "r"], ["s2"]), h.make_node("Identity", ["s2"], ["o"])],
    "rows", [h.make_tensor_value_info("s", T.FLOAT, [1024]), h.make_tensor_value_info("r", T.FLOAT, [1024])],
    [h.make_tensor_value_info("s2", T.FLOAT, [1024]), h.make_tensor_value_info("o", T.FLOAT, [1024])])
save("scan_rows", [h.make_node("Scan", ["init", "x"], ["total", "partial"], body=scan_body, num_scan_inputs=1)],
     [h.make_tensor_value_info("x", T.FLOAT, [512, 1024])],
     [h.make_tensor_value_info("total", T.FLOAT, [1024]), h.make_tensor_value_info("partial", T.FLOAT, [512, 1024])],
     [nh.from_array(np.zeros(1024, np.float32), "init")])

then_g = h.make_graph([h.make_node("MatMul", ["x", "A"], ["p"]), h.make_node("Relu", ["p"], ["t"])],
                      "then", [], [h.make_tensor_value_info("t", T.FLOAT, [64, 512])])
else_g = h.make_graph([h.make_node("MatMul", ["x", "B"], ["q"]), h.make_node("Neg", ["q"], ["e"])],
                      "else", [], [h.make_tensor_value_info("e", T.FLOAT, [64, 512])])
save("if_matmul", [h.make_node("ReduceSum", ["x"], ["sum"], keepdims=0),
                   h.make_node("Greater", ["sum", "zero"], ["c"]),
                   h.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
     [h.make_tensor_value_info("x", T.FLOAT, [64, 512])],
     [h.make_tensor_value_info("y", T.FLOAT, [64, 512])],
     [h.make_tensor("zero", T.FLOAT, [], [0.0]), weight("A", 512, 512), weight("B", 512, 512)])

# Writes the data-dependent benchmark models of bench/RESULTS.md ("Session 19"):
# masked_sum.onnx (Relu -> NonZero -> Transpose -> GatherND -> ReduceSum, torch x[x > 0].sum() on 1x64x112x112) and
# nms_head.onnx (NonMaxSuppression of 1000 boxes x 80 classes, at most 100 per class, IOU 0.5, score 0.05).
import onnx
from onnx import helper as h, TensorProto as T
def save(name, nodes, ins, outs, inits=()):
    m = h.make_model(h.make_graph(nodes, name, ins, outs, list(inits)), opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, name + ".onnx")
save("masked_sum", [h.make_node("Relu", ["x"], ["r"]), h.make_node("NonZero", ["r"], ["p"]),
     h.make_node("Transpose", ["p"], ["pt"]), h.make_node("GatherND", ["r", "pt"], ["v"]),
     h.make_node("ReduceSum", ["v"], ["s"], keepdims=1)],
     [h.make_tensor_value_info("x", T.FLOAT, [1, 64, 112, 112])],
     [h.make_tensor_value_info("s", T.FLOAT, [1])])
save("nms_head", [h.make_node("NonMaxSuppression", ["boxes", "scores", "m", "iou", "floor"], ["sel"], center_point_box=0)],
     [h.make_tensor_value_info("boxes", T.FLOAT, [1, 1000, 4]), h.make_tensor_value_info("scores", T.FLOAT, [1, 80, 1000])],
     [h.make_tensor_value_info("sel", T.INT64, ["k", 3])],
     [h.make_tensor("m", T.INT64, [1], [100]), h.make_tensor("iou", T.FLOAT, [1], [0.5]), h.make_tensor("floor", T.FLOAT, [1], [0.05])])

"""Every dtype numpy and int21 share crosses the boundary unchanged: one
model with a Transpose per dtype (one compile, many inputs and outputs)."""

import numpy as np
from onnx import helper

import int21
from conftest import onnx_elem_type

DTYPES = ["bool", "float16", "float32", "float64", "int8", "int16", "int32",
          "int64", "uint8", "uint16", "uint32", "uint64"]


def test_every_dtype_round_trips():
    graph = helper.make_graph(
        [helper.make_node("Transpose", [f"x_{t}"], [f"y_{t}"], perm=[1, 0])
         for t in DTYPES],
        "dtypes",
        [helper.make_tensor_value_info(f"x_{t}", onnx_elem_type(t), [2, 3]) for t in DTYPES],
        [helper.make_tensor_value_info(f"y_{t}", onnx_elem_type(t), [3, 2]) for t in DTYPES],
    )
    engine = int21.compile(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]))
    assert [i.dtype for i in engine.inputs] == [np.dtype(t) for t in DTYPES]
    assert [o.dtype for o in engine.outputs] == [np.dtype(t) for t in DTYPES]
    feeds = {f"x_{t}": (np.arange(6).reshape(2, 3) % 2 if t == "bool"
                        else np.arange(6).reshape(2, 3) + 1).astype(t)
             for t in DTYPES}
    outputs = engine.run(feeds)
    for t in DTYPES:
        assert outputs[f"y_{t}"].dtype == np.dtype(t)
        np.testing.assert_array_equal(outputs[f"y_{t}"], feeds[f"x_{t}"].T)

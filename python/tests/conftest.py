"""Shared fixtures of the int21 Python tests: the repository, the shared
models (compiled once per session) and tiny models built with onnx.helper."""

import atexit
import os
import pathlib
import shutil
import tempfile

import numpy as np
import onnx
import pytest
from onnx import helper, mapping, numpy_helper

import int21

# The default knowledge base lives under $XDG_CACHE_HOME: the tests get their
# own, empty one, so that what a developer tuned never changes what they see;
# it goes when the session ends.
_CACHE = tempfile.mkdtemp(prefix="int21-pytest-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT.parent / "shared" / "models"
SHARED_MODELS = ["mlp", "encoder", "resnet18"]


def read_tensor(path):
    """A TensorProto file (.pb) as a numpy array."""
    return numpy_helper.to_array(onnx.load_tensor(str(path)))


def onnx_elem_type(dtype):
    """The ONNX TensorProto element type of a numpy dtype (onnx 1.12 API)."""
    return mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]


def numpy_dtype(elem_type):
    """The numpy dtype of an ONNX TensorProto element type."""
    return np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type])


def tiny_model(op, dtype, in_shape, out_shape, **attributes):
    """A one-node model y = op(x), built in memory."""
    elem = onnx_elem_type(dtype)
    graph = helper.make_graph(
        [helper.make_node(op, ["x"], ["y"], name=f"{op.lower()}_node", **attributes)],
        "tiny",
        [helper.make_tensor_value_info("x", elem, in_shape)],
        [helper.make_tensor_value_info("y", elem, out_shape)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture(scope="session")
def shared_model():
    """shared_model(name) -> (engine, inputs, expected outputs), compiled once."""
    if not MODELS.is_dir():
        pytest.skip(f"the shared models are not at {MODELS}")
    cache = {}

    def get(name):
        if name not in cache:
            data = MODELS / name / "test_data_set_0"
            engine = int21.compile(str(MODELS / f"{name}.onnx"))
            inputs = sorted(data.glob("input_*.pb"))
            outputs = sorted(data.glob("output_*.pb"))
            cache[name] = (
                engine,
                {info.name: read_tensor(p) for info, p in zip(engine.inputs, inputs)},
                {info.name: read_tensor(p) for info, p in zip(engine.outputs, outputs)},
            )
        return cache[name]

    return get


@pytest.fixture(scope="session")
def relu_engine():
    """y = Relu(x) on float32 3x4: a model that compiles in a moment."""
    return int21.compile(tiny_model("Relu", np.float32, [3, 4], [3, 4]))

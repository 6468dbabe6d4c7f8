"""The shared models compiled and run through Python, against the outputs
their test_data_set_0 records (the bound of test/e2e/engines.test)."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
import pytest

import int21
from conftest import MODELS, SHARED_MODELS, numpy_dtype, tiny_model


def rel_l2(got, want):
    return np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)


@pytest.mark.parametrize("name", SHARED_MODELS)
def test_shared_model_matches_expected_outputs(shared_model, name):
    engine, inputs, expected = shared_model(name)
    outputs = engine.run(inputs)
    assert list(outputs) == [info.name for info in engine.outputs]
    for out_name, want in expected.items():
        got = outputs[out_name]
        assert got.dtype == want.dtype and got.shape == want.shape
        assert rel_l2(got, want) < 1e-4, out_name
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("name", SHARED_MODELS)
def test_engine_describes_the_models_graph(shared_model, name):
    engine, _, _ = shared_model(name)
    graph = onnx.load(str(MODELS / f"{name}.onnx"), load_external_data=False).graph
    initializers = {t.name for t in graph.initializer}
    declared = [v for v in graph.input if v.name not in initializers]
    assert [i.name for i in engine.inputs] == [v.name for v in declared]
    assert [o.name for o in engine.outputs] == [v.name for v in graph.output]
    for info, value in zip(engine.inputs, declared):
        tensor_type = value.type.tensor_type
        assert info.dtype == numpy_dtype(tensor_type.elem_type)
        assert info.shape == tuple(d.dim_value for d in tensor_type.shape.dim)
        # A TensorInfo is also the tuple (name, dtype, shape).
        name, dtype, shape = info
        assert info == (value.name, numpy_dtype(tensor_type.elem_type), shape)
        assert (name, dtype) == (info.name, info.dtype) and info[2] == shape


@pytest.mark.parametrize("name", ["mlp", "resnet18"])
def test_saved_and_loaded_engine_gives_the_same_outputs(shared_model, name, tmp_path):
    engine, inputs, _ = shared_model(name)
    path = tmp_path / f"{name}.int21"
    engine.save(path)
    loaded = int21.Engine.load(path)
    assert [(i.name, i.dtype, i.shape) for i in loaded.inputs] == \
        [(i.name, i.dtype, i.shape) for i in engine.inputs]
    threads = engine.threads
    engine.threads = loaded.threads = 1
    try:
        for a, b in zip(engine.run(None, inputs), loaded.run(None, inputs)):
            np.testing.assert_array_equal(a, b)
    finally:
        engine.threads = threads
    assert loaded.tuning is None
    # Saving over the file an engine was loaded from replaces it whole and
    # leaves the loaded engine running.
    loaded.save(path)
    np.testing.assert_array_equal(int21.Engine.load(path).run(inputs)[engine.outputs[0].name],
                                  loaded.run(inputs)[engine.outputs[0].name])
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_ort_style_run_selects_outputs(shared_model):
    engine, inputs, expected = shared_model("mlp")
    (out,) = engine.run(["output"], inputs)
    both = engine.run(None, input_feed=inputs)
    assert isinstance(both, list) and len(both) == 1
    np.testing.assert_array_equal(out, both[0])
    np.testing.assert_allclose(out, expected["output"], rtol=1e-3, atol=1e-4)


def test_inputs_are_read_in_place_and_left_unchanged(shared_model):
    engine, inputs, expected = shared_model("mlp")
    x = inputs["input"].copy()
    before = x.copy()
    engine.run({"input": x})
    np.testing.assert_array_equal(x, before)


def test_non_contiguous_and_offset_inputs_give_the_same_outputs(shared_model):
    engine, inputs, _ = shared_model("mlp")
    x = inputs["input"]
    want = engine.run({"input": x})["output"]
    fortran = np.asfortranarray(x)
    strided = np.zeros((x.shape[0], 2 * x.shape[1]), x.dtype)[:, ::2]
    strided[...] = x
    # C-contiguous but not 64-byte aligned: still read in place.
    buffer = np.zeros(x.size + 1, x.dtype)
    offset = buffer[1:].reshape(x.shape)
    offset[...] = x
    for variant in (fortran, strided, offset, x.T.copy().T):
        np.testing.assert_allclose(engine.run({"input": variant})["output"], want,
                                   rtol=1e-6, atol=1e-7)


def test_outputs_are_fresh_writable_arrays(shared_model):
    engine, inputs, _ = shared_model("mlp")
    a = engine.run(inputs)["output"]
    b = engine.run(inputs)["output"]
    assert a is not b and not np.shares_memory(a, b)
    assert a.flags.writeable and a.flags.c_contiguous
    a[...] = 0
    assert np.any(b != 0)


def test_runs_from_several_threads(shared_model):
    engine, inputs, expected = shared_model("mlp")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: engine.run(inputs)["output"], range(8)))
    for got in results:
        np.testing.assert_allclose(got, expected["output"], rtol=1e-3, atol=1e-4)


def test_compile_releases_the_gil():
    """Another Python thread keeps running while the compiler works."""
    done = []
    worker = threading.Thread(target=lambda: done.append(int21.compile(
        tiny_model("Relu", np.float32, [3, 4], [3, 4]))))
    ticks = 0
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.002)
    worker.join()
    assert done and ticks > 10

"""Wrong arguments and bad models raise clear Python exceptions, never crash."""

import numpy as np
import onnx.parser
import pytest

import int21
from conftest import ROOT, tiny_model


def test_compile_error_carries_the_diagnostics():
    model = tiny_model("Relu", np.float32, [2, 4], [2, 4])
    model.graph.node[0].op_type = "NoSuchOp"
    with pytest.raises(int21.CompileError) as info:
        int21.compile(model)
    assert isinstance(info.value, RuntimeError)
    assert "unsupported ONNX op: NoSuchOp" in str(info.value)
    assert "relu_node" in str(info.value)
    assert info.value.diagnostics == str(info.value).splitlines()


def test_garbage_bytes_are_a_compile_error():
    with pytest.raises(int21.CompileError, match="not an ONNX model"):
        int21.compile(b"certainly not a protobuf")


def test_model_arguments():
    with pytest.raises(FileNotFoundError):
        int21.compile("/nonexistent/model.onnx")
    with pytest.raises(TypeError):
        int21.compile(42)
    model = tiny_model("Relu", np.float32, [2, 4], [2, 4])
    with pytest.raises(ValueError, match="target"):
        int21.compile(model, target="tpu")
    with pytest.raises(int21.CompileError, match="no knowledge base at 'records.db'"):
        int21.compile(model, kb="records.db")
    with pytest.raises(ValueError, match="tune=True"):
        int21.compile(model, budget=3)
    with pytest.raises(ValueError, match="budget"):
        int21.compile(model, tune=True, budget=0)


def test_dynamic_dimensions_run_at_any_extent():
    model = tiny_model("Relu", np.float32, ["N", 4], ["N", 4])
    engine = int21.compile(model)
    # A dynamic extent shows as its dim_param (None where it has none), an
    # output's as the model declares it.
    assert engine.inputs[0].shape == ("N", 4)
    assert engine.outputs[0].shape == ("N", 4)
    for n in (1, 3, 8):
        x = np.linspace(-1, 1, 4 * n, dtype=np.float32).reshape(n, 4)
        y = engine.run({"x": x})["y"]
        assert y.shape == (n, 4)
        np.testing.assert_array_equal(y, np.maximum(x, 0))
    with pytest.raises(ValueError, match="expected shape \\(None, 4\\), got \\(3, 5\\)"):
        engine.run({"x": np.zeros((3, 5), np.float32)})
    with pytest.raises(ValueError, match="expected shape"):
        engine.run({"x": np.zeros((3,), np.float32)})


def test_shape_profiles_bound_runs_and_specialise():
    model = tiny_model("Relu", np.float32, ["N", 4], ["N", 4])
    engine = int21.compile(model, shape_profiles={"x": ((1, 4), (3, 4), (8, 4))},
                           shape_buckets=[{"x": (5, 4)}])
    assert engine.inputs[0].shape == ("N", 4)
    assert engine.inputs[0].profile == ((1, 4), (3, 4), (8, 4))
    assert engine.outputs[0].profile is None
    # The opt shape and the bucket run their specialised code, the others
    # the generic code: all give the same answers.
    for n in (1, 3, 5, 8):
        x = np.linspace(-1, 1, 4 * n, dtype=np.float32).reshape(n, 4)
        np.testing.assert_array_equal(engine.run({"x": x})["y"], np.maximum(x, 0))
    with pytest.raises(ValueError, match="input 'x' dimension 0 is 9, "
                       "outside the engine's profile \\[1, 8\\]"):
        engine.run({"x": np.zeros((9, 4), np.float32)})
    with pytest.raises(int21.CompileError, match="--shape-profile: input 'x' has rank 2"):
        int21.compile(model, shape_profiles={"x": ((1,), (3,), (8,))})
    with pytest.raises(int21.CompileError, match="outside its profile"):
        int21.compile(model, shape_profiles={"x": ((1, 4), (3, 4), (8, 4))},
                      shape_buckets=[{"x": (9, 4)}])
    with pytest.raises(ValueError, match="expected three shapes"):
        int21.compile(model, shape_profiles={"x": ((1, 4), (8, 4))})
    with pytest.raises(TypeError):
        int21.compile(model, shape_buckets={"x": (5, 4)})


def test_input_shapes_fix_dynamic_dimensions():
    model = tiny_model("Relu", np.float32, ["N", 4], ["N", 4])
    engine = int21.compile(model, input_shapes={"x": (3, 4)})
    assert engine.inputs[0].shape == (3, 4) and engine.outputs[0].shape == (3, 4)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(engine.run({"x": x})["y"], np.maximum(x, 0))
    with pytest.raises(int21.CompileError, match="'z'"):
        int21.compile(model, input_shapes={"z": [3, 4]})
    with pytest.raises(ValueError):
        int21.compile(model, input_shapes={"x": [3, -4]})
    with pytest.raises(ValueError):
        int21.compile(model, input_shapes={"x": "3x4"})


def test_wrong_inputs_raise_value_error(relu_engine):
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="unknown input 'q'.*'x'"):
        relu_engine.run({"x": x, "q": x})
    with pytest.raises(ValueError, match="missing input 'x'"):
        relu_engine.run({})
    with pytest.raises(ValueError, match="expected dtype float32, got float64"):
        relu_engine.run({"x": x.astype(np.float64)})
    with pytest.raises(ValueError, match="expected dtype float32, got int32"):
        relu_engine.run({"x": x.astype(np.int32)})
    with pytest.raises(ValueError, match=r"expected shape \(3, 4\), got \(4, 3\)"):
        relu_engine.run({"x": np.ones((4, 3), np.float32)})
    with pytest.raises(ValueError, match="expected shape"):
        relu_engine.run({"x": np.ones((12,), np.float32)})
    with pytest.raises(ValueError, match="unknown output 'z'"):
        relu_engine.run(["z"], {"x": x})
    with pytest.raises(TypeError):
        relu_engine.run([x])
    with pytest.raises(TypeError):
        relu_engine.run()
    with pytest.raises(ValueError):
        relu_engine.threads = 0


def test_engine_files_that_are_not_engines(relu_engine, tmp_path):
    with pytest.raises(FileNotFoundError):
        int21.Engine.load(tmp_path / "missing.int21")
    path = tmp_path / "relu.int21"
    relu_engine.save(path)
    data = path.read_bytes()
    (tmp_path / "truncated.int21").write_bytes(data[: len(data) // 2])
    with pytest.raises(int21.EngineError, match="truncated.int21"):
        int21.Engine.load(tmp_path / "truncated.int21")
    corrupt = bytearray(data)
    corrupt[-1] ^= 0xFF
    (tmp_path / "corrupt.int21").write_bytes(bytes(corrupt))
    with pytest.raises(int21.EngineError):
        int21.Engine.load(tmp_path / "corrupt.int21")
    with pytest.raises(OSError):
        relu_engine.save(tmp_path / "no" / "such" / "dir.int21")


def test_engine_for_another_cpu_is_kept_but_not_run(tmp_path):
    model = tiny_model("Relu", np.float32, [3, 4], [3, 4])
    triple = int21.host_target().split(":")[1]
    target = f"cpu:{triple}:x86-64"
    if not triple.startswith("x86_64") or target == int21.host_target():
        pytest.skip("needs an x86-64 machine other than the generic one")
    engine = int21.compile(model, target=target)
    assert engine.target == target and engine.inputs[0].shape == (3, 4)
    with pytest.raises(int21.EngineError, match="this machine is"):
        engine.run({"x": np.ones((3, 4), np.float32)})
    engine.save(tmp_path / "other.int21")
    assert int21.Engine.load(tmp_path / "other.int21").target == target


def test_computed_indices_out_of_range_raise_engine_error():
    # Gather indices computed in the graph (ids + 1) are checked after the
    # run, naming the node; the check is not an output.
    engine = int21.compile(ROOT / "test" / "Runtime" / "Inputs" /
                           "gather-computed.onnxtext")
    assert [o.name for o in engine.outputs] == ["rows", "picked"]
    pos = np.zeros((2, 2), np.int32)
    with pytest.raises(int21.EngineError,
                       match=r"node 'rows' \(Gather\) computed the index "
                             r"1000001, outside \[-3, 2\]"):
        engine.run({"ids": np.array([0, 1, 2, 1000000], np.int64), "pos": pos})
    out = engine.run({"ids": np.array([0, 1, -1, -4], np.int64), "pos": pos})
    assert sorted(out) == ["picked", "rows"]
    np.testing.assert_array_equal(out["rows"], [[3, 4], [5, 6], [1, 2], [1, 2]])


def test_shape_given_as_data_is_read_at_run_time():
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    engine = int21.compile(model.SerializeToString())
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for shape, want in (([4, 6], (4, 6)), ([0, -1], (2, 12)), ([-1, 3], (8, 3))):
        y = engine.run({"x": x, "shape": np.array(shape, np.int64)})["y"]
        np.testing.assert_array_equal(y, x.reshape(want))
    with pytest.raises(ValueError, match="shapes or values do not fit the model: "
                       ".*must hold as many elements as the input"):
        engine.run({"x": x, "shape": np.array([5, 5], np.int64)})


def test_outputs_sized_by_data_have_their_run_time_extents():
    # NonZero's count is known during the run only: the engine allocates the
    # output at its bound and the run gives it the extent it computed.
    model = tiny_model("NonZero", np.float32, [3, 4], [2, "k"])
    model.graph.output[0].type.tensor_type.elem_type = 7  # INT64
    engine = int21.compile(model)
    assert engine.outputs[0].shape == (2, "k")
    x = np.array([[0, 1, 0, 2], [3, 0, 0, 0], [0, 0, 5, -1]], np.float32)
    y = engine.run({"x": x})["y"]
    np.testing.assert_array_equal(y, np.array(np.nonzero(x)))
    assert engine.run({"x": np.zeros((3, 4), np.float32)})["y"].shape == (2, 0)


def test_outputs_sized_by_the_run_are_allocated_by_it():
    # A value a Loop grows (doubled m times) has no extent known before the
    # run: the run allocates the output and gives its shape; the array owns
    # the buffer.
    model = onnx.parser.parse_model((ROOT / "test/e2e/Inputs/grow.onnxtext").read_text())
    engine = int21.compile(model)
    for m in [3, 0, 5]:
        grown = engine.run({"m": np.array(m, np.int64),
                            "x": np.array([7], np.float32)})["grown"]
        want = np.array([7], np.float32)
        for _ in range(m):
            want = np.concatenate([want, want + 1])
        np.testing.assert_array_equal(grown, want)
        grown[0] = -1  # writable, and no other run's

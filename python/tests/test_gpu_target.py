"""GPU engines from Python: int21.compile(target="sm_90") builds the engine
int21-compile does (PTX, plan, weights); Python runs CPU engines only, so
running it says which target it was built for. Bad GPU targets and tuning
for a GPU are ValueErrors."""

import numpy as np
import pytest

import int21
from conftest import tiny_model


def test_gpu_engine_is_built_inspected_and_saved(tmp_path):
    model = tiny_model("Relu", np.float32, [4, 8], [4, 8])
    engine = int21.compile(model.SerializeToString(), target="sm_90", kb=False)
    assert engine.target == "sm_90"
    assert [(t.name, t.dtype, t.shape) for t in engine.inputs] == [("x", np.float32, (4, 8))]
    assert [(t.name, t.dtype, t.shape) for t in engine.outputs] == [("y", np.float32, (4, 8))]
    path = tmp_path / "relu.sm_90.int21"
    engine.save(path)
    assert int21.Engine.load(path).target == "sm_90"
    with pytest.raises(int21.EngineError, match="compiled for target 'sm_90'"):
        engine.run({"x": np.zeros((4, 8), np.float32)})


def test_gpu_target_errors():
    model = tiny_model("Relu", np.float32, [4, 8], [4, 8]).SerializeToString()
    with pytest.raises(ValueError, match="unknown GPU target 'sm_75'"):
        int21.compile(model, target="sm_75")
    with pytest.raises(ValueError, match="CPU schedules only"):
        int21.compile(model, target="sm_90", tune=True)

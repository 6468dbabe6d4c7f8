"""The knowledge base from Python: tuning records into it, compiling reuses
it, records and the exported library."""

import pytest

import int21
from conftest import ROOT

LINEAR_RELU = ROOT / "test" / "AgentSearch" / "Inputs" / "linear-relu.onnxtext"


def test_tuning_records_into_a_knowledge_base(tmp_path):
    path = tmp_path / "kb.sqlite"
    first = int21.compile(LINEAR_RELU, tune=True, budget=2, kb=path)
    assert first.tuning.reused == 0 and first.tuning.trials >= 1

    kb = int21.KnowledgeBase(str(path))
    (record,) = kb.records()
    assert len(kb) == 1
    assert record.op_kind == "matmul" and record.dims == [16, 64, 48]
    assert record.element_types == "f32" and record.template == "cpu.matmul"
    assert record.target == int21.host_target()
    assert record.median_ms > 0 and record.default_ms > 0 and record.speedup > 0
    # Timed on the threads an engine runs on by default (the physical cores).
    assert record.threads >= 1
    assert set(record.knobs) >= {"par_m", "par_n", "reg_m", "reg_n"}
    assert kb.records(target="sm_90") == []

    # The same model again: nothing to search.
    again = int21.compile(LINEAR_RELU, tune=True, budget=2, kb=kb)
    assert again.tuning.trials == 0 and again.tuning.reused == 1

    library = tmp_path / "lib.mlir"
    assert kb.export(str(library)) == 1
    text = library.read_text()
    assert "transform.foreach_match" in text
    assert "@match_matmul_16x64x48_f32_" + record.signature[:8] in text


def test_no_knowledge_base_and_bad_files(tmp_path):
    engine = int21.compile(LINEAR_RELU, tune=True, budget=1, kb=False)
    assert engine.tuning.reused == 0
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_text("not a database at all")
    with pytest.raises(RuntimeError, match="not an int21 knowledge base"):
        int21.KnowledgeBase(str(garbage))
    with pytest.raises(int21.CompileError, match="not an int21 knowledge base"):
        int21.compile(LINEAR_RELU, kb=garbage)
    with pytest.raises(TypeError, match="kb must be"):
        int21.compile(LINEAR_RELU, kb=3)

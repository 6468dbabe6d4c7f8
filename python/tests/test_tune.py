"""A small schedule search through Python: tune=True with a tiny budget."""

import os

import numpy as np
import pytest

import int21
from conftest import ROOT

LINEAR_RELU = ROOT / "test" / "AgentSearch" / "Inputs" / "linear-relu.onnxtext"


def test_tuning_builds_an_engine_and_reports(capfd):
    engine = int21.compile(LINEAR_RELU, tune=True, budget=2)
    report = engine.tuning
    assert isinstance(report, int21.TuneReport)
    assert report.summary.startswith("tuned 1 kernels in ")
    assert "x faster than the default schedules" in report.summary
    assert report.trials >= 1 and report.speedup > 0
    (kernel,) = report.kernels
    assert kernel.name.startswith("matmul 16x64x48") and kernel.trials >= 1
    assert kernel.best_ms > 0 and kernel.default_ms > 0
    assert "tuning 1 kernels" in capfd.readouterr().err

    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((16, 48), np.float32),
             "w": rng.standard_normal((48, 64), np.float32),
             "b": rng.standard_normal(64, np.float32)}
    want = np.maximum(feeds["x"] @ feeds["w"] + feeds["b"], 0)
    np.testing.assert_allclose(engine.run(feeds)["y"], want, rtol=1e-4, atol=1e-4)
    assert int21.compile(LINEAR_RELU).tuning is None


def test_tuning_needs_int21_compile(monkeypatch):
    monkeypatch.setenv("INT21_COMPILE", "/nonexistent/int21-compile")
    with pytest.raises(FileNotFoundError, match="INT21_COMPILE"):
        int21.compile(LINEAR_RELU, tune=True, budget=1)


def test_int21_compile_is_found_beside_the_package(monkeypatch):
    monkeypatch.delenv("INT21_COMPILE", raising=False)
    path = int21._int21_compile_executable()
    assert os.path.basename(path) == "int21-compile" and os.access(path, os.X_OK)

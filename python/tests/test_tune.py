"""A small schedule search through Python: tune=True with a tiny budget."""

import os
import signal
import subprocess
import sys
import textwrap
import time

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
    assert report.threads >= 1
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


def test_tuning_for_one_thread(tmp_path):
    kb = tmp_path / "kb.sqlite"
    engine = int21.compile(LINEAR_RELU, tune=True, budget=1, kb=kb, threads=1)
    assert engine.tuning.threads == 1
    (record,) = int21.KnowledgeBase(str(kb)).records()
    assert record.threads == 1
    # Compiled for three threads, the one-thread record is not reused.
    again = int21.compile(LINEAR_RELU, tune=True, budget=1, kb=kb, threads=3)
    assert again.tuning.threads == 3 and again.tuning.reused == 0
    assert sorted(r.threads for r in int21.KnowledgeBase(str(kb)).records()) == [1, 3]
    with pytest.raises(ValueError, match="threads must be a positive number"):
        int21.compile(LINEAR_RELU, threads=0)


def test_tuning_needs_int21_compile(monkeypatch):
    monkeypatch.setenv("INT21_COMPILE", "/nonexistent/int21-compile")
    with pytest.raises(FileNotFoundError, match="INT21_COMPILE"):
        int21.compile(LINEAR_RELU, tune=True, budget=1)


def test_int21_compile_is_found_beside_the_package(monkeypatch):
    monkeypatch.delenv("INT21_COMPILE", raising=False)
    path = int21._int21_compile_executable()
    assert os.path.basename(path) == "int21-compile" and os.access(path, os.X_OK)


def test_ctrl_c_stops_a_search_as_keyboard_interrupt(tmp_path):
    # A long search in a child Python; SIGINT once the knowledge base holds a
    # record. The search stops at once (its compile and measurement children
    # killed), Python sees KeyboardInterrupt, and the knowledge base keeps
    # what was stored.
    kb = tmp_path / "kb.sqlite"
    script = textwrap.dedent(f"""
        import sys, int21
        try:
            int21.compile({str(LINEAR_RELU)!r}, tune=True, budget=5000, kb={str(kb)!r})
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        sys.exit(0)
        """)
    env = dict(os.environ, TMPDIR=str(tmp_path))
    child = subprocess.Popen([sys.executable, "-c", script], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and child.poll() is None:
            if kb.exists() and len(int21.KnowledgeBase(str(kb))) >= 1:
                break
            time.sleep(0.1)
        assert child.poll() is None, "the search ended before a record was stored"
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 3 and out.strip() == "interrupted"
    assert len(int21.KnowledgeBase(str(kb))) >= 1
    assert not list(tmp_path.glob("int21-tune-*"))

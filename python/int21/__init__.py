"""int21: compile ONNX models into engines and run them on numpy arrays.

    import int21
    engine = int21.compile("model.onnx")              # or bytes, or an onnx.ModelProto
    outputs = engine.run({"input": x})                # {output name: numpy array}
    engine.save("model.int21"); int21.Engine.load("model.int21")

The compiler runs in this process (the GIL is released while it works);
errors arrive as int21.CompileError with the compiler's diagnostics.
"""

import os

from ._int21 import (
    CompileError,
    Engine,
    EngineError,
    KernelReport,
    KnowledgeBase,
    KnowledgeRecord,
    TensorInfo,
    TuneReport,
    __version__,
    host_target,
)
from . import _int21

__all__ = [
    "compile",
    "CompileError",
    "Engine",
    "EngineError",
    "KernelReport",
    "KnowledgeBase",
    "KnowledgeRecord",
    "TensorInfo",
    "TuneReport",
    "host_target",
    "__version__",
]


def compile(model, target="cpu", tune=False, budget=None, kb=None, input_shapes=None,
            threads=None, shape_profiles=None, shape_buckets=None):
    """Compiles an ONNX model into an Engine for `target`.

    model: a path (str or os.PathLike; `.onnxtext` files are read in the ONNX
        text format), the bytes of a serialized ModelProto, or an object with
        SerializeToString() (an onnx.ModelProto).
    target: "cpu" (this machine), "cpu:<triple>:<cpu>", or an NVIDIA GPU,
        "sm_80" or "sm_90". An engine for another machine, or a GPU engine
        (int21-run runs those), can be saved but not run here.
    tune: search the schedule of every kernel on this machine, as
        `int21-compile --tune` does (progress goes to stderr); the engine's
        `tuning` then says what the search found.
    budget: trials beyond each kernel's default schedule (tune=True only;
        default: 20 per kernel).
    kb: the knowledge base: None for the default one
        ($XDG_CACHE_HOME/int21/kb.sqlite, as int21-compile), a path or a
        KnowledgeBase for another, False for none. Tuning reuses and stores
        winners there; without tuning, the schedules it holds for this
        machine are applied.
    input_shapes: {input name: shape} replacing the model's dynamic (or
        declared) input shapes, as `int21-compile --input-shape`.
    threads: the threads the engine will run on (CPU targets): tuning times
        the kernels on them, and the knowledge base's records for them
        apply, as `int21-compile --tune-threads`. Default: the physical
        cores, what an Engine runs on unless told otherwise.
    shape_profiles: {input name: (min, opt, max)}, three shapes of a dynamic
        input, as `int21-compile --shape-profile`: the engine runs shapes
        within [min, max] only and carries code specialised for the opt
        shapes besides its generic code (CPU targets).
    shape_buckets: [{input name: shape}, ...], more shapes to carry
        specialised code for, each giving every dynamic input a shape, as
        `int21-compile --shape-bucket`.

    Raises CompileError (a RuntimeError) with the compiler's diagnostics when
    the model cannot be compiled, ValueError or TypeError for bad arguments.
    """
    use_kb, kb_path = _kb_source(kb)
    path, data = _model_source(model)
    if budget is not None:
        if not tune:
            raise ValueError("budget= applies to tuning: pass tune=True")
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ValueError(f"budget must be a positive number of trials, got {budget!r}")
    if not isinstance(target, str):
        raise TypeError(f"target must be a string, got {type(target).__name__}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise ValueError(f"threads must be a positive number, got {threads!r}")
    worker = _int21_compile_executable() if tune else ""
    profiles = {}
    if shape_profiles is not None:
        if not hasattr(shape_profiles, "items"):
            raise TypeError("shape_profiles must be a dict {input name: (min, opt, max)}")
        for name, bounds in shape_profiles.items():
            if isinstance(bounds, (str, bytes)) or len(bounds) != 3:
                raise ValueError(f"shape_profiles['{name}']: expected three shapes "
                                 f"(min, opt, max), got {bounds!r}")
            profiles[name] = [_input_shapes({name: b})[name] for b in bounds]
    buckets = []
    if shape_buckets is not None:
        if isinstance(shape_buckets, dict) or not hasattr(shape_buckets, "__iter__"):
            raise TypeError("shape_buckets must be a list of dicts {input name: shape}")
        buckets = [_input_shapes(bucket) for bucket in shape_buckets]
    return _int21._compile(path, data, target, bool(tune), budget or 0,
                           _input_shapes(input_shapes), worker, use_kb, kb_path,
                           threads or 0, profiles, buckets)


def _kb_source(kb):
    """(use a knowledge base, its path or "" for the default) for `kb`."""
    if kb is None:
        return True, ""
    if kb is False:
        return False, ""
    if isinstance(kb, KnowledgeBase):
        return True, kb.path
    if isinstance(kb, (str, os.PathLike)):
        return True, os.fsdecode(os.fspath(kb))
    raise TypeError("kb must be None, False, a path or a KnowledgeBase, got "
                    f"{type(kb).__name__}")


def _model_source(model):
    """(path, None) or (None, bytes) for compile()'s `model`."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not os.path.isfile(path):
            raise FileNotFoundError(2, "no such model file", path)
        return path, None
    if isinstance(model, (bytes, bytearray, memoryview)):
        return None, bytes(model)
    if hasattr(model, "SerializeToString"):
        return None, model.SerializeToString()
    raise TypeError("model must be a path, bytes or an onnx.ModelProto, got "
                    f"{type(model).__name__}")


def _input_shapes(input_shapes):
    """{name: [dims]} from compile()'s `input_shapes`, checked."""
    if input_shapes is None:
        return {}
    if not hasattr(input_shapes, "items"):
        raise TypeError("input_shapes must be a dict {input name: shape}")
    shapes = {}
    for name, shape in input_shapes.items():
        if not isinstance(name, str):
            raise TypeError(f"input_shapes: input names must be strings, got {name!r}")
        try:
            dims = [int(d) for d in shape]
        except (TypeError, ValueError):
            raise ValueError(f"input_shapes['{name}']: expected a sequence of "
                             f"integers, got {shape!r}") from None
        if any(d < 0 for d in dims) or any(d != s for d, s in zip(dims, shape)):
            raise ValueError(f"input_shapes['{name}']: dimensions must be "
                             f"non-negative integers, got {shape!r}")
        shapes[name] = dims
    return shapes


def _int21_compile_executable():
    """The int21-compile that runs the tuner's child processes: $INT21_COMPILE,
    else the one built beside this package (build/bin next to build/python)."""
    path = os.environ.get("INT21_COMPILE")
    where = "INT21_COMPILE"
    if not path:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            os.pardir, os.pardir, "bin", "int21-compile")
        where = "the build beside the int21 package"
    path = os.path.normpath(path)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise FileNotFoundError(
            2, f"tuning needs the int21-compile executable, not found in {where} "
            "(set INT21_COMPILE to its path)", path)
    return path

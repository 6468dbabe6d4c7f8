# lit configuration for the int21 regression suite.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "INT21"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtext", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.int21_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%int21_src_root", config.int21_src_root))
config.substitutions.append(
    ("%shared_models", os.path.join(config.int21_src_root, "..", "shared", "models"))
)

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# The default knowledge base lives under $XDG_CACHE_HOME: tests get their own,
# empty one, so that what a developer tuned never changes what they see.
config.environment["XDG_CACHE_HOME"] = os.path.join(
    config.test_exec_root, "xdg-cache")

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.int21_tools_dir, config.llvm_tools_dir]
tools = ["int21-opt", "FileCheck", "not", "count", "mlir-runner"]
optional = ["int21-compile", "int21-run", "int21-kb"]
for name in optional:
    if os.path.exists(os.path.join(config.int21_tools_dir, name)):
        tools.append(name)
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Runtime libraries for tests that run lowered IR with mlir-runner.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(
    (
        "%mlir_runner_libs",
        ",".join(
            os.path.join(llvm_lib_dir, lib)
            for lib in ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"]
        ),
    )
)

# Features tests can REQUIRE.
if os.path.isdir(os.path.join(config.int21_src_root, "..", "shared", "models")):
    config.available_features.add("shared-models")
# End-to-end tests read ONNX TensorProto files with Debian's python3-onnx.
config.substitutions.append(("%python", "/usr/bin/python3"))
if subprocess.run(["/usr/bin/python3", "-c", "import onnx, numpy"],
                  capture_output=True).returncode == 0:
    config.available_features.add("python-onnx")
config.substitutions.append(
    (
        "%{run_args}",
        " ".join(
            [
                "--int21-compile", os.path.join(config.int21_tools_dir, "int21-compile"),
                "--int21-opt", os.path.join(config.int21_tools_dir, "int21-opt"),
                "--mlir-runner", os.path.join(config.llvm_tools_dir, "mlir-runner"),
                "--runner-libs", ",".join(
                    os.path.join(llvm_lib_dir, lib)
                    for lib in ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"]),
                "--decompose", os.path.join(config.test_source_root, "Transforms", "Inputs",
                                            "decompose-aggregates.mlir"),
                "--models", os.path.join(config.int21_src_root, "..", "shared", "models"),
                "--scratch", os.path.join(config.test_exec_root, "e2e", "Output", "scratch"),
            ]
        ),
    )
)
# ptxas as int21's own lookup finds it ($INT21_PTXAS, PATH, CUDA's default
# place); GPU tests that assemble PTX REQUIRE it and are reported
# UNSUPPORTED on machines without the CUDA toolkit.
ptxas = os.environ.get("INT21_PTXAS") or shutil.which("ptxas")
if not ptxas and os.path.exists("/usr/local/cuda/bin/ptxas"):
    ptxas = "/usr/local/cuda/bin/ptxas"
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    if "INT21_PTXAS" in os.environ:
        config.environment["INT21_PTXAS"] = os.environ["INT21_PTXAS"]
else:
    lit_config.note("ptxas not found: the GPU tests that assemble PTX are skipped")
# GPU tests: "cuda-driver" where libcuda.so.1 loads, "cuda" where int21-run
# sees a GPU (%cuda_chip is device 0's chip, e.g. sm_90).
try:
    import ctypes

    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
if "cuda-driver" in config.available_features:
    devices = subprocess.run(
        [os.path.join(config.int21_tools_dir, "int21-run"), "--list-devices"],
        capture_output=True, text=True)
    chips = [line.split(", ")[1] for line in devices.stdout.splitlines()
             if line.startswith("device 0: ")]
    if devices.returncode == 0 and chips:
        config.available_features.add("cuda")
        config.substitutions.append(("%cuda_chip", chips[0]))
# The ONNX conformance runner (scripts/conformance.py) reads libonnx-testdata.
config.substitutions.append(("%int21_tools_dir", config.int21_tools_dir))
if os.path.isdir("/usr/share/libonnx-testdata/data/node"):
    config.available_features.add("conformance")

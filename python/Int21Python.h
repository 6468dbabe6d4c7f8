//===- Int21Python.h - what the int21 extension's files share -------------===//
//
// The int21 Python extension (int21._int21) is one file per part: the errors
// and the module (Int21Module.cpp), engines on numpy arrays (Engine.cpp),
// the compiler and tuning (Compiler.cpp). Each part binds its classes in a
// bind* function that the module definition calls; a new class (the
// knowledge base, say) is a new file with one more bind* function.
//
// The GIL is released while compiling, tuning, reading, writing and running;
// nothing in those sections touches a Python object.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_PYTHON_INT21PYTHON_H
#define INT21_PYTHON_INT21PYTHON_H

#include "int21/Runtime/Engine.h"
#include "int21/Runtime/EngineFile.h"

#include "llvm/Support/MemoryBuffer.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace int21::python {

namespace py = pybind11;

/// Engine files and output arrays are 64-byte aligned, like the runtime's
/// tensors, so that weights are used in place.
constexpr size_t kAlign = 64;

//===----------------------------------------------------------------------===//
// Errors (Int21Module.cpp)
//===----------------------------------------------------------------------===//

/// The compiler failed: its diagnostics, one line each (int21.CompileError).
struct CompileFailure : std::runtime_error {
  explicit CompileFailure(std::vector<std::string> lines)
      : std::runtime_error(join(lines)), diagnostics(std::move(lines)) {}
  static std::string join(const std::vector<std::string> &lines) {
    std::string text;
    for (const std::string &line : lines)
      text += (text.empty() ? "" : "\n") + line;
    return text;
  }
  std::vector<std::string> diagnostics;
};

/// An engine could not be read, loaded or run (int21.EngineError).
struct EngineFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Raises OSError (FileNotFoundError, PermissionError, ...) for `ec` on
/// `path`, as Python's own file functions do.
[[noreturn]] void throwOSError(std::error_code ec, const std::string &path);

//===----------------------------------------------------------------------===//
// Engines (Engine.cpp)
//===----------------------------------------------------------------------===//

/// An input or output of an engine, as Python sees it.
struct TensorInfo {
  std::string name;
  /// A numpy dtype, or None for bfloat16 (which numpy lacks).
  py::object dtype;
  py::tuple shape;
  /// (min, opt, max) shape tuples of a dynamic input with a shape profile,
  /// else None.
  py::object profile;
};

/// What a tuning run found (search::TuneResult, without the schedules).
struct KernelReport {
  std::string name, signature, agent, error;
  unsigned instances = 0, trials = 0;
  double defaultMs = 0, bestMs = 0;
};
struct TuneReport {
  std::string summary;
  unsigned trials = 0, reused = 0;
  double speedup = 1, seconds = 0;
  unsigned threads = 1;
  std::vector<KernelReport> kernels;
};

/// An engine file held in memory (64-byte aligned, so that the weights are
/// used in place) and, when it was compiled for this machine, loaded.
class PyEngine {
public:
  /// Validates `bytes`, a whole engine file, and loads it when it was
  /// compiled for this machine; `name` stands for it in errors. Needs no GIL.
  PyEngine(std::unique_ptr<llvm::MemoryBuffer> bytes, std::string name);

  /// Reads the file into memory (not mapped: rewriting the file, by save()
  /// or a compiler, must not pull the engine's weights from under it).
  static std::unique_ptr<PyEngine> load(const std::filesystem::path &path);
  /// Writes the engine file to a temporary file beside `path`, then renames
  /// it: `path` is replaced whole or not at all.
  void save(const std::filesystem::path &path) const;

  std::vector<TensorInfo> inputs() const { return infos(meta.inputs); }
  std::vector<TensorInfo> outputs() const { return infos(meta.outputs); }
  const runtime::EngineMetadata &metadata() const { return meta; }

  unsigned threads() const { return engine ? engine->threads() : 1; }
  void setThreads(unsigned count);

  /// run(feeds) -> {name: array}; run(output_names, feeds) -> [array], as
  /// ONNX Runtime's InferenceSession.run (None: every output).
  py::object run(py::args args, py::kwargs kwargs) const;

  /// What tune=True found, for an engine int21.compile() tuned.
  std::optional<TuneReport> tuning;

private:
  /// The engine file as a buffer that does not own its bytes.
  std::unique_ptr<llvm::MemoryBuffer> view() const;
  static std::vector<TensorInfo>
  infos(const std::vector<runtime::TensorSpec> &specs);
  /// Raises EngineError when the engine is for another machine.
  void requireLoaded() const;
  /// `value` as an array the engine can read for `spec` in place: the
  /// array itself when C-contiguous and aligned, else a contiguous copy.
  static py::array checkInput(const runtime::TensorSpec &spec,
                              py::handle value);
  /// The feeds' arrays in input order, checked.
  std::vector<py::array> gatherInputs(py::handle feeds) const;

  std::unique_ptr<llvm::MemoryBuffer> bytes;
  std::string name;
  runtime::EngineMetadata meta;
  /// Null when the engine was compiled for another machine.
  std::unique_ptr<runtime::Engine> engine;
  std::string notRunnable;
};

//===----------------------------------------------------------------------===//
// The parts' bindings
//===----------------------------------------------------------------------===//

void bindErrors(py::module_ &m);
void bindEngine(py::module_ &m);
void bindCompiler(py::module_ &m);
void bindKnowledgeBase(py::module_ &m);

} // namespace int21::python

#endif // INT21_PYTHON_INT21PYTHON_H

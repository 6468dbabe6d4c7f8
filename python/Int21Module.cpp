//===- Int21Module.cpp - the int21 Python extension (int21._int21) --------===//
//
// Binds the compiler (import, tune, compile to an engine, all in process) and
// the runtime (load, save, run on numpy arrays). python/int21/__init__.py is
// the API users see: it checks and normalises the arguments of compile()
// and re-exports the classes below. Each class has its own bind* function,
// so that adding one is one function and one call in the module definition.
//
// The GIL is released while compiling, tuning, reading, writing and running;
// nothing in those sections touches a Python object.
//
//===----------------------------------------------------------------------===//

#include "int21/AgentSearch/Tuner.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Compiler/Diagnostics.h"
#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Import/OnnxImporter.h"
#include "int21/Runtime/Engine.h"
#include "int21/Runtime/EngineFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

namespace py = pybind11;
using int21::runtime::DType;
using int21::runtime::EngineMetadata;
using int21::runtime::TensorSpec;

namespace {

constexpr size_t kAlign = 64;

//===----------------------------------------------------------------------===//
// Errors
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

/// The exception types, created once when the module is imported and kept
/// for the life of the interpreter.
PyObject *compileErrorType = nullptr;
PyObject *engineErrorType = nullptr;

/// Raises OSError (FileNotFoundError, PermissionError, ...) for `ec` on
/// `path`, as Python's own file functions do.
[[noreturn]] void throwOSError(std::error_code ec, const std::string &path) {
  errno = ec.value();
  PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
  throw py::error_already_set();
}

//===----------------------------------------------------------------------===//
// dtypes and shapes
//===----------------------------------------------------------------------===//

/// The numpy dtype of `type`; none for bfloat16, which numpy lacks.
std::optional<py::dtype> numpyDType(DType type) {
  switch (type) {
  case DType::BF16:
    return std::nullopt;
  case DType::Bool:
    return py::dtype("bool");
  default:
    return py::dtype(int21::runtime::dtypeName(type).str());
  }
}

py::dtype requireNumpyDType(const TensorSpec &spec, const char *what) {
  std::optional<py::dtype> dtype = numpyDType(spec.dtype);
  if (!dtype)
    throw py::value_error(std::string(what) + " '" + spec.name +
                          "' is bfloat16, which numpy has no dtype for");
  return *dtype;
}

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + (shape.size() == 1 ? ",)" : ")");
}

//===----------------------------------------------------------------------===//
// Engine
//===----------------------------------------------------------------------===//

/// An input or output of an engine, as Python sees it.
struct TensorInfo {
  std::string name;
  py::object dtype;
  py::tuple shape;
};

py::tuple asTuple(const TensorInfo &info) {
  return py::make_tuple(info.name, info.dtype, info.shape);
}

TensorInfo tensorInfo(const TensorSpec &spec) {
  std::optional<py::dtype> dtype = numpyDType(spec.dtype);
  return {spec.name, dtype ? py::object(*dtype) : py::object(py::none()),
          py::cast(spec.shape)};
}

/// What a tuning run found (TuneResult, without the schedules).
struct KernelReport {
  std::string name, signature, agent, error;
  unsigned instances = 0, trials = 0;
  double defaultMs = 0, bestMs = 0;
};
struct TuneReport {
  std::string summary;
  unsigned trials = 0, reused = 0;
  double speedup = 1, seconds = 0;
  std::vector<KernelReport> kernels;
};

TuneReport makeTuneReport(const int21::search::TuneResult &result) {
  TuneReport report;
  report.summary = int21::search::summarizeTuning(result);
  report.trials = result.trials;
  report.reused = result.reused;
  report.speedup = result.speedup;
  report.seconds = result.seconds;
  for (const int21::search::KernelSummary &kernel : result.kernels)
    report.kernels.push_back({kernel.name, kernel.signature, kernel.winnerAgent,
                              kernel.error, kernel.instances, kernel.trials,
                              kernel.defaultMs, kernel.bestMs});
  return report;
}

/// An engine file held in memory (64-byte aligned, so that the weights are
/// used in place) and, when it was compiled for this machine, loaded.
class PyEngine {
public:
  /// Validates `bytes`, a whole engine file; `name` stands for it in errors.
  PyEngine(std::unique_ptr<llvm::MemoryBuffer> bytes, std::string name)
      : bytes(std::move(bytes)), name(std::move(name)) {
    llvm::Expected<int21::runtime::EngineFile> file =
        int21::runtime::EngineFile::read(view(), this->name);
    if (!file)
      throw EngineFailure(llvm::toString(file.takeError()));
    meta = file->metadata();
    std::string host = int21::runtime::Engine::hostTarget();
    if (meta.target != host) {
      // Kept, so that it can be inspected and saved; run() says why not.
      notRunnable = this->name + ": engine was compiled for target '" +
                    meta.target + "', this machine is '" + host + "'";
      return;
    }
    auto loaded = int21::runtime::Engine::load(view(), this->name);
    if (!loaded)
      throw EngineFailure(llvm::toString(loaded.takeError()));
    engine = std::move(*loaded);
  }

  /// Reads the file into memory (not mapped: rewriting the file, by save()
  /// or a compiler, must not pull the engine's weights from under it).
  static std::unique_ptr<PyEngine> load(const std::filesystem::path &path) {
    std::string file = path.string();
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = [&] {
      py::gil_scoped_release release;
      return llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false,
                                         /*IsVolatile=*/true,
                                         llvm::Align(kAlign));
    }();
    if (!buffer)
      throwOSError(buffer.getError(), file);
    py::gil_scoped_release release;
    return std::make_unique<PyEngine>(std::move(*buffer), file);
  }

  /// Writes the engine file to a temporary file beside `path`, then renames
  /// it: `path` is replaced whole or not at all.
  void save(const std::filesystem::path &path) const {
    std::string file = path.string();
    std::error_code ec;
    {
      py::gil_scoped_release release;
      llvm::Expected<llvm::sys::fs::TempFile> temp =
          llvm::sys::fs::TempFile::create(file + ".tmp-%%%%%%");
      if (!temp) {
        ec = llvm::errorToErrorCode(temp.takeError());
      } else {
        {
          llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
          os << bytes->getBuffer();
          os.flush();
          ec = os.error();
          os.clear_error();
        }
        if (ec)
          llvm::consumeError(temp->discard());
        else if (llvm::Error error = temp->keep(file))
          ec = llvm::errorToErrorCode(std::move(error));
      }
    }
    if (ec)
      throwOSError(ec, file);
  }

  std::vector<TensorInfo> inputs() const { return infos(meta.inputs); }
  std::vector<TensorInfo> outputs() const { return infos(meta.outputs); }
  const EngineMetadata &metadata() const { return meta; }

  unsigned threads() const { return engine ? engine->threads() : 1; }
  void setThreads(unsigned count) {
    if (count == 0)
      throw py::value_error("threads must be at least 1");
    requireLoaded();
    engine->setThreads(count);
  }

  /// run(feeds) -> {name: array}; run(output_names, feeds) -> [array], as
  /// ONNX Runtime's InferenceSession.run (None: every output).
  py::object run(py::args args, py::kwargs kwargs) const;

  std::optional<TuneReport> tuning;

private:
  /// The engine file as a buffer that does not own its bytes.
  std::unique_ptr<llvm::MemoryBuffer> view() const {
    return llvm::MemoryBuffer::getMemBuffer(bytes->getMemBufferRef(),
                                            /*RequiresNullTerminator=*/false);
  }
  static std::vector<TensorInfo> infos(const std::vector<TensorSpec> &specs) {
    std::vector<TensorInfo> out;
    for (const TensorSpec &spec : specs)
      out.push_back(tensorInfo(spec));
    return out;
  }
  void requireLoaded() const {
    if (!engine)
      throw EngineFailure(notRunnable);
  }
  /// `value` as an array the engine can read for `spec` in place: the
  /// array itself when C-contiguous and aligned, else a contiguous copy.
  static py::array checkInput(const TensorSpec &spec, py::handle value);
  std::vector<py::array> gatherInputs(py::handle feeds) const;

  std::unique_ptr<llvm::MemoryBuffer> bytes;
  std::string name;
  EngineMetadata meta;
  /// Null when the engine was compiled for another machine.
  std::unique_ptr<int21::runtime::Engine> engine;
  std::string notRunnable;
};

py::array PyEngine::checkInput(const TensorSpec &spec, py::handle value) {
  py::dtype want = requireNumpyDType(spec, "input");
  py::array array = py::array::ensure(value);
  if (!array)
    throw py::type_error("input '" + spec.name +
                         "': expected a numpy array, got " +
                         std::string(py::str(py::type::of(value))));
  if (!array.dtype().equal(want))
    throw py::value_error("input '" + spec.name + "': expected dtype " +
                          std::string(py::str(want)) + ", got " +
                          std::string(py::str(array.dtype())) +
                          " (int21 does not convert inputs; use .astype('" +
                          std::string(py::str(want)) + "'))");
  bool sameShape = array.ndim() == static_cast<py::ssize_t>(spec.shape.size());
  for (py::ssize_t i = 0; sameShape && i < array.ndim(); ++i)
    sameShape = array.shape(i) == spec.shape[i];
  if (!sameShape) {
    std::vector<int64_t> got(array.shape(), array.shape() + array.ndim());
    throw py::value_error("input '" + spec.name + "': expected shape " +
                          shapeString(spec.shape) + ", got " +
                          shapeString(got));
  }
  constexpr int inPlace =
      py::array::c_style | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((array.flags() & inPlace) != inPlace)
    array = py::array::ensure(array, inPlace);
  return array;
}

std::vector<py::array> PyEngine::gatherInputs(py::handle feeds) const {
  if (!py::isinstance<py::dict>(feeds))
    throw py::type_error("feeds must be a dict {input name: array}, got " +
                         std::string(py::str(py::type::of(feeds))));
  const std::vector<TensorSpec> &specs = meta.inputs;
  auto names = [&] {
    std::string list;
    for (const TensorSpec &spec : specs)
      list += (list.empty() ? "'" : ", '") + spec.name + "'";
    return list.empty() ? std::string("none") : list;
  };
  // (A default py::array is an empty array, not a null handle.)
  std::vector<std::optional<py::array>> arrays(specs.size());
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(feeds)) {
    if (!py::isinstance<py::str>(key))
      throw py::type_error("feeds: input names must be strings, got " +
                           std::string(py::repr(key)));
    std::string inputName = key.cast<std::string>();
    auto it = llvm::find_if(
        specs, [&](const TensorSpec &spec) { return spec.name == inputName; });
    if (it == specs.end())
      throw py::value_error("unknown input '" + inputName +
                            "'; the engine's inputs are " + names());
    arrays[it - specs.begin()] = checkInput(*it, value);
  }
  std::vector<py::array> inputs;
  for (auto [spec, array] : llvm::zip(specs, arrays)) {
    if (!array)
      throw py::value_error(
          "missing input '" + spec.name + "' (" +
          std::string(py::str(requireNumpyDType(spec, "input"))) + " " +
          shapeString(spec.shape) + ")");
    inputs.push_back(std::move(*array));
  }
  return inputs;
}

py::object PyEngine::run(py::args args, py::kwargs kwargs) const {
  // The two forms, run(feeds) and run(output_names, feeds), with ONNX
  // Runtime's keyword names (output_names, input_feed) allowed.
  if (args.size() > 2)
    throw py::type_error("run() takes run(feeds) or run(output_names, feeds)");
  std::optional<py::object> outputNames, feeds;
  for (auto [key, value] : kwargs) {
    std::string keyword = py::str(key);
    auto object = py::reinterpret_borrow<py::object>(value);
    if (keyword == "output_names")
      outputNames = object;
    else if ((keyword == "input_feed" || keyword == "feeds") && !feeds)
      feeds = object;
    else
      throw py::type_error("run() got an unexpected or repeated keyword "
                           "argument '" +
                           keyword + "'");
  }
  if (args.size() == 2) {
    if (outputNames || feeds)
      throw py::type_error("run() got its arguments twice");
    outputNames = args[0];
    feeds = args[1];
  } else if (args.size() == 1) {
    if (feeds && outputNames)
      throw py::type_error("run() got its arguments twice");
    (feeds ? outputNames : feeds) = args[0];
  }
  if (!feeds)
    throw py::type_error("run() needs the inputs: run(feeds) or "
                         "run(output_names, feeds)");
  bool listForm = outputNames.has_value();
  requireLoaded();

  std::vector<py::array> inputs = gatherInputs(*feeds);
  std::vector<size_t> wanted;
  if (!outputNames || outputNames->is_none()) {
    for (size_t i = 0; i < meta.outputs.size(); ++i)
      wanted.push_back(i);
  } else {
    if (py::isinstance<py::str>(*outputNames) ||
        !py::isinstance<py::sequence>(*outputNames))
      throw py::type_error("output_names must be a list of names or None");
    for (py::handle item : *outputNames) {
      std::string outputName = py::str(item);
      auto it = llvm::find_if(meta.outputs, [&](const TensorSpec &spec) {
        return spec.name == outputName;
      });
      if (it == meta.outputs.end()) {
        std::string list;
        for (const TensorSpec &spec : meta.outputs)
          list += (list.empty() ? "'" : ", '") + spec.name + "'";
        throw py::value_error("unknown output '" + outputName +
                              "'; the engine's outputs are " + list);
      }
      wanted.push_back(it - meta.outputs.begin());
    }
  }

  // Fresh arrays, 64-byte aligned like the runtime's tensors, that the
  // engine writes into.
  std::vector<py::array> outputs;
  std::vector<void *> outputPointers;
  for (const TensorSpec &spec : meta.outputs) {
    py::dtype dtype = requireNumpyDType(spec, "output");
    int64_t elements = 1;
    for (int64_t d : spec.shape)
      elements *= d;
    size_t bytes = llvm::alignTo(
        std::max<size_t>(elements * int21::runtime::dtypeSize(spec.dtype), 1),
        kAlign);
    void *data = std::aligned_alloc(kAlign, bytes);
    if (!data)
      throw std::bad_alloc();
    py::capsule owner(data, [](void *p) { std::free(p); });
    outputs.emplace_back(dtype, spec.shape, data, owner);
    outputPointers.push_back(data);
  }
  std::vector<const void *> inputPointers;
  for (const py::array &array : inputs)
    inputPointers.push_back(array.data());

  std::string error;
  {
    py::gil_scoped_release release;
    if (llvm::Error e = engine->run(inputPointers, outputPointers))
      error = llvm::toString(std::move(e));
  }
  if (!error.empty())
    throw EngineFailure(error);

  if (!listForm) {
    py::dict result;
    for (size_t i : wanted)
      result[py::str(meta.outputs[i].name)] = outputs[i];
    return result;
  }
  py::list result;
  for (size_t i : wanted)
    result.append(outputs[i]);
  return result;
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

struct CompileRequest {
  /// The model file, or its bytes (a serialized ModelProto) when empty.
  std::string path;
  std::string data;
  std::string target;
  std::map<std::string, std::vector<int64_t>> inputShapes;
  bool tune = false;
  unsigned budget = 0;
  std::string workerExecutable;
};

struct CompileResult {
  std::string engine;
  std::vector<std::string> errors;
  std::optional<int21::search::TuneResult> tuned;
};

/// Imports, optionally tunes, and compiles the model, as int21-compile
/// --target does; runs without the GIL.
CompileResult compileModel(const CompileRequest &request) {
  CompileResult result;
  mlir::DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadDialect<mlir::int21::Int21Dialect, mlir::func::FuncDialect>();
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
      result.errors.push_back(int21::formatDiagnostic(diag));
    return mlir::success();
  });
  // A failure says why: the diagnostics, else `message`.
  auto fail = [&](const std::string &message) {
    if (result.errors.empty())
      result.errors.push_back(message);
  };

  mlir::int21::OnnxImportOptions options;
  for (const auto &[inputName, shape] : request.inputShapes)
    options.inputShapes[inputName] =
        llvm::SmallVector<int64_t>(shape.begin(), shape.end());
  std::string modelName = request.path.empty() ? "<bytes>" : request.path;
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> module =
      request.path.empty()
          ? mlir::int21::importOnnxModel(
                context, llvm::MemoryBufferRef(request.data, modelName),
                modelName, /*isText=*/false, options)
          : mlir::int21::importOnnxFile(context, request.path, options);
  if (failed(module)) {
    fail(modelName + ": import failed");
    return result;
  }

  if (request.tune) {
    int21::search::TuneOptions tuneOptions;
    tuneOptions.budget = request.budget;
    tuneOptions.target = request.target;
    tuneOptions.workerExecutable = request.workerExecutable;
    llvm::Expected<int21::search::TuneResult> tuned =
        int21::search::tuneAndApply(**module, tuneOptions, llvm::errs());
    if (!tuned) {
      fail(modelName + ": tuning failed: " + llvm::toString(tuned.takeError()));
      return result;
    }
    result.tuned = std::move(*tuned);
  }

  int21::CompileOptions compileOptions;
  compileOptions.target = request.target;
  llvm::raw_string_ostream os(result.engine);
  if (failed(int21::compileToEngine(**module, compileOptions, os)))
    fail(modelName + ": compilation failed");
  return result;
}

std::unique_ptr<PyEngine>
compile(std::optional<std::string> path, std::optional<py::bytes> data,
        const std::string &target, bool tune, unsigned budget,
        const std::map<std::string, std::vector<int64_t>> &inputShapes,
        const std::string &workerExecutable) {
  std::string error;
  if (failed(int21::resolveCPUTarget(target, error)))
    throw py::value_error("target: " + error);
  CompileRequest request;
  request.path = path.value_or("");
  if (!path)
    request.data = data ? std::string(*data) : std::string();
  request.target = target;
  request.inputShapes = inputShapes;
  request.tune = tune;
  request.budget = budget;
  request.workerExecutable = workerExecutable;

  CompileResult result;
  std::unique_ptr<llvm::WritableMemoryBuffer> bytes;
  {
    py::gil_scoped_release release;
    result = compileModel(request);
    if (result.errors.empty()) {
      bytes = llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
          result.engine.size(), request.path, llvm::Align(kAlign));
      if (bytes)
        std::memcpy(bytes->getBufferStart(), result.engine.data(),
                    result.engine.size());
    }
  }
  if (!result.errors.empty())
    throw CompileFailure(std::move(result.errors));
  if (!bytes)
    throw std::bad_alloc();
  std::unique_ptr<PyEngine> engine;
  {
    // Checking and loading the code (checksum, dlopen) needs no Python.
    py::gil_scoped_release release;
    engine = std::make_unique<PyEngine>(
        std::move(bytes),
        request.path.empty() ? std::string("<compiled model>") : request.path);
  }
  if (result.tuned)
    engine->tuning = makeTuneReport(*result.tuned);
  return engine;
}

//===----------------------------------------------------------------------===//
// The module
//===----------------------------------------------------------------------===//

void bindErrors(py::module_ &m) {
  compileErrorType = PyErr_NewExceptionWithDoc(
      "int21.CompileError",
      "The compiler rejected the model; `diagnostics` lists its messages, one "
      "line each (file, ONNX node, message).",
      PyExc_RuntimeError, nullptr);
  engineErrorType = PyErr_NewExceptionWithDoc(
      "int21.EngineError",
      "An engine could not be read, loaded or run (a corrupt or foreign "
      "file, an engine compiled for another machine).",
      PyExc_RuntimeError, nullptr);
  m.attr("CompileError") = py::handle(compileErrorType);
  m.attr("EngineError") = py::handle(engineErrorType);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const CompileFailure &e) {
      py::object error =
          py::reinterpret_borrow<py::object>(compileErrorType)(e.what());
      error.attr("diagnostics") = py::cast(e.diagnostics);
      PyErr_SetObject(compileErrorType, error.ptr());
    } catch (const EngineFailure &e) {
      PyErr_SetString(engineErrorType, e.what());
    }
  });
}

void bindEngine(py::module_ &m) {
  py::class_<TensorInfo>(m, "TensorInfo",
                         "An input or output of an engine: name, numpy dtype "
                         "(None for bfloat16) and shape; also a tuple "
                         "(name, dtype, shape) to unpack or compare.")
      .def_readonly("name", &TensorInfo::name)
      .def_readonly("dtype", &TensorInfo::dtype)
      .def_readonly("shape", &TensorInfo::shape)
      .def("__len__", [](const TensorInfo &) { return 3; })
      .def("__iter__",
           [](const TensorInfo &info) { return py::iter(asTuple(info)); })
      .def("__getitem__",
           [](const TensorInfo &info, py::object index) -> py::object {
             return asTuple(info).attr("__getitem__")(index);
           })
      .def("__eq__",
           [](const TensorInfo &info, py::object other) -> py::object {
             if (py::isinstance<TensorInfo>(other))
               other = asTuple(other.cast<const TensorInfo &>());
             if (!py::isinstance<py::tuple>(other))
               return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(asTuple(info).equal(other));
           })
      .def("__hash__",
           [](const TensorInfo &info) { return py::hash(asTuple(info)); })
      .def("__repr__", [](const TensorInfo &info) {
        return "TensorInfo(name=" + std::string(py::repr(py::str(info.name))) +
               ", dtype=" + std::string(py::str(info.dtype)) +
               ", shape=" + std::string(py::repr(info.shape)) + ")";
      });

  py::class_<PyEngine>(m, "Engine",
                       "A compiled model: int21.compile() makes one, "
                       "Engine.load() reads one that save() wrote.")
      .def_static("load", &PyEngine::load, py::arg("path"),
                  "Reads an engine file (.int21).")
      .def("save", &PyEngine::save, py::arg("path"),
           "Writes the engine file (.int21).")
      .def_property_readonly("inputs", &PyEngine::inputs)
      .def_property_readonly("outputs", &PyEngine::outputs)
      .def_property_readonly(
          "target", [](const PyEngine &e) { return e.metadata().target; })
      .def_property_readonly(
          "compiler_version",
          [](const PyEngine &e) { return e.metadata().compilerVersion; })
      .def_property("threads", &PyEngine::threads, &PyEngine::setThreads,
                    "Threads run() uses (default: the machine's).")
      .def_readonly("tuning", &PyEngine::tuning,
                    "What tune=True found (a TuneReport), else None.")
      .def("run", &PyEngine::run,
           "run(feeds) -> {output name: array}\n"
           "run(output_names, feeds) -> [array] (ONNX Runtime's form; "
           "output_names=None: every output)\n\n"
           "feeds maps every input name to a numpy array of the input's "
           "dtype and shape. C-contiguous arrays are read in place; others "
           "are copied. Releases the GIL while the engine runs.")
      .def("__repr__", [](const PyEngine &e) {
        std::string text = "<int21.Engine inputs=[";
        for (auto [i, spec] : llvm::enumerate(e.metadata().inputs))
          text += (i ? ", " : "") + spec.name + shapeString(spec.shape);
        text += "] outputs=[";
        for (auto [i, spec] : llvm::enumerate(e.metadata().outputs))
          text += (i ? ", " : "") + spec.name + shapeString(spec.shape);
        return text + "] target=" + e.metadata().target + ">";
      });
}

void bindTuning(py::module_ &m) {
  py::class_<KernelReport>(m, "KernelReport", "One kernel of a tuning run.")
      .def_readonly("name", &KernelReport::name)
      .def_readonly("signature", &KernelReport::signature)
      .def_readonly("instances", &KernelReport::instances)
      .def_readonly("trials", &KernelReport::trials)
      .def_readonly("default_ms", &KernelReport::defaultMs)
      .def_readonly("best_ms", &KernelReport::bestMs)
      .def_readonly("agent", &KernelReport::agent,
                    "Who found the winner ('default' when nothing beat it).")
      .def_readonly("error", &KernelReport::error)
      .def("__repr__", [](const KernelReport &k) {
        return "<KernelReport " + k.name + ": " + std::to_string(k.trials) +
               " trials, best " + std::to_string(k.bestMs) + " ms>";
      });
  py::class_<TuneReport>(m, "TuneReport", "What a tuning run found.")
      .def_readonly("summary", &TuneReport::summary,
                    "int21-compile --tune's last line.")
      .def_readonly("trials", &TuneReport::trials)
      .def_readonly("reused", &TuneReport::reused)
      .def_readonly("speedup", &TuneReport::speedup)
      .def_readonly("seconds", &TuneReport::seconds)
      .def_readonly("kernels", &TuneReport::kernels)
      .def("__repr__", [](const TuneReport &r) {
        return "<TuneReport " + r.summary + ">";
      });
}

void bindCompiler(py::module_ &m) {
  m.def("_compile", &compile, py::arg("path"), py::arg("data"),
        py::arg("target"), py::arg("tune"), py::arg("budget"),
        py::arg("input_shapes"), py::arg("worker"),
        "The compiler behind int21.compile(), which checks the arguments.");
  m.def("host_target", &int21::runtime::Engine::hostTarget,
        "This machine's target name, as engines record it.");
  m.attr("__version__") = int21::compilerVersion().str();
}

} // namespace

PYBIND11_MODULE(_int21, m) {
  m.doc() = "int21's compiler and runtime (use the int21 package).";
  bindErrors(m);
  bindEngine(m);
  bindTuning(m);
  bindCompiler(m);
}

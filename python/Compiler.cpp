//===- Compiler.cpp - int21.compile: import, tune and compile in process --===//

#include "Int21Python.h"

#include "int21/AgentSearch/KnowledgeBase.h"
#include "int21/AgentSearch/Tuner.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Compiler/GpuEngine.h"
#include "int21/Compiler/Diagnostics.h"
#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Import/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstring>
#include <map>

using namespace int21::python;

namespace {

TuneReport makeTuneReport(const int21::search::TuneResult &result) {
  TuneReport report;
  report.summary = int21::search::summarizeTuning(result);
  report.trials = result.trials;
  report.reused = result.reused;
  report.speedup = result.speedup;
  report.seconds = result.seconds;
  report.threads = result.threads;
  for (const int21::search::KernelSummary &kernel : result.kernels)
    report.kernels.push_back({kernel.name, kernel.signature, kernel.winnerAgent,
                              kernel.error, kernel.instances, kernel.trials,
                              kernel.defaultMs, kernel.bestMs});
  return report;
}

struct CompileRequest {
  /// The model file, or its bytes (a serialized ModelProto) when empty.
  std::string path;
  std::string data;
  std::string target;
  std::map<std::string, std::vector<int64_t>> inputShapes;
  bool tune = false;
  unsigned budget = 0;
  std::string workerExecutable;
  /// The knowledge base: none, the default one, or the file `kbPath`.
  bool useKB = true;
  std::string kbPath;
  /// The engine's run threads (0: Engine::defaultThreads()).
  unsigned threads = 0;
};

struct CompileResult {
  std::string engine;
  std::vector<std::string> errors;
  std::optional<int21::search::TuneResult> tuned;
  /// The signal that stopped the search (searchInterruption), 0 if none.
  int interruption = 0;
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

  // The knowledge base, as int21-compile uses it: --tune reads and stores
  // it (creating it), otherwise it is read when it exists.
  std::unique_ptr<int21::search::KnowledgeBase> kb;
  if (request.useKB) {
    auto opened = int21::search::KnowledgeBase::openForCompile(request.kbPath,
                                                               request.tune);
    if (!opened) {
      fail(llvm::toString(opened.takeError()));
      return result;
    }
    kb = std::move(*opened);
  }
  int21::CompileOptions compileOptions;
  compileOptions.target = request.target;
  llvm::raw_string_ostream os(result.engine);
  // GPU engines: the default GPU schedules (the knowledge base and the
  // search are the CPU's so far).
  if (int21::isGPUTarget(request.target)) {
    if (failed(int21::compileToGpuEngine(**module, compileOptions, os)))
      fail(modelName + ": compilation failed");
    return result;
  }
  std::string kbError;
  std::string kbTarget = *int21::resolveCPUTarget(request.target, kbError);
  if (kb && !request.tune) {
    llvm::Expected<int21::search::KnowledgeApplied> applied =
        int21::search::applyKnowledge(**module, *kb, kbTarget,
                                      request.threads);
    if (!applied) {
      fail(modelName + ": " + llvm::toString(applied.takeError()));
      return result;
    }
  }
  if (request.tune) {
    int21::search::TuneOptions tuneOptions;
    tuneOptions.knowledgeBase = kb.get();
    tuneOptions.kbTarget = kbTarget;
    tuneOptions.budget = request.budget;
    tuneOptions.target = request.target;
    tuneOptions.workerExecutable = request.workerExecutable;
    tuneOptions.threads = request.threads;
    llvm::Expected<int21::search::TuneResult> tuned =
        int21::search::tuneAndApply(**module, tuneOptions, llvm::errs());
    if (!tuned) {
      result.interruption = int21::search::searchInterruption();
      fail(modelName + ": tuning failed: " + llvm::toString(tuned.takeError()));
      return result;
    }
    result.tuned = std::move(*tuned);
  }

  if (failed(int21::compileToEngine(**module, compileOptions, os)))
    fail(modelName + ": compilation failed");
  return result;
}

std::unique_ptr<PyEngine>
compile(std::optional<std::string> path, std::optional<py::bytes> data,
        const std::string &target, bool tune, unsigned budget,
        const std::map<std::string, std::vector<int64_t>> &inputShapes,
        const std::string &workerExecutable, bool useKB,
        const std::string &kbPath, unsigned threads) {
  std::string error;
  if (int21::isGPUTarget(target)) {
    if (failed(int21::checkGPUTarget(target, error)))
      throw py::value_error("target: " + error);
    if (tune)
      throw py::value_error("tune=True searches CPU schedules only "
                            "(target='cpu')");
  } else if (failed(int21::resolveCPUTarget(target, error))) {
    throw py::value_error("target: " + error);
  }
  CompileRequest request;
  request.path = path.value_or("");
  if (!path)
    request.data = data ? std::string(*data) : std::string();
  request.target = target;
  request.inputShapes = inputShapes;
  request.tune = tune;
  request.budget = budget;
  request.workerExecutable = workerExecutable;
  request.useKB = useKB;
  request.kbPath = kbPath;
  request.threads = threads;

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
  // Ctrl-C stopped the search (its children killed, the knowledge base
  // keeping what it had stored): Python's own way to say so.
  if (result.interruption == SIGINT) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
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

} // namespace

void int21::python::bindCompiler(py::module_ &m) {
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
      .def_readonly("threads", &TuneReport::threads,
                    "The threads the kernels were timed on.")
      .def_readonly("kernels", &TuneReport::kernels)
      .def("__repr__", [](const TuneReport &r) {
        return "<TuneReport " + r.summary + ">";
      });

  m.def("_compile", &compile, py::arg("path"), py::arg("data"),
        py::arg("target"), py::arg("tune"), py::arg("budget"),
        py::arg("input_shapes"), py::arg("worker"), py::arg("use_kb"),
        py::arg("kb_path"), py::arg("threads"),
        "The compiler behind int21.compile(), which checks the arguments.");
  m.def("host_target", &int21::runtime::Engine::hostTarget,
        "This machine's target name, as engines record it.");
  m.attr("__version__") = int21::compilerVersion().str();
}

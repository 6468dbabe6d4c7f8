//===- Compiler.cpp - int21.compile: import, tune and compile in process --===//

#include "Int21Python.h"

#include "int21/AgentSearch/Tuner.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Compiler/Session.h"

#include "llvm/Support/MemoryBuffer.h"
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
  int21::SessionOptions options;
};

struct CompileResult {
  std::string engine;
  std::vector<std::string> errors;
  std::optional<int21::search::TuneResult> tuned;
  /// The signal that stopped the search (searchInterruption), 0 if none.
  int interruption = 0;
};

/// Imports, optionally tunes, and compiles the model through a compile
/// session, as int21-compile --target does; runs without the GIL.
CompileResult compileModel(CompileRequest request) {
  CompileResult result;
  llvm::Expected<std::unique_ptr<int21::CompileSession>> session =
      int21::CompileSession::create(std::move(request.options));
  if (!session) {
    result.errors.push_back(llvm::toString(session.takeError()));
    return result;
  }
  int21::CompileSession &compiler = **session;
  std::unique_ptr<llvm::MemoryBuffer> file;
  llvm::MemoryBufferRef input(request.data, "<bytes>");
  int21::InputFormat format = int21::InputFormat::Onnx;
  if (!request.path.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(request.path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      result.errors.push_back("cannot read '" + request.path +
                              "': " + buffer.getError().message());
      return result;
    }
    file = std::move(*buffer);
    input = file->getMemBufferRef();
    format = int21::inputFormatOf(request.path);
  }
  llvm::raw_string_ostream os(result.engine);
  int21::ScheduleSummary summary;
  if (failed(compiler.compile(input, format, os, &summary))) {
    result.interruption = int21::search::searchInterruption();
    result.errors = compiler.errors();
    if (result.errors.empty())
      result.errors.push_back(input.getBufferIdentifier().str() +
                              ": compilation failed");
    return result;
  }
  result.tuned = std::move(summary.tuned);
  return result;
}

std::unique_ptr<PyEngine>
compile(std::optional<std::string> path, std::optional<py::bytes> data,
        const std::string &target, bool tune, unsigned budget,
        const std::map<std::string, std::vector<int64_t>> &inputShapes,
        const std::string &workerExecutable, bool useKB,
        const std::string &kbPath, unsigned threads,
        const std::map<std::string, std::vector<std::vector<int64_t>>>
            &shapeProfiles,
        const std::vector<std::map<std::string, std::vector<int64_t>>>
            &shapeBuckets) {
  llvm::Expected<int21::Target> resolved = int21::Target::parse(target);
  if (!resolved)
    throw py::value_error("target: " + llvm::toString(resolved.takeError()));
  if (resolved->isGPU() && tune)
    throw py::value_error("tune=True searches CPU schedules only "
                          "(target='cpu')");
  CompileRequest request;
  request.path = path.value_or("");
  if (!path)
    request.data = data ? std::string(*data) : std::string();
  int21::SessionOptions &options = request.options;
  options.codegen.target = std::move(*resolved);
  for (const auto &[name, shape] : inputShapes)
    options.inputShapes[name] = shape;
  for (const auto &[name, bounds] : shapeProfiles)
    options.shapeProfiles[name] = {bounds.at(0), bounds.at(1), bounds.at(2)};
  options.shapeBuckets = shapeBuckets;
  options.useKnowledgeBase = useKB;
  options.knowledgeBasePath = kbPath;
  options.threads = threads;
  if (tune) {
    int21::search::TuneOptions &search = options.tune.emplace();
    search.budget = budget;
    search.workerExecutable = workerExecutable;
    search.threads = threads;
    options.progress = &llvm::errs();
  }
  std::string modelName = request.path;

  CompileResult result;
  std::unique_ptr<llvm::WritableMemoryBuffer> bytes;
  {
    py::gil_scoped_release release;
    result = compileModel(std::move(request));
    if (result.errors.empty()) {
      bytes = llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
          result.engine.size(), modelName, llvm::Align(kAlign));
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
        modelName.empty() ? std::string("<compiled model>") : modelName);
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
        py::arg("kb_path"), py::arg("threads"), py::arg("shape_profiles"),
        py::arg("shape_buckets"),
        "The compiler behind int21.compile(), which checks the arguments.");
  m.def("host_target", &int21::runtime::Engine::hostTarget,
        "This machine's target name, as engines record it.");
  m.attr("__version__") = int21::compilerVersion().str();
}

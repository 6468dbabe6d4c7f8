//===- int21-compile.cpp - ONNX model -> int21, linalg, LLVM IR or engine ---===//

#include "int21/AgentSearch/Agent.h"
#include "int21/AgentSearch/Fusion.h"
#include "int21/AgentSearch/Measure.h"
#include "int21/AgentSearch/KnowledgeBase.h"
#include "int21/AgentSearch/Library.h"
#include "int21/AgentSearch/Tuner.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Compiler/Diagnostics.h"
#include "int21/Compiler/GpuEngine.h"
#include "int21/Compiler/PTX.h"
#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Import/OnnxImporter.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstring>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class EmitKind { Int21, Linalg, LLVM, Engine, GPU, PTX, Resources };

} // namespace

/// Parses "ID:KIND,..." (the --tune-inject test hook).
bool parseFaults(StringRef text, std::map<unsigned, std::string> &faults) {
  SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [id, kind] = item.split(':');
    unsigned trial;
    if (id.getAsInteger(10, trial) || kind.empty())
      return false;
    faults[trial] = kind.str();
  }
  return true;
}

namespace {
/// Where the output goes: stdout for "-", else a temporary file next to the
/// named one, renamed over it once the output is complete. A compile that
/// fails, or is killed at any point, leaves an engine already there intact
/// (killed, it may leave its NAME.tmp-XXXXXX behind).
class OutputFile {
public:
  static std::unique_ptr<OutputFile> open(llvm::StringRef path,
                                          std::string &error) {
    auto out = std::unique_ptr<OutputFile>(new OutputFile());
    if (path == "-") {
      out->stdoutFile = openOutputFile("-", &error);
      return out->stdoutFile ? std::move(out) : nullptr;
    }
    out->path = path.str();
    llvm::Expected<llvm::sys::fs::TempFile> temp =
        llvm::sys::fs::TempFile::create(path + ".tmp-%%%%%%");
    if (!temp) {
      error = "cannot write '" + path.str() +
              "': " + llvm::toString(temp.takeError());
      return nullptr;
    }
    out->temp.emplace(std::move(*temp));
    out->stream =
        std::make_unique<llvm::raw_fd_ostream>(out->temp->FD, false);
    return out;
  }
  ~OutputFile() {
    if (temp) {
      stream.reset();
      llvm::consumeError(temp->discard());
    }
  }
  llvm::raw_ostream &os() {
    return stdoutFile ? stdoutFile->os() : *stream;
  }
  /// Makes the output final; false (and `error`) if it cannot be.
  bool keep(std::string &error) {
    if (stdoutFile) {
      stdoutFile->keep();
      return true;
    }
    stream->flush();
    std::error_code ec = stream->error();
    stream->clear_error();
    stream.reset();
    if (!ec)
      if (llvm::Error failed = temp->keep(path))
        ec = llvm::errorToErrorCode(std::move(failed));
    temp.reset();
    if (ec)
      error = "cannot write '" + path + "': " + ec.message();
    return !ec;
  }

private:
  OutputFile() = default;
  std::unique_ptr<llvm::ToolOutputFile> stdoutFile;
  std::string path;
  std::optional<llvm::sys::fs::TempFile> temp;
  std::unique_ptr<llvm::raw_fd_ostream> stream;
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // The search's measurement child: the same binary, another job.
  if (argc > 1 && StringRef(argv[1]).starts_with("--tune-worker="))
    return ::int21::search::measureWorkerMain(argc, argv);

  cl::OptionCategory category("int21-compile options");
  cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                                 cl::cat(category));
  cl::opt<bool> listOps(
      "list-supported-ops",
      cl::desc("List the ONNX operators int21 imports, with the first opset "
               "handled, and exit"),
      cl::init(false), cl::cat(category));
  cl::opt<std::string> outputFile(
      "o", cl::desc("Output file (default: stdout)"), cl::value_desc("file"),
      cl::init("-"), cl::cat(category));
  cl::opt<EmitKind> emit(
      "emit",
      cl::desc("What to produce (default: an engine when --target is given, "
               "else int21)"),
      cl::values(clEnumValN(EmitKind::Int21, "int21",
                            "the imported model in the int21 dialect"),
                 clEnumValN(EmitKind::Linalg, "linalg",
                            "fusion groups lowered to linalg on tensors "
                            "(the int21-to-linalg pipeline)"),
                 clEnumValN(EmitKind::LLVM, "llvm",
                            "optimised LLVM IR of the engine's code"),
                 clEnumValN(EmitKind::Engine, "engine",
                            "a .int21 engine: code, weights and metadata"),
                 clEnumValN(EmitKind::GPU, "gpu",
                            "GPU targets: the host code and the outlined "
                            "kernels (GPU dialect), before NVVM"),
                 clEnumValN(EmitKind::PTX, "ptx",
                            "GPU targets: every kernel in one PTX module"),
                 clEnumValN(EmitKind::Resources, "resources",
                            "GPU targets: the PTX assembled with ptxas, one "
                            "line per kernel with its registers, shared "
                            "memory and spills")),
      cl::cat(category));
  cl::opt<std::string> target(
      "target",
      cl::desc("Where the engine runs: 'cpu' (this machine), "
               "'cpu:<triple>:<cpu>', or an NVIDIA GPU: 'sm_80', 'sm_90'"),
      cl::value_desc("target"), cl::init(""), cl::cat(category));
  cl::opt<bool> noSchedule(
      "no-schedule",
      cl::desc("Skip the default CPU schedule: the reference lowering (plain "
               "loops, one thread)"),
      cl::init(false), cl::cat(category));
  cl::opt<std::string> scheduleKnobs(
      "schedule-knobs",
      cl::desc("Knob values over the default CPU schedule's, "
               "TEMPLATE.NAME=VALUE,... (e.g. cpu.matmul.reg_m=4)"),
      cl::value_desc("knobs"), cl::init(""), cl::cat(category));
  cl::opt<std::string> gpuSchedules(
      "gpu-schedules",
      cl::desc("With a CPU target: schedule with the GPU templates of this "
               "chip (sm_80, sm_90), shared memory as plain buffers, to check "
               "the GPU tiling on the CPU"),
      cl::value_desc("chip"), cl::init(""), cl::cat(category));
  cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimisation level (0-3)"),
                             cl::init(3), cl::Prefix, cl::cat(category));
  cl::opt<bool> noObjectCache(
      "no-object-cache",
      cl::desc("Compile every kernel with LLVM, neither reusing nor storing "
               "object code in the object cache (default: "
               "$INT21_OBJECT_CACHE, else $XDG_CACHE_HOME/int21/objects; "
               "INT21_OBJECT_CACHE=off turns it off too)"),
      cl::init(false), cl::cat(category));
  cl::opt<unsigned> codegenThreads(
      "codegen-threads",
      cl::desc("Threads LLVM compiles the kernels on (default 0: one per "
               "core)"),
      cl::init(0), cl::cat(category));
  cl::list<std::string> inputShapes(
      "input-shape",
      cl::desc("Static shape of a model input, e.g. input=1x3x224x224 "
               "(repeatable)"),
      cl::value_desc("NAME=DIMS"), cl::cat(category));
  cl::list<std::string> frozenInputs(
      "freeze-input",
      cl::desc("Freeze a model input to the tensor in FILE (an ONNX "
               "TensorProto, .pb): it becomes a constant of the model, so "
               "the shapes and axes it gives are static (repeatable)"),
      cl::value_desc("NAME=FILE"), cl::cat(category));
  cl::opt<bool> splitInputFile(
      "split-input-file",
      cl::desc("Split an .onnxtext input at '# -----' lines and import each "
               "model on its own (for tests)"),
      cl::init(false), cl::cat(category));
  cl::opt<bool> printWeights(
      "print-weights",
      cl::desc("Print the weights' bytes in the output (by default weights "
               "are dense_resource handles with a name and no data)"),
      cl::init(false), cl::cat(category));

  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::OptionCategory tuneCategory("int21-compile schedule search (--tune)");
  cl::opt<bool> tuneFlag(
      "tune",
      cl::desc("Search the schedule of every kernel on this machine (each "
               "candidate compiled, checked against the reference lowering "
               "and timed) and build the engine from the winners"),
      cl::init(false), cl::cat(tuneCategory));
  cl::opt<std::string> kbPath(
      "kb",
      cl::desc("The knowledge base: --tune reuses and stores winners there; "
               "without --tune, the schedules it holds for this machine "
               "are applied (default: $XDG_CACHE_HOME/int21/kb.sqlite)"),
      cl::value_desc("file"), cl::init(""), cl::cat(tuneCategory));
  cl::opt<bool> noKB("no-kb", cl::desc("Use no knowledge base"),
                     cl::init(false), cl::cat(tuneCategory));
  cl::opt<std::string> schedulesPath(
      "schedules",
      cl::desc("Schedule the model's fusion groups with a transform library "
               "exported by int21-kb export (instead of a knowledge base)"),
      cl::value_desc("lib.mlir"), cl::init(""), cl::cat(tuneCategory));
  cl::opt<unsigned> budget(
      "budget",
      cl::desc("Trials beyond the default schedules (default: 20 per kernel "
               "when --time is not given)"),
      cl::init(0), cl::cat(tuneCategory));
  cl::opt<double> tuneTime("time",
                           cl::desc("Seconds the search may take at most"),
                           cl::init(0), cl::cat(tuneCategory));
  cl::opt<unsigned> maxMerges(
      "max-merges",
      cl::desc("Fusion sites (distinct merged kernels) the fusion agent may "
               "try at most (default 16)"),
      cl::init(16), cl::cat(tuneCategory));
  cl::opt<double> mergeMargin(
      "merge-margin",
      cl::desc("Merge a fusion site when its merged kernel beats its parts "
               "by more than this fraction (default 0.03; negative: even "
               "when slower)"),
      cl::init(0.03), cl::cat(tuneCategory));
  cl::opt<unsigned> seed("seed", cl::desc("Seed of the search (default 21)"),
                         cl::init(21), cl::cat(tuneCategory));
  cl::opt<unsigned> jobs(
      "jobs", cl::desc("Candidates compiled in parallel (default: cores)"),
      cl::init(0), cl::cat(tuneCategory));
  cl::opt<unsigned> tuneThreads(
      "tune-threads",
      cl::desc("Threads kernels are timed with: those the engine will run "
               "on (default 0: the physical cores, what int21-run and "
               "Engine use unless told otherwise)"),
      cl::init(0),
      cl::cat(tuneCategory));
  cl::opt<double> measureSeconds(
      "measure-seconds",
      cl::desc("Time spent timing one candidate, after its warm-up "
               "(default 0.5)"),
      cl::init(0.5), cl::cat(tuneCategory));
  cl::opt<bool> pairedTiming(
      "paired-timing",
      cl::desc("Time each candidate in alternation with its kernel's default "
               "schedule, so that a slow or fast spell of the machine moves "
               "both alike (default on)"),
      cl::init(true), cl::cat(tuneCategory));
  cl::opt<bool> confirmWinners(
      "confirm-winners",
      cl::desc("After the search, time each kernel's winner again beside its "
               "default on fresh inputs: one that fails or is no faster "
               "gives way to the default, and the speed-up reported is the "
               "one measured then (default on)"),
      cl::init(true), cl::cat(tuneCategory));
  // The agents' names and what each does come from their registry.
  std::string agentsDesc = "Built-in agents to search with (default: " +
                           llvm::join(::int21::search::defaultTeam(false), ", ") +
                           "; 'none': only --agent-cmd ones)";
  std::string agentsTable = "\nBuilt-in agents (--agents):\n";
  for (const ::int21::search::BuiltinAgent &agent :
       ::int21::search::builtinAgents()) {
    agentsTable += "  " + agent.name.str();
    agentsTable += std::string(12 - agent.name.size(), ' ');
    agentsTable += agent.description;
    agentsTable += "\n";
  }
  cl::extrahelp agentsHelp(agentsTable);
  cl::list<std::string> agentNames(
      "agents", cl::desc(agentsDesc),
      cl::CommaSeparated, cl::value_desc("name,..."), cl::cat(tuneCategory));
  cl::list<std::string> agentCommands(
      "agent-cmd",
      cl::desc("An external agent: a command speaking the JSON-lines "
               "protocol of docs/agent-protocol.md (repeatable)"),
      cl::value_desc("command"), cl::cat(tuneCategory));
  cl::opt<std::string> reportDir(
      "report",
      cl::desc("Write a report (report.md, convergence plots, log.jsonl) "
               "to this directory"),
      cl::value_desc("dir"), cl::init(""), cl::cat(tuneCategory));
  cl::opt<std::string> tuneLog(
      "tune-log", cl::desc("Write every trial as a JSON line to this file"),
      cl::value_desc("file"), cl::init(""), cl::cat(tuneCategory));
  cl::opt<double> compileTimeout(
      "compile-timeout",
      cl::desc("Seconds a candidate may take to compile (default 120)"),
      cl::init(120), cl::cat(tuneCategory));
  cl::opt<double> runTimeout(
      "run-timeout",
      cl::desc("Seconds a candidate's check and timing may take (default 60)"),
      cl::init(60), cl::cat(tuneCategory));
  cl::opt<bool> keepTuneDir(
      "keep-tune-dir",
      cl::desc("Keep the kernels and engines the search compiled"),
      cl::init(false), cl::cat(tuneCategory));
  // Test hooks and the compile child's switches: not for users.
  cl::opt<std::string> tuneInject(
      "tune-inject", cl::desc("Inject faults into trials: ID:KIND,..."),
      cl::init(""), cl::Hidden);
  cl::opt<std::string> injectFault(
      "inject-fault", cl::desc("Compile child: inject this fault"),
      cl::init(""), cl::Hidden);
  cl::opt<bool> strictSchedules(
      "strict-schedules",
      cl::desc("A group whose #int21.schedule does not apply is an error"),
      cl::init(false), cl::Hidden);

  // --help lists int21-compile's own options and the few MLIR ones a user of
  // mlir-opt reaches for, not every option LLVM's backends register.
  cl::HideUnrelatedOptions({&category, &tuneCategory});
  auto &registered = cl::getRegisteredOptions();
  for (llvm::StringRef name :
       {"mlir-timing", "mlir-timing-display", "mlir-print-debuginfo",
        "mlir-elide-elementsattrs-if-larger", "mlir-print-op-generic"})
    if (cl::Option *option = registered.lookup(name))
      option->setHiddenFlag(cl::NotHidden);
  cl::ParseCommandLineOptions(argc, argv,
                              "int21-compile: compile an ONNX model\n");

  if (listOps) {
    for (const auto &[op, opset] : mlir::int21::supportedOnnxOps())
      llvm::outs() << op << " " << opset << "\n";
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "int21-compile: error: no input model given (see --help)\n";
    return 1;
  }

  EmitKind emitKind =
      emit.getNumOccurrences() ? emit.getValue()
                               : (target.empty() ? EmitKind::Int21
                                                 : EmitKind::Engine);
  bool gpuTarget = ::int21::isGPUTarget(target);
  bool gpuEmit = emitKind == EmitKind::GPU || emitKind == EmitKind::PTX ||
                 emitKind == EmitKind::Resources;
  if (gpuEmit && !gpuTarget) {
    llvm::errs() << "int21-compile: error: --emit=gpu, ptx and resources "
                    "need a GPU target (--target=sm_80 or sm_90)\n";
    return 1;
  }
  if (gpuTarget) {
    std::string error;
    if (failed(::int21::checkGPUTarget(target, error))) {
      llvm::errs() << "int21-compile: error: --target: " << error << "\n";
      return 1;
    }
    if (tuneFlag) {
      llvm::errs() << "int21-compile: error: --tune searches CPU schedules "
                      "only (--target=cpu)\n";
      return 1;
    }
    if (emitKind == EmitKind::LLVM) {
      llvm::errs() << "int21-compile: error: --emit=llvm needs a CPU target; "
                      "for " << target << " use --emit=gpu, ptx or resources\n";
      return 1;
    }
  }
  if (!gpuSchedules.empty()) {
    std::string error;
    if (gpuTarget || failed(::int21::checkGPUTarget(gpuSchedules, error))) {
      llvm::errs() << "int21-compile: error: --gpu-schedules: "
                   << (gpuTarget ? "only with a CPU target" : error) << "\n";
      return 1;
    }
  }
  bool compiles = emitKind == EmitKind::LLVM || emitKind == EmitKind::Engine ||
                  gpuEmit;
  ::int21::CompileOptions compileOptions;
  compileOptions.target = target.empty() ? "cpu" : target.getValue();
  compileOptions.optLevel = std::min(3u, optLevel.getValue());
  compileOptions.objectCache = !noObjectCache;
  compileOptions.codegenThreads = codegenThreads;
  compileOptions.schedule = !noSchedule;
  compileOptions.knobs = scheduleKnobs;
  compileOptions.strictSchedules = strictSchedules;
  compileOptions.gpuSchedules = gpuSchedules;
  ::int21::search::TuneOptions tuneOptions;
  if (tuneFlag) {
    if (emitKind != EmitKind::Engine) {
      llvm::errs() << "int21-compile: error: --tune builds an engine: give "
                      "--target=cpu\n";
      return 1;
    }
    if (noSchedule) {
      llvm::errs() << "int21-compile: error: --tune and --no-schedule "
                      "exclude each other\n";
      return 1;
    }
    if (!parseFaults(tuneInject, tuneOptions.faults)) {
      llvm::errs() << "int21-compile: error: --tune-inject: expected "
                      "ID:KIND,...\n";
      return 1;
    }
    tuneOptions.budget = budget;
    tuneOptions.maxMerges = maxMerges;
    tuneOptions.mergeMargin = mergeMargin;
    tuneOptions.seconds = tuneTime;
    tuneOptions.seed = seed;
    tuneOptions.jobs = jobs;
    tuneOptions.threads = tuneThreads;
    tuneOptions.measureSeconds = measureSeconds;
    tuneOptions.pairedTiming = pairedTiming;
    tuneOptions.confirmWinners = confirmWinners;
    tuneOptions.agents.assign(agentNames.begin(), agentNames.end());
    tuneOptions.agentCommands.assign(agentCommands.begin(),
                                     agentCommands.end());
    tuneOptions.reportDir = reportDir;
    tuneOptions.logPath = tuneLog;
    tuneOptions.keepWorkDir = keepTuneDir;
    tuneOptions.compileTimeout = compileTimeout;
    tuneOptions.runTimeout = runTimeout;
    tuneOptions.target = compileOptions.target;
    tuneOptions.progressBar = llvm::sys::Process::StandardErrIsDisplayed();
    tuneOptions.workerExecutable = llvm::sys::fs::getMainExecutable(
        argv[0], reinterpret_cast<void *>(&parseFaults));
  }
  std::unique_ptr<llvm::MemoryBuffer> scheduleLibrary;
  if (!schedulesPath.empty()) {
    if (tuneFlag || noSchedule || kbPath.getNumOccurrences() ||
        emitKind != EmitKind::Engine) {
      llvm::errs() << "int21-compile: error: --schedules builds an engine "
                      "from a library: it excludes --tune, --kb and "
                      "--no-schedule\n";
      return 1;
    }
    auto buffer = llvm::MemoryBuffer::getFile(schedulesPath);
    if (!buffer) {
      llvm::errs() << "int21-compile: error: cannot read the schedule "
                      "library '"
                   << schedulesPath << "': " << buffer.getError().message()
                   << "\n";
      return 1;
    }
    scheduleLibrary = std::move(*buffer);
  }
  if (noKB && kbPath.getNumOccurrences()) {
    llvm::errs() << "int21-compile: error: --kb and --no-kb exclude each "
                    "other\n";
    return 1;
  }
  // The knowledge base: opened (created) for --tune; otherwise read when it
  // exists, for engines built from a model with the default schedules.
  std::unique_ptr<::int21::search::KnowledgeBase> kb;
  bool applyKB = !tuneFlag && !scheduleLibrary &&
                 emitKind == EmitKind::Engine && !noSchedule &&
                 !strictSchedules &&
                 !gpuTarget &&
                 !StringRef(inputFile).ends_with(".mlir");
  if (!noKB && (tuneFlag || applyKB)) {
    auto opened = ::int21::search::KnowledgeBase::openForCompile(kbPath,
                                                                 tuneFlag);
    if (!opened) {
      llvm::errs() << "int21-compile: error: "
                   << llvm::toString(opened.takeError()) << "\n";
      return 1;
    }
    kb = std::move(*opened);
  }
  if (compiles && !gpuTarget) {
    std::string error;
    if (failed(::int21::resolveCPUTarget(compileOptions.target, error))) {
      llvm::errs() << "int21-compile: error: --target: " << error << "\n";
      return 1;
    }
    if (splitInputFile) {
      llvm::errs() << "int21-compile: error: --split-input-file only works "
                      "with --emit=int21 or --emit=linalg\n";
      return 1;
    }
  }
  if (kb && tuneFlag) {
    std::string error;
    tuneOptions.knowledgeBase = kb.get();
    tuneOptions.kbTarget =
        *::int21::resolveCPUTarget(compileOptions.target, error);
  }

  DialectRegistry registry;
  ::int21::registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadDialect<mlir::int21::Int21Dialect, func::FuncDialect>();
  bool hadError = false;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    hadError = true;
    // One line per problem: the diagnostic, without its notes.
    llvm::errs() << "int21-compile: error: " << ::int21::formatDiagnostic(diag)
                 << "\n";
    return success();
  });

  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTimer = timing.getRootScope();

  mlir::int21::OnnxImportOptions options;
  // Printing the int21 module needs the weights' names, not their bytes.
  options.weightData = printWeights || compiles;
  for (const std::string &spec : inputShapes) {
    std::string error;
    auto parsed = mlir::int21::parseInputShapeSpec(spec, error);
    if (failed(parsed)) {
      llvm::errs() << "int21-compile: error: --input-shape: " << error << "\n";
      return 1;
    }
    options.inputShapes[parsed->first] = parsed->second;
  }
  for (const std::string &spec : frozenInputs) {
    auto [name, file] = StringRef(spec).split('=');
    if (name.empty() || file.empty()) {
      llvm::errs() << "int21-compile: error: --freeze-input: expected "
                   << "NAME=FILE, got '" << spec << "'\n";
      return 1;
    }
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      llvm::errs() << "int21-compile: error: --freeze-input: cannot read '"
                   << file << "': " << buffer.getError().message() << "\n";
      return 1;
    }
    options.frozenInputs[name] = (*buffer)->getBuffer().str();
  }

  auto input = llvm::MemoryBuffer::getFileOrSTDIN(
      inputFile, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!input) {
    llvm::errs() << "int21-compile: error: cannot read '" << inputFile
                 << "': " << input.getError().message() << "\n";
    return 1;
  }
  bool isText = StringRef(inputFile).ends_with(".onnxtext");
  bool isMLIR = StringRef(inputFile).ends_with(".mlir");
  SmallVector<StringRef> chunks;
  if (splitInputFile && isText) {
    StringRef rest = (*input)->getBuffer();
    size_t start = 0, pos = 0;
    while (pos < rest.size()) {
      size_t end = rest.find('\n', pos);
      if (end == StringRef::npos)
        end = rest.size();
      if (rest.slice(pos, end).trim() == "# -----") {
        chunks.push_back(rest.slice(start, pos));
        start = end;
      }
      pos = end + 1;
    }
    chunks.push_back(rest.drop_front(std::min(start, rest.size())));
  } else {
    chunks.push_back((*input)->getBuffer());
  }

  std::string errorMessage;
  std::unique_ptr<OutputFile> output =
      OutputFile::open(outputFile, errorMessage);
  if (!output) {
    llvm::errs() << "int21-compile: error: " << errorMessage << "\n";
    return 1;
  }
  OpPrintingFlags flags;

  bool failedAny = false;
  for (auto [i, chunk] : llvm::enumerate(chunks)) {
    if (i > 0)
      output->os() << "// -----\n";
    TimingScope importTimer = rootTimer.nest(StringRef("import"));
    options.timing = &importTimer;
    // An .mlir input is an int21 module, or one already lowered to linalg
    // (a kernel the search extracted, say).
    FailureOr<OwningOpRef<ModuleOp>> module = failure();
    if (isMLIR) {
      ParserConfig config(&context);
      if (OwningOpRef<ModuleOp> parsed =
              parseSourceString<ModuleOp>(chunk, config, inputFile))
        module = std::move(parsed);
    } else {
      module = mlir::int21::importOnnxModel(
          context, llvm::MemoryBufferRef(chunk, inputFile), inputFile, isText,
          options);
    }
    importTimer.stop();
    if (failed(module)) {
      if (!hadError)
        llvm::errs() << "int21-compile: error: " << inputFile
                     << ": import failed\n";
      failedAny = true;
      continue;
    }
    if (!injectFault.empty())
      if (llvm::Error error = ::int21::search::injectFault(**module, injectFault)) {
        llvm::errs() << "int21-compile: error: --inject-fault: "
                     << llvm::toString(std::move(error)) << "\n";
        failedAny = true;
        continue;
      }
    ::int21::search::TuneResult tuned;
    if (scheduleLibrary) {
      llvm::Expected<unsigned> scheduled =
          [&]() -> llvm::Expected<unsigned> {
        if (llvm::Error error = ::int21::search::lowerForScheduling(**module))
          return std::move(error);
        return ::int21::search::applyLibrary(
            **module, scheduleLibrary->getBuffer(), schedulesPath);
      }();
      if (!scheduled) {
        if (!hadError)
          llvm::errs() << "int21-compile: error: "
                       << llvm::toString(scheduled.takeError()) << "\n";
        else
          llvm::consumeError(scheduled.takeError());
        failedAny = true;
        continue;
      }
      llvm::errs() << "int21-compile: " << *scheduled
                   << " fusion groups scheduled from the library '"
                   << schedulesPath << "'\n";
    }
    if (kb && !tuneFlag) {
      std::string error;
      llvm::Expected<::int21::search::KnowledgeApplied> applied =
          ::int21::search::applyKnowledge(
          **module, *kb,
          *::int21::resolveCPUTarget(compileOptions.target, error),
          tuneThreads);
      if (!applied) {
        if (!hadError)
          llvm::errs() << "int21-compile: error: "
                       << llvm::toString(applied.takeError()) << "\n";
        else
          llvm::consumeError(applied.takeError());
        failedAny = true;
        continue;
      }
      // Asked for by name: say what it gave.
      if (kbPath.getNumOccurrences())
        llvm::errs() << "int21-compile: " << applied->scheduled << " of "
                     << applied->kernels
                     << " kernels scheduled from the knowledge base '"
                     << kb->path() << "' (records timed on "
                     << ::int21::search::threadsText(applied->threads)
                     << ")\n";
    }
    if (tuneFlag) {
      llvm::Expected<::int21::search::TuneResult> result =
          ::int21::search::tuneAndApply(**module, tuneOptions, llvm::errs());
      if (!result) {
        if (int signal = ::int21::search::searchInterruption()) {
          // Stopped by Ctrl-C (or SIGTERM, SIGHUP): say so, then end as the
          // signal would have ended us (the old engine is left as it was).
          llvm::consumeError(result.takeError());
          llvm::errs() << "\nint21-compile: --tune: interrupted by "
                       << strsignal(signal)
                       << "; the search stopped, the knowledge base keeps "
                          "what it had stored\n";
          llvm::errs().flush();
          output.reset(); // Discards the temporary output file.
          std::signal(signal, SIG_DFL);
          std::raise(signal);
          return 128 + signal;
        }
        if (!hadError)
          llvm::errs() << "int21-compile: error: --tune: "
                       << llvm::toString(result.takeError()) << "\n";
        else
          llvm::consumeError(result.takeError());
        failedAny = true;
        continue;
      }
      tuned = std::move(*result);
    }
    if (compiles && gpuTarget) {
      compileOptions.timing = &rootTimer;
      if (emitKind == EmitKind::Engine) {
        if (failed(::int21::compileToGpuEngine(**module, compileOptions,
                                               output->os())))
          failedAny = true;
        continue;
      }
      if (failed(::int21::lowerToGPUHostForm(**module, compileOptions))) {
        failedAny = true;
        continue;
      }
      if (emitKind == EmitKind::GPU) {
        (**module)->print(output->os(), flags);
        output->os() << "\n";
        continue;
      }
      FailureOr<std::string> ptx =
          ::int21::lowerKernelsToPTX(**module, compileOptions.target);
      if (failed(ptx)) {
        failedAny = true;
        continue;
      }
      if (emitKind == EmitKind::PTX) {
        output->os() << *ptx;
        continue;
      }
      llvm::Expected<::int21::PTXAssembly> assembled =
          ::int21::assemblePTX(*ptx, compileOptions.target);
      if (!assembled) {
        llvm::errs() << "int21-compile: error: "
                     << llvm::toString(assembled.takeError()) << "\n";
        failedAny = true;
        continue;
      }
      for (const ::int21::KernelResources &kernel : assembled->kernels)
        output->os() << kernel.name << " registers=" << kernel.registers
                     << " shared=" << kernel.sharedBytes
                     << " spill_stores=" << kernel.spillStores
                     << " spill_loads=" << kernel.spillLoads
                     << " stack=" << kernel.stackBytes << "\n";
      continue;
    }
    if (compiles) {
      compileOptions.timing = &rootTimer;
      if (emitKind == EmitKind::Engine) {
        if (failed(::int21::compileToEngine(**module, compileOptions,
                                          output->os()))) {
          failedAny = true;
          continue;
        }
        if (tuneFlag) {
          // The last line: what the search bought (on stderr when the
          // engine itself goes to stdout).
          llvm::raw_ostream &os =
              outputFile == "-" ? llvm::errs() : llvm::outs();
          os << ::int21::search::summarizeTuning(tuned) << "\n";
        }
        continue;
      }
      std::string error;
      FailureOr<::int21::runtime::EngineMetadata> meta = ::int21::describeEntry(**module);
      if (failed(meta) || failed(::int21::lowerToLLVMDialect(**module,
                                                            compileOptions))) {
        failedAny = true;
        continue;
      }
      meta->target = *::int21::resolveCPUTarget(compileOptions.target, error);
      llvm::LLVMContext llvmContext;
      std::string weights;
      std::unique_ptr<llvm::Module> llvmModule = ::int21::translateToLLVMIR(
          **module, llvmContext, compileOptions, *meta, weights);
      if (!llvmModule) {
        failedAny = true;
        continue;
      }
      llvmModule->print(output->os(), nullptr);
      continue;
    }
    if (emitKind == EmitKind::Linalg) {
      TimingScope lowerTimer = rootTimer.nest(StringRef("lower to linalg"));
      PassManager pm(&context);
      mlir::int21::buildInt21ToLinalgPipeline(pm);
      if (failed(pm.run(**module))) {
        failedAny = true;
        continue;
      }
    }
    TimingScope printTimer = rootTimer.nest(StringRef("print"));
    (**module)->print(output->os(), flags);
    output->os() << "\n";
  }
  // A failed compilation leaves no engine behind.
  if (!failedAny || !compiles) {
    if (!output->keep(errorMessage)) {
      llvm::errs() << "int21-compile: error: " << errorMessage << "\n";
      return 1;
    }
  }
  return failedAny ? 1 : 0;
}

//===- int21-compile.cpp - ONNX model -> int21, linalg, LLVM IR or engine ---===//

#include "int21/AgentSearch/Agent.h"
#include "int21/AgentSearch/Tuner.h"
#include "int21/AgentSearch/Worker.h"
#include "int21/Compiler/Session.h"
#include "int21/Import/OnnxImporter.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
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
/// Where the output goes: stdout for "-", the path itself when it is a
/// device or a pipe, else a temporary file next to the named one, renamed
/// over it once the output is complete. A compile that
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
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(path, status) &&
        llvm::sys::fs::exists(status) &&
        !llvm::sys::fs::is_regular_file(status)) {
      // A device or a pipe (/dev/null, say): written into, never renamed
      // over or removed.
      std::error_code ec;
      out->stream = std::make_unique<llvm::raw_fd_ostream>(
          path, ec, llvm::sys::fs::OF_None);
      if (ec) {
        error = "cannot write '" + path.str() + "': " + ec.message();
        return nullptr;
      }
      return out;
    }
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
    if (!ec && temp)
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
  // A search's child process: the same binary, one job of a request.
  if (argc == 2)
    if (std::optional<StringRef> request =
            ::int21::search::workerRequestArgument(argv[1]))
      return ::int21::runSearchWorker(*request);

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
  cl::list<std::string> shapeProfiles(
      "shape-profile",
      cl::desc("The shapes a dynamic input may take at run time, and the one "
               "to optimise for: code specialised for it is carried besides "
               "the generic code, e.g. x=1x3x64x64:1x3x224x224:8x3x512x512 "
               "(repeatable, one per input)"),
      cl::value_desc("NAME=MIN:OPT:MAX"), cl::cat(category));
  cl::list<std::string> shapeBuckets(
      "shape-bucket",
      cl::desc("More input shapes to carry specialised code for: a shape for "
               "every dynamic input (repeatable, one per bucket)"),
      cl::value_desc("NAME=DIMS[,NAME=DIMS...]"), cl::cat(category));
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
  // The search's test hook: not for users.
  cl::opt<std::string> tuneInject(
      "tune-inject", cl::desc("Inject faults into trials: ID:KIND,..."),
      cl::init(""), cl::Hidden);

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
    for (const auto &[op, opset] : int21::supportedOnnxOps())
      llvm::outs() << op << " " << opset << "\n";
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "int21-compile: error: no input model given (see --help)\n";
    return 1;
  }

  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "int21-compile: error: " << message << "\n";
    return 1;
  };
  EmitKind emitKind =
      emit.getNumOccurrences() ? emit.getValue()
                               : (target.empty() ? EmitKind::Int21
                                                 : EmitKind::Engine);
  // The target, resolved once.
  llvm::Expected<::int21::Target> resolved =
      ::int21::Target::parse(target.empty() ? "cpu" : target.getValue());
  if (!resolved)
    return fail("--target: " + llvm::toString(resolved.takeError()));
  bool gpuTarget = resolved->isGPU();
  bool gpuEmit = emitKind == EmitKind::GPU || emitKind == EmitKind::PTX ||
                 emitKind == EmitKind::Resources;
  if (gpuEmit && !gpuTarget)
    return fail("--emit=gpu, ptx and resources need a GPU target "
                "(--target=sm_80 or sm_90)");
  if (gpuTarget && tuneFlag)
    return fail("--tune searches CPU schedules only (--target=cpu)");
  if (gpuTarget && emitKind == EmitKind::LLVM)
    return fail("--emit=llvm needs a CPU target; for " + resolved->name() +
                " use --emit=gpu, ptx or resources");
  std::optional<::int21::Target> gpuSchedulesTarget;
  if (!gpuSchedules.empty()) {
    if (gpuTarget)
      return fail("--gpu-schedules: only with a CPU target");
    llvm::Expected<::int21::Target> chip =
        ::int21::Target::parseGPU(gpuSchedules);
    if (!chip)
      return fail("--gpu-schedules: " + llvm::toString(chip.takeError()));
    gpuSchedulesTarget = *chip;
  }
  bool compiles = emitKind == EmitKind::LLVM || emitKind == EmitKind::Engine ||
                  gpuEmit;
  if (compiles && !gpuTarget && splitInputFile)
    return fail("--split-input-file only works with --emit=int21 or "
                "--emit=linalg");
  if (noKB && kbPath.getNumOccurrences())
    return fail("--kb and --no-kb exclude each other");
  if (!schedulesPath.empty() &&
      (tuneFlag || noSchedule || kbPath.getNumOccurrences() ||
       emitKind != EmitKind::Engine))
    return fail("--schedules builds an engine from a library: it excludes "
                "--tune, --kb and --no-schedule");

  ::int21::SessionOptions session;
  ::int21::CompileOptions &codegen = session.codegen;
  codegen.target = *resolved;
  codegen.optLevel = std::min(3u, optLevel.getValue());
  codegen.objectCache = !noObjectCache;
  codegen.codegenThreads = codegenThreads;
  codegen.schedule = !noSchedule;
  codegen.knobs = scheduleKnobs;
  codegen.gpuSchedules = gpuSchedulesTarget;
  if (tuneFlag) {
    if (emitKind != EmitKind::Engine)
      return fail("--tune builds an engine: give --target=cpu");
    if (noSchedule)
      return fail("--tune and --no-schedule exclude each other");
    ::int21::search::TuneOptions &tune = session.tune.emplace();
    if (!parseFaults(tuneInject, tune.faults))
      return fail("--tune-inject: expected ID:KIND,...");
    tune.budget = budget;
    tune.maxMerges = maxMerges;
    tune.mergeMargin = mergeMargin;
    tune.seconds = tuneTime;
    tune.seed = seed;
    tune.jobs = jobs;
    tune.threads = tuneThreads;
    tune.measureSeconds = measureSeconds;
    tune.pairedTiming = pairedTiming;
    tune.confirmWinners = confirmWinners;
    tune.agents.assign(agentNames.begin(), agentNames.end());
    tune.agentCommands.assign(agentCommands.begin(), agentCommands.end());
    tune.reportDir = reportDir;
    tune.logPath = tuneLog;
    tune.keepWorkDir = keepTuneDir;
    tune.compileTimeout = compileTimeout;
    tune.runTimeout = runTimeout;
    tune.progressBar = llvm::sys::Process::StandardErrIsDisplayed();
    tune.workerExecutable = llvm::sys::fs::getMainExecutable(
        argv[0], reinterpret_cast<void *>(&parseFaults));
    session.progress = &llvm::errs();
  }
  session.scheduleLibraryPath = schedulesPath;
  // The knowledge base applies to engines only (a search opens it too).
  session.useKnowledgeBase = !noKB && emitKind == EmitKind::Engine;
  session.knowledgeBasePath = kbPath;
  session.threads = tuneThreads;
  // Printing the int21 module needs the weights' names, not their bytes.
  session.weightData = printWeights || compiles;
  for (const std::string &spec : inputShapes) {
    std::string error;
    auto parsed = int21::parseInputShapeSpec(spec, error);
    if (failed(parsed))
      return fail("--input-shape: " + error);
    session.inputShapes[parsed->first].assign(parsed->second.begin(),
                                              parsed->second.end());
  }
  for (const std::string &spec : shapeProfiles)
    if (llvm::Error error = ::int21::parseShapeProfile(spec, session))
      return fail(llvm::toString(std::move(error)));
  for (const std::string &spec : shapeBuckets)
    if (llvm::Error error = ::int21::parseShapeBucket(spec, session))
      return fail(llvm::toString(std::move(error)));
  if ((!shapeProfiles.empty() || !shapeBuckets.empty()) &&
      emitKind != EmitKind::Engine)
    return fail("--shape-profile and --shape-bucket build an engine: give "
                "--target=cpu, without --emit");
  for (const std::string &spec : frozenInputs) {
    auto [name, file] = StringRef(spec).split('=');
    if (name.empty() || file.empty())
      return fail("--freeze-input: expected NAME=FILE, got '" + spec + "'");
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return fail("--freeze-input: cannot read '" + file +
                  "': " + buffer.getError().message());
    session.frozenInputs[name.str()] = (*buffer)->getBuffer().str();
  }
  // One line per problem, as it happens.
  session.onError = [](const std::string &message) {
    llvm::errs() << "int21-compile: error: " << message << "\n";
  };
  llvm::Expected<std::unique_ptr<::int21::CompileSession>> created =
      ::int21::CompileSession::create(std::move(session));
  if (!created)
    return fail(llvm::toString(created.takeError()));
  ::int21::CompileSession &compiler = **created;

  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTimer = timing.getRootScope();
  compiler.setTiming(&rootTimer);

  auto input = llvm::MemoryBuffer::getFileOrSTDIN(
      inputFile, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!input)
    return fail("cannot read '" + inputFile +
                "': " + input.getError().message());
  ::int21::InputFormat format = ::int21::inputFormatOf(inputFile);
  SmallVector<StringRef> chunks;
  if (splitInputFile && format == ::int21::InputFormat::OnnxText) {
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
  if (!output)
    return fail(errorMessage);
  OpPrintingFlags flags;

  bool failedAny = false;
  for (auto [i, chunk] : llvm::enumerate(chunks)) {
    if (i > 0)
      output->os() << "// -----\n";
    FailureOr<OwningOpRef<ModuleOp>> imported = compiler.importModel(
        llvm::MemoryBufferRef(chunk, inputFile), format);
    if (failed(imported)) {
      failedAny = true;
      continue;
    }
    ModuleOp module = **imported;
    if (emitKind == EmitKind::Int21 || emitKind == EmitKind::Linalg) {
      if (emitKind == EmitKind::Linalg && failed(compiler.lowerToLinalg(module))) {
        failedAny = true;
        continue;
      }
      TimingScope printTimer = rootTimer.nest(StringRef("print"));
      module->print(output->os(), flags);
      output->os() << "\n";
      continue;
    }
    FailureOr<::int21::ScheduleSummary> scheduled =
        compiler.schedule(module, format);
    if (failed(scheduled)) {
      if (int signal = ::int21::search::searchInterruption()) {
        // Stopped by Ctrl-C (or SIGTERM, SIGHUP): say so, then end as the
        // signal would have ended us (the old engine is left as it was).
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
      failedAny = true;
      continue;
    }
    // A search times kernels of static shapes: the generic code of a
    // dynamic model keeps its default schedules. Say so, and how to tune.
    if (scheduled->searchSkippedDynamic && shapeProfiles.empty() &&
        shapeBuckets.empty())
      llvm::errs() << "int21-compile: --tune: the model has dynamic extents: "
                      "its generic code keeps the default schedules; give "
                      "--shape-profile or --shape-bucket to tune code "
                      "specialised for shapes\n";
    using Source = ::int21::ScheduleSummary::Source;
    if (scheduled->source == Source::Library)
      llvm::errs() << "int21-compile: " << scheduled->groups
                   << " fusion groups scheduled from the library '"
                   << schedulesPath << "'\n";
    // Asked for by name: say what it gave.
    if (scheduled->source == Source::KnowledgeBase &&
        kbPath.getNumOccurrences())
      llvm::errs() << "int21-compile: " << scheduled->scheduled << " of "
                   << scheduled->kernels
                   << " kernels scheduled from the knowledge base '"
                   << compiler.knowledgeBase()->path() << "' (records timed on "
                   << ::int21::search::threadsText(scheduled->threads)
                   << ")\n";
    switch (emitKind) {
    case EmitKind::Engine: {
      std::vector<::int21::ScheduleSummary> specialized;
      if (failed(compiler.emitEngine(
              module, output->os(), llvm::MemoryBufferRef(chunk, inputFile),
              format, &specialized))) {
        failedAny = true;
        continue;
      }
      // The last lines: what the search bought (on stderr when the engine
      // itself goes to stdout), for the generic code and each
      // specialisation.
      llvm::raw_ostream &os = outputFile == "-" ? llvm::errs() : llvm::outs();
      if (scheduled->tuned)
        os << ::int21::search::summarizeTuning(*scheduled->tuned) << "\n";
      for (const ::int21::ScheduleSummary &special : specialized)
        if (special.tuned)
          os << ::int21::search::summarizeTuning(*special.tuned) << "\n";
      break;
    }
    case EmitKind::LLVM:
      failedAny |= failed(compiler.emitLLVMIR(module, output->os()));
      break;
    case EmitKind::GPU:
      if (failed(compiler.lowerToGPUHost(module))) {
        failedAny = true;
        continue;
      }
      module->print(output->os(), flags);
      output->os() << "\n";
      break;
    case EmitKind::PTX:
    case EmitKind::Resources: {
      FailureOr<std::string> ptx = failure();
      if (succeeded(compiler.lowerToGPUHost(module)))
        ptx = compiler.emitPTX(module);
      if (failed(ptx)) {
        failedAny = true;
        continue;
      }
      if (emitKind == EmitKind::PTX) {
        output->os() << *ptx;
        continue;
      }
      FailureOr<::int21::PTXAssembly> assembled = compiler.assemble(*ptx);
      if (failed(assembled)) {
        failedAny = true;
        continue;
      }
      for (const ::int21::KernelResources &kernel : assembled->kernels)
        output->os() << kernel.name << " registers=" << kernel.registers
                     << " shared=" << kernel.sharedBytes
                     << " spill_stores=" << kernel.spillStores
                     << " spill_loads=" << kernel.spillLoads
                     << " stack=" << kernel.stackBytes << "\n";
      break;
    }
    case EmitKind::Int21:
    case EmitKind::Linalg:
      break;
    }
  }
  // A failed compilation leaves no engine behind.
  if (!failedAny || !compiles) {
    if (!output->keep(errorMessage))
      return fail(errorMessage);
  }
  return failedAny ? 1 : 0;
}

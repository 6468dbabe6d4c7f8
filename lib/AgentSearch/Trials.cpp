//===- Trials.cpp - candidates compiled and measured in child processes ---===//

#include "Trials.h"

#include "int21/AgentSearch/Measure.h"
#include "int21/AgentSearch/Worker.h"
#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Runtime/Engine.h"
#include "int21/Support/JSON.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <atomic>
#include <cstring>
#include <thread>

using namespace int21::search;
using namespace mlir;
namespace json = llvm::json;

Confirmation(::int21::search::confirmWinner)(const Trial &again,
                                             double defaultMs) {
  Confirmation verdict;
  if (again.outcome != Outcome::Ok) {
    verdict.why =
        (outcomeName(again.outcome) + " when run again: " + again.error).str();
    return verdict;
  }
  verdict.ratio = again.time.medianMs / defaultMs;
  verdict.kept = verdict.ratio < 1;
  if (!verdict.kept)
    verdict.why = llvm::formatv("timed again, it took {0:F2}x the default's "
                                "time",
                                verdict.ratio)
                      .str();
  return verdict;
}

std::string(::int21::search::firstErrorLine)(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return "";
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines)
    if (line.contains("error"))
      return line.trim().str();
  return lines.empty() ? "" : lines.back().trim().str();
}

unsigned(::int21::search::runThreads)(unsigned threads) {
  return threads ? threads : ::int21::runtime::Engine::defaultThreads();
}

std::string(::int21::search::signalName)(int signal) {
  const char *name = strsignal(signal);
  return "signal " + std::to_string(signal) +
         (name ? std::string(" (") + name + ")" : std::string());
}

static std::string signalText(int signal) {
  return "killed by " + signalName(signal);
}

TrialRunner::~TrialRunner() {
  if (!options.keepWorkDir && !directory.empty())
    llvm::sys::fs::remove_directories(directory);
}

llvm::Error TrialRunner::setUp() {
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("int21-tune", directory))
    return llvm::createStringError("cannot create a working directory: " +
                                   ec.message());
  parallel = options.jobs ? options.jobs
                          : std::max(1u, std::thread::hardware_concurrency());
  const std::vector<Kernel> &kernels = board.kernels();
  referenceEngines.resize(kernels.size());
  ParserConfig config(module.getContext());
  for (const Kernel &kernel : kernels) {
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(kernel.ir, config, "kernel");
    if (!parsed)
      return llvm::createStringError("cannot parse the kernel module of '" +
                                     kernel.name + "'");
    kernelModules.push_back(std::move(parsed));
  }
  return llvm::Error::success();
}

std::string TrialRunner::faultAt(unsigned id) const {
  auto it = options.faults.find(id);
  return it == options.faults.end() ? "" : it->second;
}

llvm::Error TrialRunner::write(Work &work) {
  unsigned id = nextFile++;
  work.mlirPath = (directory + "/candidate-" + llvm::Twine(id) + ".mlir").str();
  work.enginePath =
      (directory + "/candidate-" + llvm::Twine(id) + ".int21").str();
  ModuleOp kernelModule = *kernelModules[work.candidate.kernel];
  int21::FusionGroupOp group;
  kernelModule.walk([&](int21::FusionGroupOp op) { group = op; });
  if (!work.isDefault)
    group.setScheduleAttr(cast<int21::ScheduleAttr>(
        toScheduleAttr(module.getContext(), work.candidate.schedule)));
  std::error_code ec;
  llvm::raw_fd_ostream os(work.mlirPath, ec);
  if (!ec)
    kernelModule->print(os);
  group.removeScheduleAttr();
  if (ec)
    return llvm::createStringError("cannot write '" + work.mlirPath +
                                   "': " + ec.message());
  return llvm::Error::success();
}

void TrialRunner::compileAll(std::vector<Work> &batch) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < batch.size(); i = next++) {
      Work &work = batch[i];
      if (work.rejected)
        continue;
      WorkerRequest request;
      request.job = WorkerRequest::Job::Compile;
      request.kernelPath = work.mlirPath;
      request.enginePath = work.enginePath;
      request.target = options.target.name();
      request.schedules = work.schedules;
      if (!llvm::StringRef(work.fault).starts_with("run-"))
        request.fault = work.fault;
      work.compileLog = work.enginePath + ".log";
      std::string requestPath = work.enginePath + ".compile.json";
      if (llvm::Error error = writeWorkerRequest(request, requestPath)) {
        work.compile = ProcessResult();
        work.compile.failedToStart = true;
        work.compile.error = llvm::toString(std::move(error));
        continue;
      }
      work.compile = runProcess(
          {options.workerExecutable, "--tune-worker=" + requestPath}, "",
          work.compileLog, options.compileTimeout);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::min<size_t>(parallel, batch.size()); ++t)
    threads.emplace_back(worker);
  worker();
  for (std::thread &thread : threads)
    thread.join();
}

Trial TrialRunner::measure(Work &work) {
  Trial trial;
  trial.candidate = work.candidate;
  trial.hash = work.hash;
  trial.isDefault = work.isDefault;
  trial.compileSeconds = work.compile.seconds;
  if (work.rejected) {
    trial.outcome = *work.rejected;
    trial.error = work.rejection;
    return trial;
  }
  const ProcessResult &compiled = work.compile;
  if (compiled.failedToStart || compiled.exitCode > 0) {
    trial.outcome = Outcome::CompileError;
    trial.error = compiled.failedToStart ? compiled.error
                                         : firstErrorLine(work.compileLog);
    return trial;
  }
  if (compiled.timedOut || compiled.signal) {
    trial.outcome =
        compiled.timedOut ? Outcome::CompileTimeout : Outcome::CompileCrash;
    trial.error = compiled.timedOut
                      ? "no engine after " +
                            std::to_string(int(options.compileTimeout)) + " s"
                      : signalText(compiled.signal);
    return trial;
  }

  unsigned kernel = work.candidate.kernel;
  std::string out = work.enginePath + ".json", err = work.enginePath + ".err";
  WorkerRequest request;
  request.job = WorkerRequest::Job::Measure;
  request.referencePath = referenceEngines[kernel];
  request.candidatePath = work.enginePath;
  request.measure.seed = options.seed * 1000003 + board.trials().size();
  request.measure.threads = std::max(1u, options.threads);
  request.measure.seconds = options.measureSeconds;
  // A candidate four times slower than the best cannot win: no need to
  // time it precisely.
  if (const Trial *best = board.best(kernel); best && !work.isDefault)
    request.measure.giveUpMs = 4 * best->time.medianMs;
  // Once the default is the reference, it is timed beside every candidate:
  // their ratio survives a slow or fast spell of the machine.
  const Trial *base = board.defaultTrial(kernel);
  bool paired = !work.isDefault && base && base->outcome == Outcome::Ok &&
                (options.pairedTiming || work.confirm);
  request.measure.paired = paired;
  if (llvm::StringRef(work.fault).starts_with("run-"))
    request.fault = work.fault;
  std::string requestPath = work.enginePath + ".measure.json";
  if (llvm::Error error = writeWorkerRequest(request, requestPath)) {
    trial.outcome = Outcome::RunError;
    trial.error = llvm::toString(std::move(error));
    return trial;
  }
  ProcessResult ran =
      runProcess({options.workerExecutable, "--tune-worker=" + requestPath},
                 out, err, options.runTimeout);
  if (ran.timedOut || ran.signal) {
    trial.outcome = ran.timedOut ? Outcome::RunTimeout : Outcome::RunCrash;
    trial.error = ran.timedOut
                      ? "no result after " +
                            std::to_string(int(options.runTimeout)) + " s"
                      : signalText(ran.signal);
    return trial;
  }
  if (!ran.succeeded()) {
    trial.outcome = Outcome::RunError;
    trial.error = ran.failedToStart ? ran.error : firstErrorLine(err);
    return trial;
  }
  auto text = llvm::MemoryBuffer::getFile(out);
  MeasureReport measured;
  llvm::Expected<json::Value> parsed =
      text ? int21::parseJSON((*text)->getBuffer())
           : llvm::Expected<json::Value>(
                 llvm::createStringError("no measurement written"));
  json::Path::Root root;
  if (!parsed || !fromJSON(*parsed, measured, root)) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    trial.outcome = Outcome::RunError;
    trial.error = "unreadable measurement";
    return trial;
  }
  trial.maxError = measured.maxError;
  if (!measured.correct) {
    trial.outcome = Outcome::Wrong;
    trial.error = measured.mismatch;
    return trial;
  }
  trial.outcome = Outcome::Ok;
  trial.time = measured.time;
  if (paired && measured.referenceMs > 0) {
    trial.measuredMs = measured.time.medianMs;
    trial.defaultNowMs = measured.referenceMs;
    double scale = base->time.medianMs / measured.referenceMs;
    trial.time.medianMs *= scale;
    trial.time.minMs *= scale;
    trial.time.maxMs *= scale;
  }
  return trial;
}

const Trial *Winners::keptBest(unsigned k) const {
  if (const Confirmation *confirmed = verdict(k); confirmed && !confirmed->kept)
    return board.defaultTrial(k);
  return board.best(k);
}

double Winners::keptMs(unsigned k) const {
  if (const Confirmation *confirmed = verdict(k); confirmed && confirmed->kept)
    return confirmed->ratio * board.defaultTrial(k)->time.medianMs;
  return keptBest(k)->time.medianMs;
}

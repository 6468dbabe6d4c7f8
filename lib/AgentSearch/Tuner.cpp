//===- Tuner.cpp - the coordinator of the schedule search -----------------===//

#include "int21/AgentSearch/Tuner.h"

#include "Process.h"
#include "int21/AgentSearch/Agent.h"
#include "int21/AgentSearch/Bandit.h"
#include "int21/AgentSearch/Measure.h"
#include "int21/Compiler/Compiler.h"

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Runtime/Engine.h"
#include "int21/Transforms/CPUSchedule.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <thread>

using namespace int21::search;
using namespace mlir;
namespace json = llvm::json;
using Clock = std::chrono::steady_clock;

Confirmation(::int21::search::confirmWinner)(const Trial &again,
                                            double defaultMs) {
  Confirmation verdict;
  if (again.outcome != Outcome::Ok) {
    verdict.why = (outcomeName(again.outcome) + " when run again: " +
                   again.error)
                      .str();
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

llvm::Error(::int21::search::injectFault)(ModuleOp module, llvm::StringRef kind) {
  if (kind == "crash") {
    std::raise(SIGSEGV);
    return llvm::createStringError("SIGSEGV did not end the process");
  }
  if (kind == "hang") {
    while (true)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (kind != "wrong")
    return llvm::createStringError("unknown fault '" + kind + "'");
  // The first computation of the first linalg.generic that computes; a
  // named op is generalized only when there is no generic (its body is
  // fixed), which templates that match named ops then no longer fit.
  IRRewriter rewriter(module.getContext());
  auto computes = [](linalg::LinalgOp op) {
    return !op.getBlock()->without_terminator().empty();
  };
  linalg::GenericOp generic;
  module.walk([&](linalg::GenericOp op) {
    if (!generic && computes(op))
      generic = op;
  });
  if (!generic) {
    linalg::LinalgOp named;
    module.walk([&](linalg::LinalgOp op) {
      if (!named && computes(op) && !isa<linalg::FillOp, linalg::CopyOp>(op))
        named = op;
    });
    if (!named)
      return llvm::createStringError("no linalg op to change");
    rewriter.setInsertionPoint(named);
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, named);
    if (failed(generalized))
      return llvm::createStringError("cannot generalize " +
                                     named->getName().getStringRef());
    generic = *generalized;
  }
  Operation *target = nullptr;
  generic.getBody()->walk([&](Operation *op) {
    if (!target && isa<arith::MulFOp, arith::MulIOp, arith::AddFOp,
                       arith::AddIOp, arith::MaximumFOp>(op))
      target = op;
  });
  if (!target)
    return llvm::createStringError("no arithmetic to change");
  rewriter.setInsertionPoint(target);
  Value lhs = target->getOperand(0), rhs = target->getOperand(1);
  Location loc = target->getLoc();
  Operation *replacement;
  if (isa<arith::MulFOp>(target))
    replacement = arith::AddFOp::create(rewriter, loc, lhs, rhs);
  else if (isa<arith::MulIOp>(target))
    replacement = arith::AddIOp::create(rewriter, loc, lhs, rhs);
  else if (isa<arith::AddFOp>(target))
    replacement = arith::SubFOp::create(rewriter, loc, lhs, rhs);
  else if (isa<arith::AddIOp>(target))
    replacement = arith::SubIOp::create(rewriter, loc, lhs, rhs);
  else
    replacement = arith::MinimumFOp::create(rewriter, loc, lhs, rhs);
  rewriter.replaceOp(target, replacement->getResults());
  return llvm::Error::success();
}

bool(::int21::search::isTrustedRecord)(const KnowledgeRecord &record,
                                       unsigned threads) {
  return record.compilerVersion == ::int21::compilerVersion() &&
         record.machine == KnowledgeBase::thisMachine() &&
         record.threads == threads;
}

llvm::Expected<std::optional<KnowledgeRecord>>(
    ::int21::search::findTrustedRecord)(
    const KnowledgeBase &kb, llvm::StringRef signature, llvm::StringRef target,
    unsigned threads, llvm::function_ref<bool(const KnowledgeRecord &)> fits) {
  llvm::Expected<std::vector<KnowledgeRecord>> found =
      kb.find(signature, target);
  if (!found)
    return found.takeError();
  for (KnowledgeRecord &record : *found)
    if (isTrustedRecord(record, threads) && (!fits || fits(record)))
      return std::optional<KnowledgeRecord>(std::move(record));
  return std::nullopt;
}

namespace {

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The first line of `path` that says "error", or its last line.
std::string firstErrorLine(llvm::StringRef path) {
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

/// The threads the engine runs on: `threads`, or an engine's default (0).
unsigned runThreads(unsigned threads) {
  return threads ? threads : ::int21::runtime::Engine::defaultThreads();
}

/// "signal 9 (Killed)".
std::string signalName(int signal) {
  const char *name = strsignal(signal);
  return "signal " + std::to_string(signal) +
         (name ? std::string(" (") + name + ")" : std::string());
}

std::string signalText(int signal) { return "killed by " + signalName(signal); }

/// The error a search stops with once a signal interrupted it: what a
/// child was doing then says nothing about its candidate.
llvm::Error stopIfInterrupted() {
  if (int signal = interruption())
    return llvm::createStringError("interrupted by " + signalName(signal));
  return llvm::Error::success();
}

/// A candidate on its way through compile and measurement.
struct Work {
  Candidate candidate;
  uint64_t hash = 0;
  bool isDefault = false;
  std::string fault;
  /// What the compile child gets beyond the input, target and output.
  std::vector<std::string> compileArgs;
  std::string mlirPath, enginePath;
  ProcessResult compile;
  std::string compileLog;
  /// A winner timed again after the search: always beside its default.
  bool confirm = false;
  /// Set when the candidate never reaches the compiler.
  std::optional<Outcome> rejected;
  std::string rejection;
};

/// Whether an agent that proposes merges is in the team.
bool proposesMerges(llvm::StringRef agent) {
  const BuiltinAgent *builtin = findBuiltinAgent(agent);
  return builtin && builtin->proposesMerges;
}
bool usesFusion(const TuneOptions &options) {
  if (options.agents.empty())
    return llvm::any_of(defaultTeam(false), proposesMerges);
  return llvm::any_of(options.agents, proposesMerges);
}

/// The kernels of `module` and, when the fusion agent is in the team, the
/// merged kernel of every fusion site whose parts are kernels (up to
/// options.maxMerges distinct ones), after them. `sites` gets the sites of
/// those merged kernels.
std::vector<Kernel> collectKernels(ModuleOp module, const TuneOptions &options,
                                   std::vector<SiteKey> &sites) {
  std::vector<Kernel> kernels = extractKernels(module);
  if (!usesFusion(options) || options.maxMerges == 0)
    return kernels;
  llvm::StringMap<unsigned> bySignature;
  for (auto [k, kernel] : llvm::enumerate(kernels))
    bySignature[kernel.signature] = k;
  llvm::DenseMap<Operation *, unsigned> position;
  module.walk([&](mlir::int21::FusionGroupOp group) {
    position.try_emplace(group, position.size());
  });
  unsigned merges = 0;
  for (const FusionSite &site : findFusionSites(module)) {
    std::string producerSignature = kernelSignature(site.producer);
    std::string consumerSignature = kernelSignature(site.consumer);
    auto producer = bySignature.find(producerSignature);
    auto consumer = bySignature.find(consumerSignature);
    if (producer == bySignature.end() || consumer == bySignature.end())
      continue;
    std::pair<unsigned, unsigned> parts = {producer->second, consumer->second};
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(module.getLoc());
    mlir::int21::FusionGroupOp merged = cloneMerged(site, *scratch);
    if (!merged)
      continue;
    std::string signature = kernelSignature(merged);
    if (auto it = bySignature.find(signature); it != bySignature.end()) {
      // The same merge at another site counts as one more instance; work
      // that is already a kernel of the model needs no merge to be tuned.
      Kernel &kernel = kernels[it->second];
      if (kernel.mergeOf != parts)
        continue;
      ++kernel.instances;
    } else {
      if (merges == options.maxMerges)
        continue;
      std::optional<Kernel> kernel = describeKernel(merged);
      if (!kernel)
        continue;
      // A merge that only the generic fallback (scalar loops) schedules
      // where a part had a vectorizing template loses by far (7-20x on the
      // shared models): not worth a trial.
      auto fallbackOnly = [](const Kernel &k) {
        return llvm::StringRef(k.choices.front().sequence)
            .starts_with("cpu.outer_forall_");
      };
      if (fallbackOnly(*kernel) && (!fallbackOnly(kernels[parts.first]) ||
                                    !fallbackOnly(kernels[parts.second])))
        continue;
      kernel->mergeOf = parts;
      kernel->name = "merge " + std::to_string(parts.first) + "+" +
                     std::to_string(parts.second) + ": " + kernel->name;
      bySignature[signature] = kernels.size();
      kernels.push_back(std::move(*kernel));
      ++merges;
    }
    sites.push_back({position.lookup(site.producer),
                     position.lookup(site.consumer), producerSignature,
                     consumerSignature, signature});
  }
  return kernels;
}

class Coordinator {
public:
  Coordinator(ModuleOp module, const TuneOptions &options,
              llvm::raw_ostream &progress)
      : module(module), options(options), progress(progress),
        board(collectKernels(module, options, sites)) {}

  llvm::Expected<TuneResult> run();

private:
  llvm::Error setUp();
  llvm::Error measureDefaults(std::vector<Work> defaults);
  llvm::Error tryMerge(unsigned kernel);
  void compileAll(std::vector<Work> &batch);
  Trial measure(Work &work);
  void record(Trial trial);
  std::optional<unsigned> pickKernel();
  std::vector<Work> proposeBatch(unsigned kernel, unsigned size);
  llvm::Error writeCandidate(Work &work);
  void report(unsigned kernel, bool force);
  /// Times each kernel's winner again (TuneOptions::confirmWinners).
  llvm::Error confirmWinners();
  TuneResult summarize();
  /// Stores kernel `k`'s best so far (as soon as it improves: a search
  /// killed midway keeps what it found), and at the end its losers.
  void storeRecord(unsigned k);
  /// Kernel `k`'s best trial, or its default's when the best, timed again,
  /// was not kept.
  const Trial *keptBest(unsigned k) const;
  /// keptBest's time: as timed again after the search when it was.
  double keptMs(unsigned k) const;
  /// The fault injected into trial `id` (TuneOptions::faults), or "".
  std::string faultAt(unsigned id) const {
    auto it = options.faults.find(id);
    return it == options.faults.end() ? "" : it->second;
  }
  void storeKnowledge(const TuneResult &result);
  void warnKnowledge(llvm::Error error);

  bool budgetLeft() const {
    if (budget && spent >= budget)
      return false;
    return !(options.seconds > 0 &&
             secondsSince(start) >= options.seconds);
  }

  ModuleOp module;
  const TuneOptions &options;
  llvm::raw_ostream &progress;
  /// The fusion sites of the model whose merged kernels are on the board.
  std::vector<SiteKey> sites;
  Blackboard board;
  Clock::time_point start = Clock::now();
  llvm::SmallString<128> workDir;
  std::vector<OwningOpRef<ModuleOp>> kernelModules;
  std::vector<std::string> referenceEngines;
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<ArmStats> agentStats;
  std::vector<bool> active;
  std::vector<double> roofline;
  std::unique_ptr<llvm::raw_fd_ostream> log;
  unsigned budget = 0;
  unsigned spent = 0;
  unsigned jobs = 1;
  unsigned nextFile = 0;
  /// The knowledge base's part: the target records name, each kernel's
  /// record made here by this compiler (used without a trial), and the
  /// schedules known to lose on it.
  std::string kbTarget;
  std::vector<std::optional<KnowledgeRecord>> reused;
  /// Each kernel's winner timed again after the search, when it was.
  std::vector<std::optional<Confirmation>> confirmations;
  std::vector<llvm::DenseSet<uint64_t>> knownLosers;
  bool kbWarned = false;
};

llvm::Error Coordinator::setUp() {
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("int21-tune", workDir))
    return llvm::createStringError("cannot create a working directory: " +
                                   ec.message());
  jobs = options.jobs ? options.jobs
                      : std::max(1u, std::thread::hardware_concurrency());
  const std::vector<Kernel> &kernels = board.kernels();
  budget = options.budget;
  // 20 trials per kernel of the model: the merged kernels the fusion agent
  // may propose spend the same budget, so it does not depend on the agents.
  if (!budget && options.seconds <= 0)
    budget = 20 * llvm::count_if(kernels, [](const Kernel &kernel) {
               return !kernel.mergeOf;
             });
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

  reused.resize(kernels.size());
  knownLosers.resize(kernels.size());
  std::vector<KnowledgeRecord> known;
  if (KnowledgeBase *kb = options.knowledgeBase) {
    kbTarget = options.kbTarget.empty() ? options.target : options.kbTarget;
    for (auto [k, kernel] : llvm::enumerate(kernels)) {
      // A record of a template the kernel no longer has is of no use.
      llvm::Expected<std::optional<KnowledgeRecord>> trusted =
          findTrustedRecord(*kb, kernel.signature, kbTarget, options.threads,
                            [&](const KnowledgeRecord &record) {
                              return kernel.findChoice(
                                         record.schedule.sequence) != nullptr;
                            });
      if (!trusted)
        return trusted.takeError();
      reused[k] = std::move(*trusted);
      llvm::Expected<std::vector<uint64_t>> losers =
          kb->losers(kernel.signature, kbTarget);
      if (!losers)
        return losers.takeError();
      knownLosers[k].insert(losers->begin(), losers->end());
    }
    llvm::Expected<std::vector<KnowledgeRecord>> all = kb->records(kbTarget);
    if (!all)
      return all.takeError();
    known = std::move(*all);
  }

  std::vector<std::string> names =
      options.agents.empty() ? defaultTeam(!known.empty()) : options.agents;
  // "none": only the external agents.
  if (names == std::vector<std::string>{"none"}) {
    names.clear();
    if (options.agentCommands.empty())
      return llvm::createStringError(
          "--agents=none leaves no agent: give --agent-cmd");
  }
  for (auto [i, name] : llvm::enumerate(names)) {
    const BuiltinAgent *builtin = findBuiltinAgent(name);
    if (!builtin)
      return llvm::createStringError("unknown agent '" + name +
                                     "' (built-in agents: " +
                                     builtinAgentNames() + ")");
    if (builtin->needsKnowledgeBase && !options.knowledgeBase)
      return llvm::createStringError("the " + name +
                                     " agent needs a knowledge base (--kb)");
    agents.push_back(builtin->create({options.seed + i, known}));
  }
  for (auto [i, command] : llvm::enumerate(options.agentCommands)) {
    llvm::Expected<std::unique_ptr<Agent>> agent =
        createExternalAgent(command, options.seed + 100 + i);
    if (!agent)
      return agent.takeError();
    agents.push_back(std::move(*agent));
  }
  agentStats.resize(agents.size());

  if (!options.logPath.empty()) {
    std::error_code ec;
    log = std::make_unique<llvm::raw_fd_ostream>(options.logPath, ec);
    if (ec)
      return llvm::createStringError("cannot write the tuning log '" +
                                     options.logPath + "': " + ec.message());
  }
  MachinePeaks peaks = measurePeaks(options.threads);
  for (const Kernel &kernel : kernels)
    roofline.push_back(rooflineMs(kernel, peaks));
  active.assign(kernels.size(), true);
  // What the knowledge base holds from here needs no trial.
  for (unsigned k = 0; k < kernels.size(); ++k)
    if (reused[k])
      active[k] = false;
  return llvm::Error::success();
}

llvm::Error Coordinator::measureDefaults(std::vector<Work> defaults) {
  std::vector<Work> both;
  for (Work &base : defaults) {
    unsigned k = base.candidate.kernel;
    Work reference;
    reference.candidate.kernel = k;
    reference.isDefault = true;
    if (llvm::Error error = writeCandidate(reference))
      return error;
    reference.enginePath += ".reference";
    reference.compileArgs = {"--no-schedule"};
    both.push_back(std::move(reference));
    base.hash = scheduleHash(board.kernels()[k].signature,
                             base.candidate.schedule);
    base.isDefault = true;
  }
  // Faults are injected by trial id: these trials are recorded in order.
  for (auto [i, base] : llvm::enumerate(defaults)) {
    base.fault = faultAt(board.trials().size() + i);
    if (llvm::Error error = writeCandidate(base))
      return error;
  }
  // References (the unscheduled lowering) and defaults compile together.
  size_t count = defaults.size();
  both.insert(both.end(), defaults.begin(), defaults.end());
  compileAll(both);
  for (size_t i = 0; i < count; ++i) {
    Work &reference = both[i];
    Work &base = both[count + i];
    unsigned k = base.candidate.kernel;
    referenceEngines[k] = reference.enginePath;
    if (!reference.compile.succeeded()) {
      base.rejected = Outcome::CompileError;
      base.rejection = "the reference lowering does not compile: " +
                       firstErrorLine(reference.compileLog);
    }
    Trial trial = measure(base);
    if (llvm::Error error = stopIfInterrupted())
      return error;
    // Once the default schedule agrees with the reference lowering, it is
    // the reference: it is faster, and candidates must match it.
    if (trial.outcome == Outcome::Ok)
      referenceEngines[k] = base.enginePath;
    record(std::move(trial));
    report(k, /*force=*/true);
  }
  return llvm::Error::success();
}

llvm::Error Coordinator::tryMerge(unsigned kernel) {
  std::vector<Work> proposals;
  for (std::unique_ptr<Agent> &agent : agents) {
    if (!proposesMerges(agent->name()))
      continue;
    for (Candidate &candidate : agent->propose(board, kernel, 1)) {
      Work work;
      candidate.kernel = kernel;
      work.candidate = std::move(candidate);
      proposals.push_back(std::move(work));
      break;
    }
    if (!proposals.empty())
      break;
  }
  if (proposals.empty()) {
    active[kernel] = false;
    return llvm::Error::success();
  }
  return measureDefaults(std::move(proposals));
}

llvm::Error Coordinator::writeCandidate(Work &work) {
  unsigned id = nextFile++;
  work.mlirPath = (workDir + "/candidate-" + llvm::Twine(id) + ".mlir").str();
  work.enginePath = (workDir + "/candidate-" + llvm::Twine(id) + ".int21").str();
  ModuleOp kernelModule = *kernelModules[work.candidate.kernel];
  mlir::int21::FusionGroupOp group;
  kernelModule.walk([&](mlir::int21::FusionGroupOp op) { group = op; });
  if (!work.isDefault)
    group.setScheduleAttr(cast<mlir::int21::ScheduleAttr>(
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

void Coordinator::compileAll(std::vector<Work> &batch) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < batch.size(); i = next++) {
      Work &work = batch[i];
      if (work.rejected)
        continue;
      std::vector<std::string> argv = {options.workerExecutable, work.mlirPath,
                                       "--target=" + options.target,
                                       "-o", work.enginePath, "--no-kb"};
      argv.insert(argv.end(), work.compileArgs.begin(), work.compileArgs.end());
      if (!work.fault.empty() && !llvm::StringRef(work.fault).starts_with("run-"))
        argv.push_back("--inject-fault=" + work.fault);
      work.compileLog = work.enginePath + ".log";
      work.compile = runProcess(argv, "", work.compileLog,
                                options.compileTimeout);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::min<size_t>(jobs, batch.size()); ++t)
    threads.emplace_back(worker);
  worker();
  for (std::thread &thread : threads)
    thread.join();
}

Trial Coordinator::measure(Work &work) {
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
  std::vector<std::string> argv = {
      options.workerExecutable,
      "--tune-worker=measure",
      "--reference=" + referenceEngines[kernel],
      "--candidate=" + work.enginePath,
      "--seed=" + std::to_string(options.seed * 1000003 + board.trials().size()),
      "--threads=" + std::to_string(options.threads),
      "--seconds=" + std::to_string(options.measureSeconds)};
  // A candidate four times slower than the best cannot win: no need to
  // time it precisely.
  if (const Trial *best = board.best(kernel); best && !work.isDefault)
    argv.push_back("--give-up-ms=" + std::to_string(4 * best->time.medianMs));
  // Once the default is the reference, it is timed beside every candidate:
  // their ratio survives a slow or fast spell of the machine.
  const Trial *base = board.defaultTrial(kernel);
  bool paired = !work.isDefault && base && base->outcome == Outcome::Ok &&
                (options.pairedTiming || work.confirm);
  if (paired)
    argv.push_back("--paired");
  if (llvm::StringRef(work.fault).starts_with("run-"))
    argv.push_back("--inject-fault=" + work.fault);
  ProcessResult ran = runProcess(argv, out, err, options.runTimeout);
  if (ran.timedOut || ran.signal) {
    trial.outcome = ran.timedOut ? Outcome::RunTimeout : Outcome::RunCrash;
    trial.error = ran.timedOut ? "no result after " +
                                     std::to_string(int(options.runTimeout)) +
                                     " s"
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
      text ? json::parse((*text)->getBuffer())
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

void Coordinator::record(Trial trial) {
  unsigned kernel = trial.candidate.kernel;
  const Trial *bestBefore = board.best(kernel);
  double before = bestBefore ? bestBefore->time.medianMs : 0;
  trial.at = secondsSince(start);
  const Trial &recorded = board.record(std::move(trial));
  // A merge is the fusion agent's proposal: it spends the budget like any.
  if (!recorded.isDefault || board.kernels()[kernel].mergeOf)
    ++spent;
  for (auto [i, agent] : llvm::enumerate(agents)) {
    agent->observe(board, recorded);
    if (agent->name() == recorded.candidate.agent)
      agentStats[i].record(recorded.outcome == Outcome::Ok && before > 0 &&
                                   recorded.time.medianMs < before
                               ? std::log(before / recorded.time.medianMs)
                               : 0.0);
  }
  if (options.knowledgeBase && recorded.outcome == Outcome::Ok &&
      board.best(kernel)->id == recorded.id)
    storeRecord(kernel);
  if (log) {
    *log << trialToJSONLine(board, recorded) << "\n";
    log->flush();
  }
}

std::optional<unsigned> Coordinator::pickKernel() {
  // The time each kernel could still win in the model (its best time above
  // its roofline bound, times its instances), spread over the trials it has
  // had. The bound is an estimate (peaks measured on a busy machine, caches
  // ignored): a kernel at or below it keeps a twentieth of its time as
  // headroom rather than none. A merge could win its parts' best times down
  // to its own bound.
  std::optional<unsigned> pick;
  double pickScore = 0;
  for (unsigned k = 0; k < board.kernels().size(); ++k) {
    const Kernel &kernel = board.kernels()[k];
    if (!active[k])
      continue;
    double bestMs, odds = 1;
    const Trial *base = board.defaultTrial(k);
    if (kernel.mergeOf && !base) {
      const Trial *producer = board.best(kernel.mergeOf->first);
      const Trial *consumer = board.best(kernel.mergeOf->second);
      if (!producer || !consumer)
        continue;
      bestMs = producer->time.medianMs + consumer->time.medianMs;
    } else {
      const Trial *best = board.best(k);
      if (!base || base->outcome != Outcome::Ok || !best)
        continue;
      bestMs = best->time.medianMs;
      // While a merge is slower than its parts, the model pays the parts;
      // and the further behind it is, the less likely tuning makes up for
      // it: its claim shrinks by the ratio.
      if (kernel.mergeOf)
        if (const Trial *producer = board.best(kernel.mergeOf->first))
          if (const Trial *consumer = board.best(kernel.mergeOf->second)) {
            double parts =
                producer->time.medianMs + consumer->time.medianMs;
            if (bestMs > parts) {
              odds = parts / bestMs;
              bestMs = parts;
            }
          }
    }
    double headroom = odds * std::max(bestMs - roofline[k], 0.05 * bestMs);
    double score = headroom * kernel.instances /
                   (1 + board.trialsOf(k).size() - (base ? 1 : 0));
    if (!pick || score > pickScore) {
      pick = k;
      pickScore = score;
    }
  }
  return pick;
}

std::vector<Work> Coordinator::proposeBatch(unsigned kernel, unsigned size) {
  std::vector<Work> batch;
  std::vector<bool> dry(agents.size(), false);
  double pending = 0;
  const Kernel &work = board.kernels()[kernel];
  while (batch.size() < size) {
    // A seeding agent (what won on this or the nearest work) has its first
    // proposal for a kernel tried first. Then the agent with the best upper
    // confidence bound on its improvements.
    std::optional<size_t> pick;
    double pickScore = 0;
    for (size_t a = 0; a < agents.size() && !pick; ++a) {
      llvm::StringRef name = agents[a]->name();
      auto byAgent = [&](const Candidate &c) { return c.agent == name; };
      if (!dry[a] && agents[a]->seedsEachKernel() &&
          !llvm::any_of(board.trialsOf(kernel),
                        [&](unsigned t) {
                          return byAgent(board.trials()[t].candidate);
                        }) &&
          !llvm::any_of(batch,
                        [&](const Work &w) { return byAgent(w.candidate); }))
        pick = a;
    }
    bool seeding = pick.has_value();
    std::vector<double> bounds = upperConfidenceBounds(agentStats, pending);
    for (size_t a = 0; a < agents.size() && !seeding; ++a) {
      if (dry[a])
        continue;
      if (!pick || bounds[a] > pickScore) {
        pick = a;
        pickScore = bounds[a];
      }
    }
    if (!pick)
      break;
    std::vector<Candidate> proposed = agents[*pick]->propose(board, kernel, 1);
    bool added = false;
    for (Candidate &candidate : proposed) {
      candidate.kernel = kernel;
      uint64_t hash = scheduleHash(work.signature, candidate.schedule);
      if (board.tried(hash) || knownLosers[kernel].contains(hash) ||
          llvm::any_of(batch, [&](const Work &w) { return w.hash == hash; }))
        continue;
      Work next;
      next.hash = hash;
      std::string why;
      if (!isValidSchedule(work, candidate.schedule, why)) {
        next.rejected = Outcome::Invalid;
        next.rejection = why;
      }
      next.candidate = std::move(candidate);
      batch.push_back(std::move(next));
      added = true;
      // Counted for the bandit now, so that one batch spreads over agents.
      pending += 1;
      break;
    }
    if (!added)
      dry[*pick] = true;
  }
  return batch;
}

void Coordinator::report(unsigned kernel, bool force) {
  const Kernel &work = board.kernels()[kernel];
  const Trial *base = board.defaultTrial(kernel);
  const Trial *best = board.best(kernel);
  std::string line;
  llvm::raw_string_ostream os(line);
  os << "[" << kernel + 1 << "/" << board.kernels().size() << "] "
     << work.name << ": ";
  if (const std::optional<KnowledgeRecord> &record = reused[kernel])
    os << "from the knowledge base, "
       << llvm::format("%.3f", record->time.medianMs) << " ms ("
       << llvm::format("%.2f", record->speedup()) << "x)";
  else
    os << board.trialsOf(kernel).size() << " trials";
  if (best && base && base->outcome == Outcome::Ok)
    os << ", best " << llvm::format("%.3f", best->time.medianMs) << " ms ("
       << llvm::format("%.2f", base->time.medianMs / best->time.medianMs)
       << "x)";
  if (budget)
    os << "  [" << spent << "/" << budget << "]";
  if (options.progressBar) {
    if (line.size() > 118)
      line = line.substr(0, 115) + "...";
    progress << "\r" << line << std::string(120 - line.size(), ' ');
    progress.flush();
  } else if (force) {
    progress << line << "\n";
  }
}

llvm::Error Coordinator::confirmWinners() {
  confirmations.assign(board.kernels().size(), std::nullopt);
  std::vector<Work> batch;
  for (unsigned k = 0; k < board.kernels().size(); ++k) {
    const Trial *base = board.defaultTrial(k);
    const Trial *best = board.best(k);
    // A merge is chosen by a margin over its parts already.
    if (reused[k] || board.kernels()[k].mergeOf || !base ||
        base->outcome != Outcome::Ok || !best || best->isDefault)
      continue;
    Work again;
    again.candidate = best->candidate;
    again.hash = best->hash;
    again.confirm = true;
    again.compileArgs = {"--strict-schedules"};
    // Faults are injected by id: the confirmations count on after the
    // trials.
    again.fault = faultAt(board.trials().size() + batch.size());
    if (llvm::Error error = writeCandidate(again))
      return error;
    batch.push_back(std::move(again));
  }
  if (batch.empty())
    return llvm::Error::success();
  if (!options.progressBar)
    progress << "timing the winners of " << batch.size()
             << " kernels again beside their defaults\n";
  compileAll(batch);
  for (Work &again : batch) {
    unsigned k = again.candidate.kernel;
    Trial measured = measure(again);
    if (llvm::Error error = stopIfInterrupted())
      return error;
    llvm::sys::fs::remove(again.enginePath);
    Confirmation verdict =
        confirmWinner(measured, board.defaultTrial(k)->time.medianMs);
    if (!verdict.kept)
      progress << "[" << k + 1 << "/" << board.kernels().size() << "] "
               << board.kernels()[k].name << ": kept the default schedule: "
               << "the search's winner (" << again.candidate.agent << ", "
               << llvm::format("%.2f",
                               board.defaultTrial(k)->time.medianMs /
                                   board.best(k)->time.medianMs)
               << "x in the search) " << verdict.why << "\n";
    confirmations[k] = std::move(verdict);
  }
  return llvm::Error::success();
}

TuneResult Coordinator::summarize() {
  TuneResult result;
  double before = 0, after = 0;
  for (unsigned k = 0; k < board.kernels().size(); ++k) {
    const Kernel &kernel = board.kernels()[k];
    KernelSummary summary;
    summary.signature = kernel.signature;
    summary.name = kernel.name;
    summary.instances = kernel.instances;
    summary.trials = board.trialsOf(k).size();
    summary.rooflineMs = roofline[k];
    summary.mergeOf = kernel.mergeOf;
    if (const std::optional<KnowledgeRecord> &record = reused[k]) {
      summary.defaultMs = record->defaultMs;
      summary.bestMs = summary.searchMs = record->time.medianMs;
      summary.winnerAgent = "knowledge base";
      summary.winner = record->schedule;
      result.schedules[kernel.signature] = record->schedule;
      if (!kernel.mergeOf) {
        ++result.reused;
        before += summary.defaultMs * kernel.instances;
        after += summary.bestMs * kernel.instances;
      }
      result.kernels.push_back(summary);
      continue;
    }
    const Trial *base = board.defaultTrial(k);
    const Trial *best = board.best(k);
    if (!base || base->outcome != Outcome::Ok) {
      summary.error = base            ? base->error
                      : kernel.mergeOf ? "merge not tried"
                                       : "not measured";
      result.kernels.push_back(summary);
      continue;
    }
    summary.defaultMs = base->time.medianMs;
    summary.searchMs = best->time.medianMs;
    if (k < confirmations.size() && confirmations[k]) {
      const Confirmation &verdict = *confirmations[k];
      summary.confirmed = true;
      if (!verdict.kept)
        summary.demoted = best->candidate.agent + "'s winner, " +
                          llvm::formatv("{0:F2}", summary.defaultMs /
                                                      summary.searchMs)
                              .str() +
                          "x in the search: " + verdict.why;
    }
    best = keptBest(k);
    summary.bestMs = keptMs(k);
    // "default", or "fusion" for a merge that no agent improved.
    summary.winnerAgent = best->candidate.agent;
    summary.winner = best->candidate.schedule;
    if (!best->isDefault)
      result.schedules[kernel.signature] = best->candidate.schedule;
    if (!kernel.mergeOf) {
      before += summary.defaultMs * kernel.instances;
      after += summary.bestMs * kernel.instances;
    }
    result.kernels.push_back(summary);
  }

  // The merges that beat their parts, best gain per site first; the sites
  // they merge (greedily, a group in one merge at most) then replace their
  // parts' best times with the merged kernel's.
  for (auto [k, summary] : llvm::enumerate(result.kernels)) {
    if (!summary.mergeOf || !summary.error.empty())
      continue;
    auto [producer, consumer] = *summary.mergeOf;
    const KernelSummary &p = result.kernels[producer];
    const KernelSummary &c = result.kernels[consumer];
    summary.partsMs = p.bestMs + c.bestMs;
    if (summary.bestMs < summary.partsMs * (1 - options.mergeMargin))
      result.merges.push_back({p.signature, c.signature, summary.signature,
                               summary.partsMs - summary.bestMs});
  }
  llvm::stable_sort(result.merges,
                    [](const FusionMerge &a, const FusionMerge &b) {
                      return a.gainMs > b.gainMs;
                    });
  llvm::StringMap<unsigned> bySignature;
  for (auto [k, kernel] : llvm::enumerate(board.kernels()))
    bySignature[kernel.signature] = k;
  llvm::StringSet<> used;
  for (unsigned i : selectSites(sites, result.merges)) {
    KernelSummary &merged = result.kernels[bySignature.lookup(sites[i].merged)];
    ++merged.mergedSites;
    ++result.mergedSites;
    after -= merged.partsMs - merged.bestMs;
    used.insert(merged.signature);
  }
  // A merge whose every site lost to a better overlapping one is no merge.
  llvm::erase_if(result.merges, [&](const FusionMerge &merge) {
    return !used.contains(merge.merged);
  });
  result.trials = board.trials().size();
  result.speedup = after > 0 ? before / after : 1;
  result.seconds = secondsSince(start);
  result.threads = options.threads;
  return result;
}

/// The tolerance a kernel's outputs were compared with, as records say it.
static std::string toleranceText(llvm::StringRef elementTypes) {
  std::string text;
  llvm::SmallVector<llvm::StringRef> types;
  elementTypes.split(types, ',');
  for (llvm::StringRef type : types) {
    std::optional<::int21::runtime::DType> dtype =
        type == "f32"    ? std::optional(::int21::runtime::DType::F32)
        : type == "f16"  ? std::optional(::int21::runtime::DType::F16)
        : type == "bf16" ? std::optional(::int21::runtime::DType::BF16)
        : type == "f64"  ? std::optional(::int21::runtime::DType::F64)
                         : std::nullopt;
    if (!text.empty())
      text += "; ";
    if (!dtype) {
      text += type.str() + ": exact";
      continue;
    }
    auto [rtol, atol] = toleranceFor(*dtype, 1.0);
    llvm::raw_string_ostream os(text);
    os << type << ": rtol " << llvm::format("%g", rtol) << ", atol "
       << llvm::format("%g", atol) << " x output scale";
  }
  return text;
}

const Trial *Coordinator::keptBest(unsigned k) const {
  if (k < confirmations.size() && confirmations[k] && !confirmations[k]->kept)
    return board.defaultTrial(k);
  return board.best(k);
}

double Coordinator::keptMs(unsigned k) const {
  if (k < confirmations.size() && confirmations[k] && confirmations[k]->kept)
    return confirmations[k]->ratio * board.defaultTrial(k)->time.medianMs;
  return keptBest(k)->time.medianMs;
}

void Coordinator::storeRecord(unsigned k) {
  const Kernel &kernel = board.kernels()[k];
  const Trial *base = board.defaultTrial(k);
  const Trial *best = keptBest(k);
  if (reused[k] || !base || base->outcome != Outcome::Ok || !best)
    return;
  KnowledgeRecord record;
  record.signature = kernel.signature;
  record.target = kbTarget;
  record.compilerVersion = ::int21::compilerVersion().str();
  record.machine = KnowledgeBase::thisMachine();
  record.threads = options.threads;
  record.opKind = kernel.opKind;
  record.dims = kernel.loops;
  record.elementTypes = kernel.elementTypes;
  record.kernelIR = kernel.ir;
  record.schedule = best->candidate.schedule;
  record.time = best->time;
  // The time measured again, when it was: the search's is the fastest of
  // many noisy measurements.
  double scale = keptMs(k) / best->time.medianMs;
  record.time.medianMs *= scale;
  record.time.minMs *= scale;
  record.time.maxMs *= scale;
  record.defaultMs = base->time.medianMs;
  record.seed = options.seed;
  record.maxError = best->maxError;
  record.tolerance = toleranceText(kernel.elementTypes);
  record.rooflineMs = roofline[k];
  record.agent = best->candidate.agent;
  if (best->candidate.parent)
    record.parent =
        describe(board.trials()[*best->candidate.parent].candidate.schedule);
  // A winner that lost to the default when timed again replaces the record
  // the search stored for it as it improved.
  bool demoted = best != board.best(k);
  if (llvm::Expected<int64_t> id = options.knowledgeBase->put(record, demoted);
      !id)
    warnKnowledge(id.takeError());
}

void Coordinator::warnKnowledge(llvm::Error error) {
  // Once is enough: the search goes on without storing.
  if (!kbWarned)
    progress << "warning: " << llvm::toString(std::move(error))
             << " (the engine is built all the same)\n";
  else
    llvm::consumeError(std::move(error));
  kbWarned = true;
}

void Coordinator::storeKnowledge(const TuneResult &result) {
  KnowledgeBase &kb = *options.knowledgeBase;
  for (unsigned k = 0; k < board.kernels().size(); ++k) {
    const Kernel &kernel = board.kernels()[k];
    const Trial *base = board.defaultTrial(k);
    const Trial *best = keptBest(k);
    if (reused[k] || !base || base->outcome != Outcome::Ok || !best)
      continue;
    storeRecord(k);
    std::vector<KnowledgeLoser> losers;
    for (unsigned t : board.trialsOf(k)) {
      const Trial &trial = board.trials()[t];
      if (trial.id == best->id || trial.isDefault ||
          trial.outcome == Outcome::Invalid)
        continue;
      KnowledgeLoser loser;
      loser.signature = kernel.signature;
      loser.target = kbTarget;
      loser.scheduleHash = trial.hash;
      loser.outcome = trial.outcome == Outcome::Ok
                          ? "slower"
                          : outcomeName(trial.outcome).str();
      if (trial.outcome == Outcome::Ok && best->time.medianMs > 0)
        loser.ratio = trial.time.medianMs / best->time.medianMs;
      losers.push_back(std::move(loser));
    }
    if (llvm::Error error = kb.putLosers(losers))
      return warnKnowledge(std::move(error));
  }
  for (const FusionMerge &merge : result.merges)
    if (llvm::Error error = kb.putMerge({merge.producer, merge.consumer,
                                         merge.merged, kbTarget,
                                         merge.gainMs}))
      return warnKnowledge(std::move(error));
}

llvm::Expected<TuneResult> Coordinator::run() {
  // Ctrl-C (or SIGTERM, SIGHUP) stops the search: its children die at once,
  // no trial they were running is recorded, the knowledge base keeps what
  // was committed, and the working files go.
  InterruptScope interrupts;
  llvm::scope_exit cleanUp([&] {
    if (!options.keepWorkDir && !workDir.empty())
      llvm::sys::fs::remove_directories(workDir);
  });
  if (llvm::Error error = setUp())
    return std::move(error);
  const std::vector<Kernel> &kernels = board.kernels();
  size_t merges = llvm::count_if(
      kernels, [](const Kernel &kernel) { return kernel.mergeOf; });
  progress << "tuning " << kernels.size() - merges << " kernels";
  if (merges)
    progress << " and " << merges << (merges == 1 ? " merge" : " merges");
  progress << " with " << agents.size() << " agents (";
  for (auto [i, agent] : llvm::enumerate(agents))
    progress << (i ? ", " : "") << agent->name();
  progress << "), "
           << (budget ? std::to_string(budget) + " trials" : "no trial limit");
  if (options.seconds > 0)
    progress << ", at most " << llvm::format("%.0f", options.seconds) << " s";
  progress << ", timed on " << threadsText(options.threads) << "\n";

  // The reference lowering and the default schedule of every kernel; the
  // merged kernels wait for the fusion agent to propose them.
  {
    std::vector<Work> defaults;
    for (unsigned k = 0; k < kernels.size(); ++k) {
      if (kernels[k].mergeOf || reused[k])
        continue;
      Work base;
      base.candidate.kernel = k;
      base.candidate.agent = "default";
      base.candidate.schedule = defaultSchedule(kernels[k].choices.front());
      defaults.push_back(std::move(base));
    }
    if (llvm::Error error = measureDefaults(std::move(defaults)))
      return std::move(error);
  }

  // The search proper.
  while (budgetLeft()) {
    std::optional<unsigned> kernel = pickKernel();
    if (!kernel)
      break;
    if (!board.defaultTrial(*kernel)) {
      // Only a merged kernel is picked before its default schedule ran.
      if (llvm::Error error = tryMerge(*kernel))
        return std::move(error);
      continue;
    }
    unsigned size = std::max(2u, jobs);
    if (budget)
      size = std::min(size, budget - spent);
    std::vector<Work> batch = proposeBatch(*kernel, size);
    if (batch.empty()) {
      // Every agent has run out of ideas for this kernel.
      active[*kernel] = false;
      continue;
    }
    for (auto [i, work] : llvm::enumerate(batch)) {
      work.fault = faultAt(board.trials().size() + i);
      work.compileArgs = {"--strict-schedules"};
      if (!work.rejected)
        if (llvm::Error error = writeCandidate(work))
          return std::move(error);
    }
    compileAll(batch);
    for (Work &work : batch) {
      unsigned before = board.best(*kernel)->id;
      Trial trial = measure(work);
      if (llvm::Error error = stopIfInterrupted())
        return std::move(error);
      record(std::move(trial));
      llvm::sys::fs::remove(work.enginePath);
      // Plain lines (not a terminal): one when a kernel's best improves.
      report(*kernel, /*force=*/board.best(*kernel)->id != before);
    }
  }
  if (options.progressBar)
    progress << "\n";
  for (unsigned k = 0; k < kernels.size(); ++k)
    if (!options.progressBar)
      report(k, /*force=*/true);
  if (options.confirmWinners)
    if (llvm::Error error = confirmWinners())
      return std::move(error);
  for (std::unique_ptr<Agent> &agent : agents)
    agent->finish();

  TuneResult result = summarize();
  if (options.knowledgeBase)
    storeKnowledge(result);
  if (!options.reportDir.empty())
    if (llvm::Error error = writeReport(board, result, options.reportDir))
      return std::move(error);
  if (options.keepWorkDir)
    progress << "kernels and engines kept in " << workDir << "\n";
  return result;
}

} // namespace

llvm::Expected<TuneResult> (::int21::search::tuneModule)(ModuleOp module,
                                                     const TuneOptions &options,
                                                     llvm::raw_ostream &progress) {
  TuneOptions resolved = options;
  resolved.threads = runThreads(options.threads);
  Coordinator coordinator(module, resolved, progress);
  return coordinator.run();
}

int(::int21::search::searchInterruption)() { return interruption(); }

llvm::Error(::int21::search::lowerForScheduling)(ModuleOp module) {
  PassManager pm(module.getContext());
  mlir::int21::buildInt21ToLinalgPipeline(pm);
  if (failed(pm.run(module)))
    return llvm::createStringError("cannot lower the model for tuning");
  // Data movement of weights happens at compile time (int21-outline-weights
  // folds it before the schedule pass): it is no kernel to tune.
  module.walk([](func::FuncOp func) {
    mlir::int21::foldConstantDataMovement(func);
  });
  if (failed(mlir::int21::cpu::prepareForScheduling(module)))
    return llvm::createStringError("cannot lower the model for tuning");
  return llvm::Error::success();
}

llvm::Expected<TuneResult>(::int21::search::tuneAndApply)(
    ModuleOp module, const TuneOptions &options, llvm::raw_ostream &progress) {
  if (llvm::Error error = lowerForScheduling(module))
    return std::move(error);
  llvm::Expected<TuneResult> result = tuneModule(module, options, progress);
  if (!result)
    return result.takeError();
  // Merged groups have the signatures of their merged kernels: merge first,
  // so that they get those kernels' winners.
  result->mergedSites = applyMerges(module, result->merges);
  applySchedules(module, result->schedules);
  return result;
}

llvm::Expected<KnowledgeApplied>(::int21::search::applyKnowledge)(
    ModuleOp module, const KnowledgeBase &kb, llvm::StringRef kbTarget,
    unsigned threads) {
  if (llvm::Error error = lowerForScheduling(module))
    return std::move(error);
  threads = runThreads(threads);
  std::map<std::string, Schedule> schedules;
  auto trusted = [&](llvm::StringRef signature) {
    return findTrustedRecord(kb, signature, kbTarget, threads);
  };
  // Merges that won, where the merged kernel's record is trusted.
  llvm::Expected<std::vector<KnowledgeMerge>> merges = kb.merges(kbTarget);
  if (!merges)
    return merges.takeError();
  std::vector<FusionMerge> chosen;
  for (const KnowledgeMerge &merge : *merges) {
    llvm::Expected<std::optional<KnowledgeRecord>> record =
        trusted(merge.merged);
    if (!record)
      return record.takeError();
    if (*record)
      chosen.push_back(
          {merge.producer, merge.consumer, merge.merged, merge.gainMs});
  }
  llvm::stable_sort(chosen, [](const FusionMerge &a, const FusionMerge &b) {
    return a.gainMs > b.gainMs;
  });
  if (!chosen.empty())
    applyMerges(module, chosen);
  llvm::StringSet<> seen;
  llvm::Error error = llvm::Error::success();
  module.walk([&](mlir::int21::FusionGroupOp group) {
    if (error)
      return;
    std::string signature = kernelSignature(group);
    if (!seen.insert(signature).second)
      return;
    llvm::Expected<std::optional<KnowledgeRecord>> record = trusted(signature);
    if (!record) {
      error = record.takeError();
      return;
    }
    if (*record)
      schedules[signature] = (*record)->schedule;
  });
  if (error)
    return std::move(error);
  applySchedules(module, schedules);
  return KnowledgeApplied{unsigned(seen.size()), unsigned(schedules.size()),
                          threads};
}

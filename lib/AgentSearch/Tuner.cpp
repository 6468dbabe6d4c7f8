//===- Tuner.cpp - the coordinator of the schedule search -----------------===//
//
// The coordinator ties the pieces of a search together: the trial budget
// (TrialBudget.h) picks the kernel, the team of agents (AgentTeam.h)
// proposes a batch for it, the trial runner (Trials.h) compiles and measures
// it in children, the blackboard records it, the knowledge policy
// (KnowledgePolicy.h) says what needs no trial and stores what won, and the
// progress lines (Progress.h) say how it goes.
//
//===----------------------------------------------------------------------===//

#include "int21/AgentSearch/Tuner.h"

#include "AgentTeam.h"
#include "KnowledgePolicy.h"
#include "Progress.h"
#include "TrialBudget.h"
#include "Trials.h"
#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Schedule.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"

using namespace int21::search;
using namespace mlir;

namespace {

/// The error a search stops with once a signal interrupted it: what a
/// child was doing then says nothing about its candidate.
llvm::Error stopIfInterrupted() {
  if (int signal = interruption())
    return llvm::createStringError("interrupted by " + signalName(signal));
  return llvm::Error::success();
}

/// The kernels of `module` and, when an agent that proposes merges (the
/// fusion agent) is in the team, the merged kernel of every fusion site
/// whose parts are kernels (up to options.maxMerges distinct ones), after
/// them. `sites` gets the sites of those merged kernels.
std::vector<Kernel> collectKernels(ModuleOp module, const TuneOptions &options,
                                   std::vector<SiteKey> &sites) {
  std::vector<Kernel> kernels = extractKernels(module);
  if (!teamProposesMerges(options) || options.maxMerges == 0)
    return kernels;
  llvm::StringMap<unsigned> bySignature;
  for (auto [k, kernel] : llvm::enumerate(kernels))
    bySignature[kernel.signature] = k;
  llvm::DenseMap<Operation *, unsigned> position;
  module.walk([&](int21::FusionGroupOp group) {
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
    int21::FusionGroupOp merged = cloneMerged(site, *scratch);
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
      : options(options), progress(progress),
        board(collectKernels(module, options, sites)), budget(options, board),
        runner(module, options, board), knowledge(options, board, progress),
        winners(board), lines(progress, options, board, budget, knowledge) {}

  llvm::Expected<TuneResult> run();

private:
  llvm::Error setUp();
  /// Measures the reference lowering and the default schedule of each
  /// kernel of `defaults`; a default that agrees with the reference becomes
  /// its kernel's reference.
  llvm::Error measureDefaults(std::vector<Work> defaults);
  /// Merged kernel `kernel`'s first trial, when an agent proposes it.
  llvm::Error tryMerge(unsigned kernel);
  /// Records a trial on the blackboard, and tells the budget, the agents,
  /// the knowledge base and the log.
  void record(Trial trial);
  /// Times each kernel's winner again (TuneOptions::confirmWinners).
  llvm::Error confirmWinners();

  const TuneOptions &options;
  llvm::raw_ostream &progress;
  /// The fusion sites of the model whose merged kernels are on the board.
  std::vector<SiteKey> sites;
  Blackboard board;
  TrialBudget budget;
  TrialRunner runner;
  KnowledgePolicy knowledge;
  AgentTeam team;
  Winners winners;
  ProgressLines lines;
};

llvm::Error Coordinator::setUp() {
  if (llvm::Error error = runner.setUp())
    return error;
  if (llvm::Error error = knowledge.load())
    return error;
  if (llvm::Error error = team.build(options, knowledge.records()))
    return error;
  if (llvm::Error error = lines.openLog())
    return error;
  budget.measureRoofline(options.threads);
  // What the knowledge base holds from here needs no trial.
  for (unsigned k = 0; k < board.kernels().size(); ++k)
    if (knowledge.reused(k))
      budget.retire(k);
  return llvm::Error::success();
}

llvm::Error Coordinator::measureDefaults(std::vector<Work> defaults) {
  std::vector<Work> both;
  for (Work &base : defaults) {
    unsigned k = base.candidate.kernel;
    Work reference;
    reference.candidate.kernel = k;
    reference.isDefault = true;
    if (llvm::Error error = runner.write(reference))
      return error;
    reference.enginePath += ".reference";
    reference.schedules = KernelSchedules::Reference;
    both.push_back(std::move(reference));
    base.hash =
        scheduleHash(board.kernels()[k].signature, base.candidate.schedule);
    base.isDefault = true;
  }
  // Faults are injected by trial id: these trials are recorded in order.
  for (auto [i, base] : llvm::enumerate(defaults)) {
    base.fault = runner.faultAt(board.trials().size() + i);
    if (llvm::Error error = runner.write(base))
      return error;
  }
  // References (the unscheduled lowering) and defaults compile together.
  size_t count = defaults.size();
  both.insert(both.end(), defaults.begin(), defaults.end());
  runner.compileAll(both);
  for (size_t i = 0; i < count; ++i) {
    Work &reference = both[i];
    Work &base = both[count + i];
    unsigned k = base.candidate.kernel;
    runner.setReference(k, reference.enginePath);
    if (!reference.compile.succeeded()) {
      base.rejected = Outcome::CompileError;
      base.rejection = "the reference lowering does not compile: " +
                       firstErrorLine(reference.compileLog);
    }
    Trial trial = runner.measure(base);
    if (llvm::Error error = stopIfInterrupted())
      return error;
    // Once the default schedule agrees with the reference lowering, it is
    // the reference: it is faster, and candidates must match it.
    if (trial.outcome == Outcome::Ok)
      runner.setReference(k, base.enginePath);
    record(std::move(trial));
    lines.kernel(k, /*force=*/true);
  }
  return llvm::Error::success();
}

llvm::Error Coordinator::tryMerge(unsigned kernel) {
  std::optional<Work> merge = team.proposeMerge(board, kernel);
  if (!merge) {
    budget.retire(kernel);
    return llvm::Error::success();
  }
  std::vector<Work> proposals;
  proposals.push_back(std::move(*merge));
  return measureDefaults(std::move(proposals));
}

void Coordinator::record(Trial trial) {
  unsigned kernel = trial.candidate.kernel;
  const Trial *bestBefore = board.best(kernel);
  double before = bestBefore ? bestBefore->time.medianMs : 0;
  trial.at = budget.elapsed();
  const Trial &recorded = board.record(std::move(trial));
  budget.count(recorded);
  team.observe(board, recorded, before);
  if (options.knowledgeBase && recorded.outcome == Outcome::Ok &&
      board.best(kernel)->id == recorded.id)
    knowledge.storeBest(kernel, winners, budget.roofline());
  lines.log(recorded);
}

llvm::Error Coordinator::confirmWinners() {
  winners.clear();
  std::vector<Work> batch;
  for (unsigned k = 0; k < board.kernels().size(); ++k) {
    const Trial *base = board.defaultTrial(k);
    const Trial *best = board.best(k);
    // A merge is chosen by a margin over its parts already.
    if (knowledge.reused(k) || board.kernels()[k].mergeOf || !base ||
        base->outcome != Outcome::Ok || !best || best->isDefault)
      continue;
    Work again;
    again.candidate = best->candidate;
    again.hash = best->hash;
    again.confirm = true;
    again.schedules = KernelSchedules::Strict;
    // Faults are injected by id: the confirmations count on after the
    // trials.
    again.fault = runner.faultAt(board.trials().size() + batch.size());
    if (llvm::Error error = runner.write(again))
      return error;
    batch.push_back(std::move(again));
  }
  if (batch.empty())
    return llvm::Error::success();
  lines.confirming(batch.size());
  runner.compileAll(batch);
  for (Work &again : batch) {
    unsigned k = again.candidate.kernel;
    Trial measured = runner.measure(again);
    if (llvm::Error error = stopIfInterrupted())
      return error;
    llvm::sys::fs::remove(again.enginePath);
    Confirmation verdict =
        confirmWinner(measured, board.defaultTrial(k)->time.medianMs);
    if (!verdict.kept)
      lines.demoted(k, again.candidate, verdict);
    winners.confirm(k, std::move(verdict));
  }
  return llvm::Error::success();
}

llvm::Expected<TuneResult> Coordinator::run() {
  // Ctrl-C (or SIGTERM, SIGHUP) stops the search: its children die at once,
  // no trial they were running is recorded, the knowledge base keeps what
  // was committed, and the working files go (with the runner).
  InterruptScope interrupts;
  if (llvm::Error error = setUp())
    return std::move(error);
  lines.start(team);

  // The reference lowering and the default schedule of every kernel; the
  // merged kernels wait for an agent to propose them.
  const std::vector<Kernel> &kernels = board.kernels();
  {
    std::vector<Work> defaults;
    for (unsigned k = 0; k < kernels.size(); ++k) {
      if (kernels[k].mergeOf || knowledge.reused(k))
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
  while (budget.left()) {
    std::optional<unsigned> kernel = budget.pickKernel(team.seeds());
    if (!kernel)
      break;
    if (!board.defaultTrial(*kernel)) {
      // Only a merged kernel is picked before its default schedule ran.
      if (llvm::Error error = tryMerge(*kernel))
        return std::move(error);
      continue;
    }
    llvm::Expected<std::vector<Work>> proposed = team.proposeBatch(
        board, *kernel, budget.batchSize(runner.jobs()),
        [&](uint64_t hash) { return knowledge.knownLoser(*kernel, hash); });
    if (!proposed)
      return proposed.takeError();
    std::vector<Work> batch = std::move(*proposed);
    if (batch.empty()) {
      // Every agent has run out of ideas for this kernel.
      budget.retire(*kernel);
      continue;
    }
    for (auto [i, work] : llvm::enumerate(batch)) {
      work.fault = runner.faultAt(board.trials().size() + i);
      work.schedules = KernelSchedules::Strict;
      if (!work.rejected)
        if (llvm::Error error = runner.write(work))
          return std::move(error);
    }
    runner.compileAll(batch);
    for (Work &work : batch) {
      unsigned before = board.best(*kernel)->id;
      Trial trial = runner.measure(work);
      if (llvm::Error error = stopIfInterrupted())
        return std::move(error);
      record(std::move(trial));
      llvm::sys::fs::remove(work.enginePath);
      // Plain lines (not a terminal): one when a kernel's best improves.
      lines.kernel(*kernel, /*force=*/board.best(*kernel)->id != before);
    }
  }
  lines.searchEnded();
  if (options.confirmWinners)
    if (llvm::Error error = confirmWinners())
      return std::move(error);
  team.finish();

  TuneResult result =
      summarizeSearch(board, knowledge, winners, budget, sites, options);
  if (options.knowledgeBase)
    knowledge.storeAll(result, winners, budget.roofline());
  if (!options.reportDir.empty())
    if (llvm::Error error = writeReport(board, result, options.reportDir))
      return std::move(error);
  if (options.keepWorkDir)
    progress << "kernels and engines kept in " << runner.workDir() << "\n";
  return result;
}

} // namespace

llvm::Expected<TuneResult>(::int21::search::tuneModule)(
    ModuleOp module, const TuneOptions &options, llvm::raw_ostream &progress) {
  TuneOptions resolved = options;
  resolved.threads = runThreads(options.threads);
  Coordinator coordinator(module, resolved, progress);
  return coordinator.run();
}

int(::int21::search::searchInterruption)() { return interruption(); }

llvm::Error(::int21::search::lowerForScheduling)(ModuleOp module) {
  PassManager pm(module.getContext());
  int21::buildInt21ToLinalgPipeline(pm);
  if (failed(pm.run(module)))
    return llvm::createStringError("cannot lower the model for tuning");
  // Data movement of weights happens at compile time (int21-outline-weights
  // folds it before the schedule pass): it is no kernel to tune.
  module.walk(
      [](func::FuncOp func) { int21::foldConstantDataMovement(func); });
  if (failed(int21::schedule::prepareForScheduling(module)))
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

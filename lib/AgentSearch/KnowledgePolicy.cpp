//===- KnowledgePolicy.cpp - what a search takes from and gives the KB ----===//

#include "KnowledgePolicy.h"

#include "int21/AgentSearch/Measure.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Runtime/Engine.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"

using namespace int21::search;
using namespace mlir;

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

llvm::Error KnowledgePolicy::load() {
  const std::vector<Kernel> &kernels = board.kernels();
  reusedRecords.resize(kernels.size());
  losers.resize(kernels.size());
  if (!kb)
    return llvm::Error::success();
  target = options.target.name();
  for (auto [k, kernel] : llvm::enumerate(kernels)) {
    // A record of a template the kernel no longer has is of no use.
    llvm::Expected<std::optional<KnowledgeRecord>> trusted = findTrustedRecord(
        *kb, kernel.signature, target, options.threads,
        [&](const KnowledgeRecord &record) {
          return kernel.findChoice(record.schedule.sequence) != nullptr;
        });
    if (!trusted)
      return trusted.takeError();
    reusedRecords[k] = std::move(*trusted);
    llvm::Expected<std::vector<uint64_t>> lost =
        kb->losers(kernel.signature, target);
    if (!lost)
      return lost.takeError();
    losers[k].insert(lost->begin(), lost->end());
  }
  llvm::Expected<std::vector<KnowledgeRecord>> all = kb->records(target);
  if (!all)
    return all.takeError();
  known = std::move(*all);
  return llvm::Error::success();
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

void KnowledgePolicy::storeBest(unsigned k, const Winners &winners,
                                llvm::ArrayRef<double> roofline) {
  const Kernel &kernel = board.kernels()[k];
  const Trial *base = board.defaultTrial(k);
  const Trial *best = winners.keptBest(k);
  if (reusedRecords[k] || !base || base->outcome != Outcome::Ok || !best)
    return;
  KnowledgeRecord record;
  record.signature = kernel.signature;
  record.target = target;
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
  double scale = winners.keptMs(k) / best->time.medianMs;
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
  if (llvm::Expected<int64_t> id = kb->put(record, demoted); !id)
    warn(id.takeError());
}

void KnowledgePolicy::warn(llvm::Error error) {
  // Once is enough: the search goes on without storing.
  if (!warned)
    progress << "warning: " << llvm::toString(std::move(error))
             << " (the engine is built all the same)\n";
  else
    llvm::consumeError(std::move(error));
  warned = true;
}

void KnowledgePolicy::storeAll(const TuneResult &result, const Winners &winners,
                               llvm::ArrayRef<double> roofline) {
  for (unsigned k = 0; k < board.kernels().size(); ++k) {
    const Kernel &kernel = board.kernels()[k];
    const Trial *base = board.defaultTrial(k);
    const Trial *best = winners.keptBest(k);
    if (reusedRecords[k] || !base || base->outcome != Outcome::Ok || !best)
      continue;
    storeBest(k, winners, roofline);
    std::vector<KnowledgeLoser> lost;
    for (unsigned t : board.trialsOf(k)) {
      const Trial &trial = board.trials()[t];
      if (trial.id == best->id || trial.isDefault ||
          trial.outcome == Outcome::Invalid)
        continue;
      KnowledgeLoser loser;
      loser.signature = kernel.signature;
      loser.target = target;
      loser.scheduleHash = trial.hash;
      loser.outcome = trial.outcome == Outcome::Ok
                          ? "slower"
                          : outcomeName(trial.outcome).str();
      if (trial.outcome == Outcome::Ok && best->time.medianMs > 0)
        loser.ratio = trial.time.medianMs / best->time.medianMs;
      lost.push_back(std::move(loser));
    }
    if (llvm::Error error = kb->putLosers(lost))
      return warn(std::move(error));
  }
  for (const FusionMerge &merge : result.merges)
    if (llvm::Error error = kb->putMerge({merge.producer, merge.consumer,
                                          merge.merged, target, merge.gainMs}))
      return warn(std::move(error));
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
  module.walk([&](int21::FusionGroupOp group) {
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

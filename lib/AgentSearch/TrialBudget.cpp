//===- TrialBudget.cpp - a search's trials, and which kernel next ---------===//

#include "TrialBudget.h"

#include "int21/AgentSearch/Measure.h"

using namespace int21::search;

TrialBudget::TrialBudget(const TuneOptions &options, const Blackboard &board)
    : options(options), board(board), budget(options.budget),
      active(board.kernels().size(), true) {
  // 20 trials per kernel of the model: the merged kernels the fusion agent
  // may propose spend the same budget, so it does not depend on the agents.
  if (!budget && options.seconds <= 0)
    budget = 20 * llvm::count_if(board.kernels(), [](const Kernel &kernel) {
               return !kernel.mergeOf;
             });
}

bool TrialBudget::left() const {
  if (budget && used >= budget)
    return false;
  return !(options.seconds > 0 && elapsed() >= options.seconds);
}

double TrialBudget::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

unsigned TrialBudget::batchSize(unsigned jobs) const {
  unsigned size = std::max(2u, jobs);
  if (budget)
    size = std::min(size, budget - used);
  return size;
}

void TrialBudget::count(const Trial &recorded) {
  // A merge is the fusion agent's proposal: it spends the budget like any.
  if (!recorded.isDefault || board.kernels()[recorded.candidate.kernel].mergeOf)
    ++used;
}

void TrialBudget::measureRoofline(unsigned threads) {
  MachinePeaks peaks = measurePeaks(threads);
  for (const Kernel &kernel : board.kernels())
    bounds.push_back(rooflineMs(kernel, peaks));
}

std::optional<unsigned> TrialBudget::pickKernel(bool seedsFirst) const {
  // The time each kernel could still win in the model (its best time above
  // its roofline bound, times its instances), spread over the trials it has
  // had. The bound is an estimate (peaks measured on a busy machine, caches
  // ignored): a kernel at or below it keeps a twentieth of its time as
  // headroom rather than none. A merge could win its parts' best times down
  // to its own bound.
  std::optional<unsigned> pick;
  double pickScore = 0;
  bool pickUnsearched = false;
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
            double parts = producer->time.medianMs + consumer->time.medianMs;
            if (bestMs > parts) {
              odds = parts / bestMs;
              bestMs = parts;
            }
          }
    }
    double headroom = odds * std::max(bestMs - bounds[k], 0.05 * bestMs);
    size_t searched = board.trialsOf(k).size() - (base ? 1 : 0);
    double score = headroom * kernel.instances / (1 + searched);
    // A merge has no seed: the fusion agent proposes it.
    bool unsearched = seedsFirst && !kernel.mergeOf && searched == 0;
    if (!pick || (unsearched && !pickUnsearched) ||
        (unsearched == pickUnsearched && score > pickScore)) {
      pick = k;
      pickScore = score;
      pickUnsearched = unsearched;
    }
  }
  return pick;
}

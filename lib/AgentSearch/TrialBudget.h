//===- TrialBudget.h - a search's trials, and which kernel next -----------===//
//
// A search spends a budget of trials (TuneOptions::budget, or 20 per kernel
// of the model) within a time limit (TuneOptions::seconds). Each trial goes
// to the kernel with the most time left to win: its best time above its
// roofline bound, times its instances, over the trials it has had. When the
// knowledge base seeds the search, every kernel has its seed trial first.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_LIB_AGENTSEARCH_TRIALBUDGET_H
#define INT21_LIB_AGENTSEARCH_TRIALBUDGET_H

#include "int21/AgentSearch/Tuner.h"

#include "llvm/ADT/ArrayRef.h"

#include <chrono>
#include <optional>
#include <vector>

namespace int21::search {

class TrialBudget {
public:
  /// The search starts now.
  TrialBudget(const TuneOptions &options, const Blackboard &board);

  /// Trials in all (0: no limit) and those spent.
  unsigned total() const { return budget; }
  unsigned spent() const { return used; }
  /// Whether trials and time are left.
  bool left() const;
  /// Seconds since the search started.
  double elapsed() const;
  /// How many candidates the next batch holds, compiling `jobs` at once.
  unsigned batchSize(unsigned jobs) const;
  /// Counts a recorded trial: every one but a default schedule's, and a
  /// merged kernel's default (the fusion agent's proposal) as well.
  void count(const Trial &recorded);

  /// Measures the machine's peaks on `threads` threads for each kernel's
  /// roofline bound.
  void measureRoofline(unsigned threads);
  llvm::ArrayRef<double> roofline() const { return bounds; }

  /// No trial more for `kernel` (it needs none, or nothing is left to try).
  void retire(unsigned kernel) { active[kernel] = false; }
  /// The kernel the next trials go to, none when no kernel is left. With
  /// `seedsFirst` (the team has an agent that seeds each kernel from the
  /// knowledge base), a kernel not searched yet goes before every searched
  /// one: its seed is the best-informed trial a search has, and how long the
  /// kernels take does not decide which of them gets one.
  std::optional<unsigned> pickKernel(bool seedsFirst = false) const;

private:
  const TuneOptions &options;
  const Blackboard &board;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  unsigned budget = 0;
  unsigned used = 0;
  std::vector<bool> active;
  std::vector<double> bounds;
};

} // namespace int21::search

#endif // INT21_LIB_AGENTSEARCH_TRIALBUDGET_H

//===- Bandit.h - how the coordinator shares trials among agents ----------===//
//
// Each agent is an arm; a play is one of its candidates measured, and its
// reward is log(the kernel's best time before / the trial's time) when the
// trial improves the kernel's best, else 0. The next agent to propose is the
// one with the best upper confidence bound (UCB1). UCB1 assumes rewards in
// [0, 1]; these are log speed-ups of a few percent, mostly 0, so the
// exploration term is scaled by the spread of every reward so far: with a
// fixed scale the term swamps the means and every agent gets the same share,
// one that never improves anything included.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_BANDIT_H
#define INT21_AGENTSEARCH_BANDIT_H

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace int21::search {

/// What an arm's plays have won.
struct ArmStats {
  double plays = 0;
  double reward = 0;
  double rewardSquares = 0;

  void record(double reward);
};

/// The upper confidence bound of each arm: its mean reward plus
/// spread * sqrt(2 ln(all plays + pending) / its plays), where spread is the
/// standard deviation of every reward so far (1 before any reward). An arm
/// never played scores above every played one, the earlier arm first.
/// `pending` counts plays chosen but not yet rewarded.
std::vector<double> upperConfidenceBounds(llvm::ArrayRef<ArmStats> arms,
                                          double pending = 0);

} // namespace int21::search

#endif // INT21_AGENTSEARCH_BANDIT_H

//===- Bandit.cpp - how the coordinator shares trials among agents --------===//

#include "int21/AgentSearch/Bandit.h"

#include <algorithm>
#include <cmath>

using namespace int21::search;

void ArmStats::record(double value) {
  plays += 1;
  reward += value;
  rewardSquares += value * value;
}

std::vector<double>
int21::search::upperConfidenceBounds(llvm::ArrayRef<ArmStats> arms,
                                     double pending) {
  double plays = 0, reward = 0, rewardSquares = 0;
  for (const ArmStats &arm : arms) {
    plays += arm.plays;
    reward += arm.reward;
    rewardSquares += arm.rewardSquares;
  }
  double spread = 1;
  if (plays > 0 && reward > 0) {
    double mean = reward / plays;
    spread = std::sqrt(std::max(rewardSquares / plays - mean * mean, 0.0));
  }
  double total = 1 + plays + pending;
  std::vector<double> bounds;
  for (auto [i, arm] : llvm::enumerate(arms))
    bounds.push_back(arm.plays == 0
                         ? 1e9 - double(i)
                         : arm.reward / arm.plays +
                               spread * std::sqrt(2 * std::log(total) /
                                                  arm.plays));
  return bounds;
}

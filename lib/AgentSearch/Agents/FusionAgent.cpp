//===- FusionAgent.cpp - grouping moves: merge a producer into its consumer ===//
//
// The coordinator puts a merged kernel on the blackboard for every fusion
// site of the model (Fusion.h). The fusion agent is the one that proposes a
// merge: the merged kernel's default schedule, once both parts have a
// correct time to compare it with. After that the merged kernel is a kernel
// like any other, which the other agents tune; a merge that stays slower
// than its parts is simply not chosen (the "split" move is keeping the
// parts).
//
//===----------------------------------------------------------------------===//

#include "AgentSupport.h"

using namespace int21::search;

namespace {
class FusionAgent final : public Agent {
public:
  llvm::StringRef name() const override { return "fusion"; }

  std::vector<Candidate> propose(const Blackboard &board, unsigned kernel,
                                 unsigned count) override {
    const Kernel &work = board.kernels()[kernel];
    if (!work.mergeOf || count == 0 || !board.trialsOf(kernel).empty())
      return {};
    // Without correct parts there is nothing for the merge to beat.
    auto [producer, consumer] = *work.mergeOf;
    if (!board.best(producer) || !board.best(consumer))
      return {};
    return {detail::makeCandidate(kernel,
                                  defaultSchedule(work.choices.front()),
                                  name())};
  }
};
} // namespace

std::unique_ptr<Agent> int21::search::createFusionAgent() {
  return std::make_unique<FusionAgent>();
}

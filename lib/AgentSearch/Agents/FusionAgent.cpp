//===- FusionAgent.cpp - grouping moves: merge fusion groups --------------===//
//
// The coordinator puts a merged kernel on the blackboard for every fusion
// site of the model (Fusion.h). The fusion agent is the one that proposes a
// merge: the merged kernel's default schedule, once both parts have a
// correct time to compare it with. After that the merged kernel is a kernel
// like any other, which the other agents tune (the fusion agent offers the
// parts' best schedules where they fit); a merge that stays slower
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
    if (!work.mergeOf || count == 0)
      return {};
    // Without correct parts there is nothing for the merge to beat.
    auto [producer, consumer] = *work.mergeOf;
    const Trial *producerBest = board.best(producer);
    const Trial *consumerBest = board.best(consumer);
    if (!producerBest || !consumerBest)
      return {};
    if (board.trialsOf(kernel).empty())
      return {detail::makeCandidate(
          kernel, defaultSchedule(work.choices.front()), name())};
    // Once merged, the parts' tuned schedules are good guesses where the
    // merged kernel has their template (the consumer's first: its work
    // usually dominates and gives the merged group its shape).
    std::vector<Candidate> out;
    for (const Trial *part : {consumerBest, producerBest}) {
      const Schedule &schedule = part->candidate.schedule;
      std::string why;
      if (out.size() < count && isValidSchedule(work, schedule, why) &&
          !detail::alreadyProposed(board, work, schedule, out))
        out.push_back(
            detail::makeCandidate(kernel, schedule, name(), part->id));
    }
    return out;
  }
};
} // namespace

std::unique_ptr<Agent> int21::search::createFusionAgent() {
  return std::make_unique<FusionAgent>();
}

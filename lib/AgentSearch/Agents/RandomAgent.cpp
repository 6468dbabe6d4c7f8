//===- RandomAgent.cpp - uniformly random schedules: the baseline ---------===//

#include "AgentSupport.h"

using namespace int21::search;

namespace {
class RandomAgent final : public Agent {
public:
  explicit RandomAgent(uint64_t seed) : rng(seed) {}
  llvm::StringRef name() const override { return "random"; }

  std::vector<Candidate> propose(const Blackboard &board, unsigned kernel,
                                 unsigned count) override {
    const Kernel &work = board.kernels()[kernel];
    std::vector<Candidate> out;
    for (unsigned attempt = 0; out.size() < count && attempt < 20 * count;
         ++attempt) {
      std::optional<Schedule> schedule = detail::randomPlausible(work, rng);
      if (!schedule)
        break;
      if (!detail::alreadyProposed(board, work, *schedule, out))
        out.push_back(detail::makeCandidate(kernel, std::move(*schedule),
                                            name()));
    }
    return out;
  }

private:
  std::mt19937_64 rng;
};
} // namespace

std::unique_ptr<Agent> int21::search::createRandomAgent(uint64_t seed) {
  return std::make_unique<RandomAgent>(seed);
}

//===- TilingAgent.cpp - evolutionary search over tile sizes --------------===//
//
// The population is the fastest correct trials of the kernel's best
// template. Mutations step to neighbouring sizes while that improves the
// best, and jump further once it stalls. A child is a
// mutation of a parent picked by tournament (one or two tile knobs moved,
// mostly to a neighbouring size) or, between two parents of the same
// template, a crossover taking each knob from either.
//
//===----------------------------------------------------------------------===//

#include "AgentSupport.h"

using namespace int21::search;

namespace {
constexpr size_t kPopulation = 8;

class TilingAgent final : public Agent {
public:
  explicit TilingAgent(uint64_t seed) : rng(seed) {}
  llvm::StringRef name() const override { return "tiling"; }

  std::vector<Candidate> propose(const Blackboard &board, unsigned kernel,
                                 unsigned count) override {
    const Kernel &work = board.kernels()[kernel];
    std::vector<const Trial *> ranked = detail::rankedTrials(board, kernel);
    // The population: the best template's fastest trials (tile sizes of
    // another template say nothing about this one).
    if (!ranked.empty()) {
      const std::string &sequence = ranked.front()->candidate.schedule.sequence;
      llvm::erase_if(ranked, [&](const Trial *trial) {
        return trial->candidate.schedule.sequence != sequence;
      });
    }
    if (ranked.size() > kPopulation)
      ranked.resize(kPopulation);
    std::vector<Candidate> out;
    bool stalled = detail::trialsSinceImprovement(board, kernel) >= 6;
    for (unsigned attempt = 0; out.size() < count && attempt < 30 * count;
         ++attempt) {
      if (ranked.empty()) {
        if (std::optional<Schedule> s = detail::randomPlausible(work, rng);
            s && !detail::alreadyProposed(board, work, *s, out))
          out.push_back(detail::makeCandidate(kernel, std::move(*s), name()));
        continue;
      }
      const Trial *parent = tournament(ranked);
      std::optional<Schedule> child;
      double roll = std::uniform_real_distribution<double>(0, 1)(rng);
      if (roll < 0.3 && ranked.size() > 1) {
        child = crossover(work, parent->candidate.schedule,
                          tournament(ranked)->candidate.schedule);
      } else {
        unsigned changes = roll < 0.8 ? 1 : 2;
        // Small steps while they pay off; once the best has not moved for a
        // while, larger jumps (a knob to any of its options).
        double local = stalled ? 0.3 : 0.7;
        child = detail::mutate(work, parent->candidate.schedule, changes,
                               /*alternatives=*/false, rng, local);
      }
      if (child && !detail::alreadyProposed(board, work, *child, out))
        out.push_back(
            detail::makeCandidate(kernel, std::move(*child), name(), parent->id));
    }
    return out;
  }

private:
  /// The fastest of three random members (a population of one: that one).
  const Trial *tournament(const std::vector<const Trial *> &ranked) {
    std::uniform_int_distribution<size_t> pick(0, ranked.size() - 1);
    size_t best = pick(rng);
    for (int i = 0; i < 2; ++i)
      best = std::min(best, pick(rng));
    return ranked[best];
  }

  std::optional<Schedule> crossover(const Kernel &kernel, const Schedule &a,
                                    const Schedule &b) {
    if (a.sequence != b.sequence)
      return std::nullopt;
    Schedule child = a;
    for (auto &[knob, value] : child.knobs)
      if (std::uniform_int_distribution<int>(0, 1)(rng))
        if (auto it = b.knobs.find(knob); it != b.knobs.end())
          value = it->second;
    std::string why;
    if (child.knobs == a.knobs || child.knobs == b.knobs ||
        !isValidSchedule(kernel, child, why))
      return std::nullopt;
    return child;
  }

  std::mt19937_64 rng;
};
} // namespace

std::unique_ptr<Agent> int21::search::createTilingAgent(uint64_t seed) {
  return std::make_unique<TilingAgent>(seed);
}

//===- TilingAgent.cpp - evolutionary search over tile sizes --------------===//
//
// The population is the fastest correct trials of the kernel's best
// template. Mutations step to neighbouring sizes while that improves the
// best, and jump further once it stalls. A child is a
// mutation of a parent picked by tournament (one or two tile knobs moved,
// mostly to a neighbouring size) or, between two parents of the same
// template, a crossover taking each knob from either.
//
// Each kernel is an island, and the best of the nearest islands migrate in:
// before breeding, the agent proposes the winning schedule of each of the
// few kernels of the model most like this one (the same op kind and element
// types, nearest loop sizes) that beat its own default, fitted to this
// kernel's domains. Work of one shape class tends to want the same tiles (on
// resnet18 the 3x3 convolutions of a stage differ only in their epilogue),
// and a winner one or more knobs away from the default is rarely reached by
// small steps from it.
//
//===----------------------------------------------------------------------===//

#include "AgentSupport.h"

#include <cmath>

using namespace int21::search;

namespace {
constexpr size_t kPopulation = 8;
/// The kernels whose winners migrate to a kernel: the nearest few.
constexpr size_t kMigrantSources = 3;
/// A winner migrates once it beats its own kernel's default by this factor
/// (a smaller gain may be timing noise).
constexpr double kMigrantGain = 1.02;

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
    for (auto &[parent, schedule] : migrants(board, kernel)) {
      if (out.size() >= count)
        return out;
      if (!detail::alreadyProposed(board, work, schedule, out))
        out.push_back(
            detail::makeCandidate(kernel, std::move(schedule), name(), parent));
    }
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
  /// The winners of the kernels most like `kernel` that beat their default,
  /// nearest first, each fitted to `kernel`'s domains, with the trial each
  /// comes from.
  std::vector<std::pair<unsigned, Schedule>> migrants(const Blackboard &board,
                                                      unsigned kernel) {
    const Kernel &work = board.kernels()[kernel];
    std::vector<std::pair<double, const Trial *>> sources;
    for (unsigned k = 0; k < board.kernels().size(); ++k) {
      const Trial *best = board.best(k);
      const Trial *base = board.defaultTrial(k);
      if (k == kernel || !best || !base || base->outcome != Outcome::Ok ||
          best->time.medianMs * kMigrantGain > base->time.medianMs ||
          !work.findChoice(best->candidate.schedule.sequence))
        continue;
      double distance = detail::workDistance(work, board.kernels()[k]);
      if (std::isfinite(distance))
        sources.push_back({distance, best});
    }
    std::stable_sort(sources.begin(), sources.end(),
                     [](const auto &a, const auto &b) {
                       return a.first < b.first;
                     });
    if (sources.size() > kMigrantSources)
      sources.resize(kMigrantSources);
    std::vector<std::pair<unsigned, Schedule>> out;
    for (auto &[distance, trial] : sources) {
      Schedule fitted = detail::fitToChoice(
          *work.findChoice(trial->candidate.schedule.sequence),
          trial->candidate.schedule);
      std::string why;
      if (isValidSchedule(work, fitted, why))
        out.push_back({trial->id, std::move(fitted)});
    }
    return out;
  }

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

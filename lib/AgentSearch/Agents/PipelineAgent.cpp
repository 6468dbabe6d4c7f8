//===- PipelineAgent.cpp - a bandit over pass-pipeline alternatives -------===//
//
// The arms are the values of the templates' `transform.tune.alternatives`
// (which pipeline fragment runs: unrolling, packing, lowering variants). A
// proposal is the kernel's best schedule with one alternative switched, the
// arm picked by UCB1; its reward is how much faster than its parent it ran
// (log of the ratio), a failure costing a fixed penalty.
//
//===----------------------------------------------------------------------===//

#include "AgentSupport.h"

#include <cmath>
#include <map>
#include <tuple>

using namespace int21::search;
namespace cpu = mlir::int21::cpu;

namespace {
constexpr double kFailurePenalty = -0.5;

class PipelineAgent final : public Agent {
public:
  explicit PipelineAgent(uint64_t seed) : rng(seed) {}
  llvm::StringRef name() const override { return "pipeline"; }

  std::vector<Candidate> propose(const Blackboard &board, unsigned kernel,
                                 unsigned count) override {
    const Kernel &work = board.kernels()[kernel];
    std::vector<Candidate> out;
    std::vector<const Trial *> ranked = detail::rankedTrials(board, kernel);
    if (ranked.empty())
      return out;
    const Trial *base = ranked.front();
    const Schedule &schedule = base->candidate.schedule;
    const cpu::ScheduleChoice *choice = work.findChoice(schedule.sequence);
    if (!choice)
      return out;

    // Every switch of one alternative, best UCB score first.
    struct Option {
      double score;
      std::string knob;
      int64_t value;
    };
    std::vector<Option> options;
    double total = 1;
    for (const auto &[key, arm] : arms)
      total += arm.pulls;
    for (const cpu::KnobDomain &domain : choice->domains) {
      if (!domain.alternative)
        continue;
      for (int64_t value : domain.options) {
        auto current = schedule.knobs.find(domain.name);
        if (current != schedule.knobs.end() && current->second == value)
          continue;
        const Arm &arm = arms[{schedule.sequence, domain.name, value}];
        double score =
            arm.pulls == 0
                ? 1e9 + std::uniform_real_distribution<double>(0, 1)(rng)
                : arm.reward / arm.pulls +
                      std::sqrt(2 * std::log(total) / arm.pulls);
        options.push_back({score, domain.name, value});
      }
    }
    std::stable_sort(options.begin(), options.end(),
                     [](const Option &a, const Option &b) {
                       return a.score > b.score;
                     });
    for (const Option &option : options) {
      if (out.size() >= count)
        break;
      Schedule next = schedule;
      next.knobs[option.knob] = option.value;
      std::string why;
      if (!isValidSchedule(work, next, why) ||
          detail::alreadyProposed(board, work, next, out))
        continue;
      out.push_back(detail::makeCandidate(kernel, std::move(next), name(),
                                          base->id));
    }
    // Every single switch tried: two at once.
    for (unsigned attempt = 0; out.size() < count && attempt < 10 * count;
         ++attempt) {
      std::optional<Schedule> next =
          detail::mutate(work, schedule, 2, /*alternatives=*/true, rng);
      if (next && !detail::alreadyProposed(board, work, *next, out))
        out.push_back(
            detail::makeCandidate(kernel, std::move(*next), name(), base->id));
    }
    return out;
  }

  void observe(const Blackboard &board, const Trial &trial) override {
    if (trial.candidate.agent != name() || !trial.candidate.parent)
      return;
    const Trial &parent = board.trials()[*trial.candidate.parent];
    double reward = kFailurePenalty;
    if (trial.outcome == Outcome::Ok && parent.outcome == Outcome::Ok)
      reward = std::log(parent.time.medianMs / trial.time.medianMs);
    // Credit every alternative that differs from the parent.
    for (const auto &[knob, value] : trial.candidate.schedule.knobs) {
      auto it = parent.candidate.schedule.knobs.find(knob);
      if (it == parent.candidate.schedule.knobs.end() || it->second == value)
        continue;
      Arm &arm = arms[{trial.candidate.schedule.sequence, knob, value}];
      arm.pulls += 1;
      arm.reward += reward;
    }
  }

private:
  struct Arm {
    double pulls = 0;
    double reward = 0;
  };
  /// By template, alternative and value: what switching to it gained.
  std::map<std::tuple<std::string, std::string, int64_t>, Arm> arms;
  std::mt19937_64 rng;
};
} // namespace

std::unique_ptr<Agent> int21::search::createPipelineAgent(uint64_t seed) {
  return std::make_unique<PipelineAgent>(seed);
}

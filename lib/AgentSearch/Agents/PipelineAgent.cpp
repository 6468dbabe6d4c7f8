//===- PipelineAgent.cpp - a bandit over pass-pipeline alternatives -------===//
//
// The arms are the pipelines a kernel can take: the other templates that
// schedule it (a vectorized template or the plain-loop fallback: which gains
// depends on the work, an erf that vectorizes badly, a transpose) and the
// values of the templates' `transform.tune.alternatives` (which pipeline
// fragment runs: unrolling, packing, lowering variants). A proposal is the
// default schedule of a template the kernel has not tried, or the kernel's
// best schedule with one alternative switched, the arm picked by UCB1; its
// reward is how much faster than its parent it ran (log of the ratio), a
// failure costing a fixed penalty. Arms are shared by all kernels, and an
// arm whose upper confidence bound is below zero is not proposed: a switch
// that lost by 100x on one matmul is not tried again on the next.
//
//===----------------------------------------------------------------------===//

#include "AgentSupport.h"

#include <cmath>
#include <map>
#include <tuple>

using namespace int21::search;
namespace schedule = int21::schedule;

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
    std::optional<detail::RankedTrials> found =
        detail::bestOfKernel(board, kernel);
    if (!found)
      return out;
    const Trial *base = found->best;
    const Schedule &schedule = base->candidate.schedule;
    const schedule::ScheduleChoice *choice = found->choice;

    // Every template not tried on this kernel and every switch of one
    // alternative, best UCB score first.
    struct Option {
      double score;
      std::string knob;
      int64_t value;
      const schedule::ScheduleChoice *choice = nullptr;
    };
    std::vector<Option> options;
    double total = 1;
    for (const auto &[key, arm] : arms)
      total += arm.pulls;
    auto ucb = [&](const Arm &arm) {
      return arm.pulls == 0
                 ? 1e9 + std::uniform_real_distribution<double>(0, 1)(rng)
                 : arm.reward / arm.pulls +
                       std::sqrt(2 * std::log(total) / arm.pulls);
    };
    for (const schedule::ScheduleChoice &other : work.choices) {
      if (other.sequence == schedule.sequence ||
          llvm::any_of(board.trialsOf(kernel), [&](unsigned id) {
            return board.trials()[id].candidate.schedule.sequence ==
                   other.sequence;
          }))
        continue;
      options.push_back({ucb(arms[templateArm(schedule.sequence, other.sequence)]),
                         "", 0, &other});
    }
    for (const schedule::KnobDomain &domain : choice->domains) {
      if (!domain.alternative)
        continue;
      for (int64_t value : domain.options) {
        auto current = schedule.knobs.find(domain.name);
        if (current != schedule.knobs.end() && current->second == value)
          continue;
        options.push_back(
            {ucb(arms[{schedule.sequence, domain.name, value}]), domain.name,
             value});
      }
    }
    std::stable_sort(options.begin(), options.end(),
                     [](const Option &a, const Option &b) {
                       return a.score > b.score;
                     });
    bool losing = false;
    for (const Option &option : options) {
      // Even the optimistic estimate loses: nothing worth a trial.
      losing = option.score < 0;
      if (out.size() >= count || losing)
        break;
      Schedule next = schedule;
      if (option.choice)
        next = defaultSchedule(*option.choice);
      else
        next.knobs[option.knob] = option.value;
      std::string why;
      if (!isValidSchedule(work, next, why) ||
          detail::alreadyProposed(board, work, next, out))
        continue;
      out.push_back(detail::makeCandidate(kernel, std::move(next), name(),
                                          base->id));
    }
    // Every single switch tried: two at once.
    for (unsigned attempt = 0;
         !losing && out.size() < count && attempt < 10 * count;
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
    const std::string &sequence = trial.candidate.schedule.sequence;
    if (sequence != parent.candidate.schedule.sequence) {
      Arm &arm = arms[templateArm(parent.candidate.schedule.sequence,
                                  sequence)];
      arm.pulls += 1;
      arm.reward += reward;
      return;
    }
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
  using ArmKey = std::tuple<std::string, std::string, int64_t>;
  /// The arm of switching from template `from` to another template.
  static ArmKey templateArm(const std::string &from, llvm::StringRef to) {
    return {from, ("template " + to).str(), 0};
  }
  /// By template, alternative and value (or the template switched to): what
  /// switching to it gained.
  std::map<ArmKey, Arm> arms;
  std::mt19937_64 rng;
};
} // namespace

std::unique_ptr<Agent> int21::search::createPipelineAgent(uint64_t seed) {
  return std::make_unique<PipelineAgent>(seed);
}

//===- AgentSupport.cpp - what the built-in agents share ------------------===//

#include "AgentSupport.h"

#include <algorithm>
#include <cmath>

using namespace int21::search;
namespace schedule = int21::schedule;

Agent::~Agent() = default;

std::vector<const Trial *> detail::rankedTrials(const Blackboard &board,
                                                unsigned kernel) {
  std::vector<const Trial *> ranked;
  for (unsigned id : board.trialsOf(kernel))
    if (board.trials()[id].outcome == Outcome::Ok)
      ranked.push_back(&board.trials()[id]);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Trial *a, const Trial *b) {
                     return a->time.medianMs < b->time.medianMs;
                   });
  return ranked;
}

std::optional<detail::RankedTrials>
detail::bestOfKernel(const Blackboard &board, unsigned kernel) {
  std::vector<const Trial *> ranked = rankedTrials(board, kernel);
  if (ranked.empty())
    return std::nullopt;
  const Trial *best = ranked.front();
  const schedule::ScheduleChoice *choice =
      board.kernels()[kernel].findChoice(best->candidate.schedule.sequence);
  if (!choice)
    return std::nullopt;
  return RankedTrials{std::move(ranked), best, choice};
}

Candidate detail::makeCandidate(unsigned kernel, Schedule schedule,
                                llvm::StringRef agent,
                                std::optional<unsigned> parent) {
  Candidate candidate;
  candidate.kernel = kernel;
  candidate.schedule = std::move(schedule);
  candidate.agent = agent.str();
  candidate.parent = parent;
  return candidate;
}

std::optional<Schedule> detail::mutate(const Kernel &kernel,
                                       const Schedule &schedule,
                                       unsigned changes, bool alternatives,
                                       std::mt19937_64 &rng, double local) {
  const schedule::ScheduleChoice *choice = kernel.findChoice(schedule.sequence);
  if (!choice)
    return std::nullopt;
  std::vector<const schedule::KnobDomain *> movable;
  for (const schedule::KnobDomain &domain : choice->domains)
    if (domain.alternative == alternatives && domain.options.size() > 1)
      movable.push_back(&domain);
  if (movable.empty())
    return std::nullopt;
  for (int attempt = 0; attempt < 20; ++attempt) {
    Schedule next = schedule;
    for (unsigned c = 0; c < changes; ++c) {
      const schedule::KnobDomain &domain =
          *movable[std::uniform_int_distribution<size_t>(
              0, movable.size() - 1)(rng)];
      const auto &options = domain.options;
      auto at = std::find(options.begin(), options.end(),
                          next.knobs[domain.name]);
      size_t index = at == options.end() ? 0 : at - options.begin();
      if (std::uniform_real_distribution<double>(0, 1)(rng) < local) {
        // A neighbour: one option up or down.
        bool up = (index == 0) ||
                  (index + 1 < options.size() &&
                   std::uniform_int_distribution<int>(0, 1)(rng));
        index = up ? index + 1 : index - 1;
      } else {
        index = std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng);
      }
      next.knobs[domain.name] = options[index];
    }
    std::string why;
    if (next.knobs != schedule.knobs && isValidSchedule(kernel, next, why))
      return next;
  }
  return std::nullopt;
}

unsigned detail::trialsSinceImprovement(const Blackboard &board,
                                        unsigned kernel) {
  const Trial *best = board.best(kernel);
  if (!best)
    return board.trialsOf(kernel).size();
  const std::vector<unsigned> &ids = board.trialsOf(kernel);
  return ids.end() - std::find(ids.begin(), ids.end(), best->id) - 1;
}

std::optional<Schedule> detail::randomPlausible(const Kernel &kernel,
                                                std::mt19937_64 &rng) {
  if (kernel.choices.empty())
    return std::nullopt;
  for (int attempt = 0; attempt < 50; ++attempt) {
    const schedule::ScheduleChoice &choice =
        kernel.choices[std::uniform_int_distribution<size_t>(
            0, kernel.choices.size() - 1)(rng)];
    Schedule schedule = randomSchedule(choice, rng);
    std::string why;
    if (isValidSchedule(kernel, schedule, why))
      return schedule;
  }
  return std::nullopt;
}

/// The option of `options` nearest to `value` (in log2 for sizes).
static int64_t nearestOption(llvm::ArrayRef<int64_t> options, int64_t value) {
  int64_t best = options.front();
  double bestDistance = INFINITY;
  for (int64_t option : options) {
    double distance =
        option > 0 && value > 0
            ? std::fabs(std::log2(double(option)) - std::log2(double(value)))
            : std::fabs(double(option - value));
    if (distance < bestDistance) {
      best = option;
      bestDistance = distance;
    }
  }
  return best;
}

Schedule detail::fitToChoice(const schedule::ScheduleChoice &choice,
                             const Schedule &schedule) {
  Schedule fitted;
  fitted.sequence = choice.sequence;
  for (const schedule::KnobDomain &domain : choice.domains) {
    auto known = schedule.knobs.find(domain.name);
    int64_t value = choice.defaults.lookup(domain.name);
    if (known != schedule.knobs.end())
      value = domain.alternative
                  ? (llvm::is_contained(domain.options, known->second)
                         ? known->second
                         : value)
                  : nearestOption(domain.options, known->second);
    fitted.knobs[domain.name] = value;
  }
  return fitted;
}

double detail::dimsDistance(llvm::ArrayRef<int64_t> a,
                            llvm::ArrayRef<int64_t> b) {
  if (a.size() != b.size() || a.empty())
    return INFINITY;
  double distance = 0;
  for (auto [x, y] : llvm::zip(a, b))
    distance += std::fabs(std::log2(double(std::max<int64_t>(x, 1))) -
                          std::log2(double(std::max<int64_t>(y, 1))));
  return distance;
}

double detail::workDistance(const Kernel &a, const Kernel &b) {
  if (a.opKind != b.opKind || a.elementTypes != b.elementTypes)
    return INFINITY;
  return dimsDistance(a.loops, b.loops);
}

bool detail::alreadyProposed(const Blackboard &board, const Kernel &kernel,
                             const Schedule &schedule,
                             const std::vector<Candidate> &pending) {
  if (board.tried(scheduleHash(kernel.signature, schedule)))
    return true;
  return std::any_of(pending.begin(), pending.end(), [&](const Candidate &c) {
    return c.schedule.sequence == schedule.sequence &&
           c.schedule.knobs == schedule.knobs;
  });
}

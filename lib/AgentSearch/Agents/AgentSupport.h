//===- AgentSupport.h - what the built-in agents share --------------------===//

#ifndef INT21_LIB_AGENTSEARCH_AGENTS_AGENTSUPPORT_H
#define INT21_LIB_AGENTSEARCH_AGENTS_AGENTSUPPORT_H

#include "int21/AgentSearch/Agent.h"

#include <optional>
#include <random>
#include <vector>

namespace int21::search::detail {

/// The correct trials of `kernel`, fastest first.
std::vector<const Trial *> rankedTrials(const Blackboard &board,
                                        unsigned kernel);

/// The correct trials of a kernel, fastest first, and the space of the
/// template its fastest one used.
struct RankedTrials {
  std::vector<const Trial *> ranked;
  const Trial *best;
  const int21::schedule::ScheduleChoice *choice;
};

/// rankedTrials of `kernel` with its best trial's template space;
/// std::nullopt when no trial is correct yet, or when the best one's template
/// is not among the kernel's choices.
std::optional<RankedTrials> bestOfKernel(const Blackboard &board,
                                         unsigned kernel);

/// A candidate for `kernel` proposed by `agent`.
Candidate makeCandidate(unsigned kernel, Schedule schedule,
                        llvm::StringRef agent,
                        std::optional<unsigned> parent = std::nullopt);

/// `schedule` with `changes` of its knobs moved: to a neighbouring option
/// with probability `local`, to any option otherwise. `alternatives` selects
/// which kind of knob may change (tile sizes or pipeline alternatives).
/// std::nullopt when the template has no such knob or no plausible result
/// was found.
std::optional<Schedule> mutate(const Kernel &kernel, const Schedule &schedule,
                               unsigned changes, bool alternatives,
                               std::mt19937_64 &rng, double local = 0.7);

/// Trials of `kernel` since its best time last improved.
unsigned trialsSinceImprovement(const Blackboard &board, unsigned kernel);

/// A random plausible schedule of a random template of `kernel`.
std::optional<Schedule> randomPlausible(const Kernel &kernel,
                                        std::mt19937_64 &rng);

/// `schedule` (of other work, the same template) moved into `choice`'s
/// space: each size to the nearest option in log2, each alternative kept
/// where `choice` has it; a knob `schedule` lacks takes the default.
Schedule fitToChoice(const int21::schedule::ScheduleChoice &choice,
                     const Schedule &schedule);

/// Distance between two works' loop sizes (the sum over the loops of the
/// difference in log2); infinite when they are not comparable (another
/// number of loops).
double dimsDistance(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Distance between the work of two kernels: dimsDistance of their loops
/// when they have the same op kind and element types, else infinite.
double workDistance(const Kernel &a, const Kernel &b);

/// Whether the blackboard or `pending` already holds `schedule`.
bool alreadyProposed(const Blackboard &board, const Kernel &kernel,
                     const Schedule &schedule,
                     const std::vector<Candidate> &pending);

} // namespace int21::search::detail

#endif // INT21_LIB_AGENTSEARCH_AGENTS_AGENTSUPPORT_H

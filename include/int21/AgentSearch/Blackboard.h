//===- Blackboard.h - what the search has tried and measured --------------===//
//
// Candidates (a schedule for one kernel, with who proposed it and from which
// parent) and trials (a candidate's outcome: time, or why it was rejected),
// kept on a blackboard that every agent reads. The blackboard belongs to the
// coordinator's thread: agents read it while proposing and are told each
// trial in turn; nothing else touches it.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_BLACKBOARD_H
#define INT21_AGENTSEARCH_BLACKBOARD_H

#include "int21/AgentSearch/Kernel.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace int21::search {

/// A proposal: a schedule for a kernel.
struct Candidate {
  unsigned kernel = 0;
  Schedule schedule;
  /// The agent that proposed it.
  std::string agent;
  /// The trial it was derived from, if any.
  std::optional<unsigned> parent;
};

/// A canonical hash of a schedule for the kernel of `signature`: equal
/// schedules (same template, same values) hash equal whatever their order.
uint64_t scheduleHash(llvm::StringRef signature, const Schedule &schedule);

/// `cpu.matmul{cache_k=256,par_m=64,...}`.
std::string describe(const Schedule &schedule);

/// The default schedule of a template.
Schedule defaultSchedule(const int21::schedule::ScheduleChoice &choice);

/// Whether `schedule` is a point of `kernel`'s space (a template of it, every
/// knob in its domain, the tiles plausible); `why` says why not.
bool isValidSchedule(const Kernel &kernel, const Schedule &schedule,
                     std::string &why);

/// A uniformly random point of `choice`'s space.
Schedule randomSchedule(const int21::schedule::ScheduleChoice &choice,
                        std::mt19937_64 &rng);

enum class Outcome {
  Ok,
  /// Not a point of the kernel's space (an external agent's proposal).
  Invalid,
  /// The compiler rejected it with an error.
  CompileError,
  CompileCrash,
  CompileTimeout,
  /// It ran but its outputs differ from the reference's.
  Wrong,
  RunError,
  RunCrash,
  RunTimeout,
};
llvm::StringRef outcomeName(Outcome outcome);

/// A measured time: the median of `reps` runs and their spread.
struct Timing {
  double medianMs = 0;
  double minMs = 0;
  double maxMs = 0;
  /// (p90 - p10) / median.
  double spread = 0;
  unsigned reps = 0;
};

struct Trial {
  /// Position in the blackboard's trials.
  unsigned id = 0;
  Candidate candidate;
  uint64_t hash = 0;
  Outcome outcome = Outcome::Ok;
  /// What went wrong, for every outcome but Ok.
  std::string error;
  /// The time, in the machine's state when the kernel's default schedule
  /// was measured: a candidate is timed in alternation with the default, and
  /// its own times are scaled by the default trial's median over the
  /// default's median in that alternation (`measuredMs`, `defaultNowMs`).
  /// Unscaled for the defaults and for a candidate that gave up early.
  Timing time;
  /// The candidate's median as timed, and the default's beside it (both 0
  /// when not timed in alternation).
  double measuredMs = 0;
  double defaultNowMs = 0;
  /// Largest difference from the reference's outputs.
  double maxError = 0;
  double compileSeconds = 0;
  /// The default schedule, measured first for every kernel.
  bool isDefault = false;
  /// Seconds since the search started, when it was recorded.
  double at = 0;
};

class Blackboard {
public:
  explicit Blackboard(std::vector<Kernel> kernels);

  const std::vector<Kernel> &kernels() const { return kernelList; }
  const std::vector<Trial> &trials() const { return trialList; }
  /// The trials of `kernel`, in order.
  const std::vector<unsigned> &trialsOf(unsigned kernel) const {
    return byKernel[kernel];
  }
  /// The fastest correct trial of `kernel`, or null.
  const Trial *best(unsigned kernel) const;
  /// The default schedule's trial of `kernel`, or null before it ran.
  const Trial *defaultTrial(unsigned kernel) const;
  /// Whether a schedule with this hash has been recorded.
  bool tried(uint64_t hash) const { return hashes.contains(hash); }
  /// Records a trial (its id is set here) and returns it.
  const Trial &record(Trial trial);

private:
  std::vector<Kernel> kernelList;
  std::vector<Trial> trialList;
  std::vector<std::vector<unsigned>> byKernel;
  std::vector<std::optional<unsigned>> bestOf, defaultOf;
  llvm::DenseSet<uint64_t> hashes;
};

} // namespace int21::search

#endif // INT21_AGENTSEARCH_BLACKBOARD_H

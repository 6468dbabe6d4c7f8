//===- Trials.h - candidates compiled and measured in child processes -----===//
//
// A search's trials run in children: int21-compile compiles a candidate's
// kernel module into an engine (many at once), then a measurement child runs
// it against its kernel's reference engine on fresh inputs and times it, one
// at a time, beside the kernel's default schedule once that is the
// reference (paired timing). The TrialRunner owns the working directory the
// kernel modules and engines are written to; Winners keeps what timing the
// winners again after the search decided.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_LIB_AGENTSEARCH_TRIALS_H
#define INT21_LIB_AGENTSEARCH_TRIALS_H

#include "Process.h"
#include "int21/AgentSearch/Tuner.h"
#include "int21/AgentSearch/Worker.h"

#include "llvm/ADT/SmallString.h"

#include <optional>
#include <string>
#include <vector>

namespace int21::search {

/// A candidate on its way through compile and measurement.
struct Work {
  Candidate candidate;
  uint64_t hash = 0;
  bool isDefault = false;
  std::string fault;
  /// How the compile child schedules the kernel.
  KernelSchedules schedules = KernelSchedules::Default;
  std::string mlirPath, enginePath;
  ProcessResult compile;
  std::string compileLog;
  /// A winner timed again after the search: always beside its default.
  bool confirm = false;
  /// Set when the candidate never reaches the compiler.
  std::optional<Outcome> rejected;
  std::string rejection;
};

/// The threads the engine runs on: `threads`, or an engine's default (0).
unsigned runThreads(unsigned threads);

/// "signal 9 (Killed)".
std::string signalName(int signal);

/// The first line of `path` that says "error", or its last line.
std::string firstErrorLine(llvm::StringRef path);

/// Compiles and measures the candidates of one search, reading its
/// blackboard for each kernel's default and best trials. Used from the
/// coordinator's thread; compileAll starts its own threads.
class TrialRunner {
public:
  TrialRunner(mlir::ModuleOp module, const TuneOptions &options,
              const Blackboard &board)
      : module(module), options(options), board(board) {}
  /// Removes the working directory, unless TuneOptions::keepWorkDir.
  ~TrialRunner();
  TrialRunner(const TrialRunner &) = delete;
  TrialRunner &operator=(const TrialRunner &) = delete;

  /// Creates the working directory and parses every kernel's module.
  llvm::Error setUp();

  /// Compiles that run at once (TuneOptions::jobs resolved).
  unsigned jobs() const { return parallel; }
  llvm::StringRef workDir() const { return directory; }
  /// The fault injected into trial `id` (TuneOptions::faults), or "".
  std::string faultAt(unsigned id) const;

  /// Writes the kernel module of `work` (its schedule set unless it is a
  /// default) and names its engine.
  llvm::Error write(Work &work);
  /// Compiles every candidate of `batch` not rejected, in parallel.
  void compileAll(std::vector<Work> &batch);
  /// Measures a compiled candidate against its kernel's reference engine:
  /// the trial to record, its outcome said by the children.
  Trial measure(Work &work);
  /// The engine the candidates of `kernel` are compared with.
  void setReference(unsigned kernel, std::string enginePath) {
    referenceEngines[kernel] = std::move(enginePath);
  }

private:
  mlir::ModuleOp module;
  const TuneOptions &options;
  const Blackboard &board;
  llvm::SmallString<128> directory;
  unsigned parallel = 1;
  unsigned nextFile = 0;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> kernelModules;
  std::vector<std::string> referenceEngines;
};

/// Each kernel's winner as the search keeps it: its best trial, or its
/// default's when the best, timed again after the search, was not kept.
class Winners {
public:
  explicit Winners(const Blackboard &board) : board(board) {}

  /// Forgets every verdict: the winners are about to be timed again.
  void clear() { verdicts.assign(board.kernels().size(), std::nullopt); }
  void confirm(unsigned kernel, Confirmation verdict) {
    verdicts[kernel] = std::move(verdict);
  }
  /// The verdict on `kernel`'s winner timed again, when it was.
  const Confirmation *verdict(unsigned kernel) const {
    return kernel < verdicts.size() && verdicts[kernel] ? &*verdicts[kernel]
                                                        : nullptr;
  }
  /// Kernel `kernel`'s best trial, or its default's when the best, timed
  /// again, was not kept.
  const Trial *keptBest(unsigned kernel) const;
  /// keptBest's time: as timed again after the search when it was.
  double keptMs(unsigned kernel) const;

private:
  const Blackboard &board;
  std::vector<std::optional<Confirmation>> verdicts;
};

} // namespace int21::search

#endif // INT21_LIB_AGENTSEARCH_TRIALS_H

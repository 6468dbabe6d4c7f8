//===- Progress.h - what a search says while it runs, and its result ------===//
//
// A search says what it tunes with what, then one line per kernel: on a
// progress bar (a terminal), or as plain lines when a kernel's best
// improves. Every trial can go to a JSON-lines log as it is recorded. At
// the end the blackboard is summed up into the TuneResult: the winners kept,
// the speed-up over the default schedules, and the merges chosen.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_LIB_AGENTSEARCH_PROGRESS_H
#define INT21_LIB_AGENTSEARCH_PROGRESS_H

#include "AgentTeam.h"
#include "KnowledgePolicy.h"
#include "TrialBudget.h"

#include <memory>

namespace int21::search {

class ProgressLines {
public:
  ProgressLines(llvm::raw_ostream &os, const TuneOptions &options,
                const Blackboard &board, const TrialBudget &budget,
                const KnowledgePolicy &knowledge)
      : os(os), options(options), board(board), budget(budget),
        knowledge(knowledge) {}

  /// Opens the tuning log (TuneOptions::logPath) when there is one.
  llvm::Error openLog();
  /// Writes `trial` to the log as a JSON line.
  void log(const Trial &trial);

  /// The first line: what is tuned, with which agents, within what budget.
  void start(const AgentTeam &team);
  /// Kernel `kernel`'s line, on the bar, or as a plain line with `force`.
  void kernel(unsigned kernel, bool force);
  /// The search is over: the bar ends, or every kernel gets a last line.
  void searchEnded();
  /// The winners of `kernels` kernels are timed again.
  void confirming(size_t kernels);
  /// Timed again, the winner of `kernel` gave way to the default.
  void demoted(unsigned kernel, const Candidate &winner,
               const Confirmation &verdict);

private:
  llvm::raw_ostream &os;
  const TuneOptions &options;
  const Blackboard &board;
  const TrialBudget &budget;
  const KnowledgePolicy &knowledge;
  std::unique_ptr<llvm::raw_fd_ostream> logFile;
};

/// The result of a search that ended: per kernel its default and kept
/// winner (or its record from the knowledge base), the merges that beat
/// their parts by TuneOptions::mergeMargin (greedily over `sites`), and the
/// whole model's speed-up.
TuneResult summarizeSearch(const Blackboard &board,
                           const KnowledgePolicy &knowledge,
                           const Winners &winners, const TrialBudget &budget,
                           llvm::ArrayRef<SiteKey> sites,
                           const TuneOptions &options);

} // namespace int21::search

#endif // INT21_LIB_AGENTSEARCH_PROGRESS_H

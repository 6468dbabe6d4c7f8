//===- KnowledgePolicy.h - what a search takes from and gives the KB ------===//
//
// Before a search: each kernel's trusted record (isTrustedRecord) is its
// schedule without a trial, the schedules known to lose on it are not tried
// again, and every record of the target seeds the knowledge agent. During
// it: a kernel's best is stored as soon as it improves (a search killed
// midway keeps what it found). After it: each kernel's kept winner, its
// losers and the merges chosen. A knowledge base that cannot be written is
// warned about once; the search goes on.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_LIB_AGENTSEARCH_KNOWLEDGEPOLICY_H
#define INT21_LIB_AGENTSEARCH_KNOWLEDGEPOLICY_H

#include "Trials.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <string>
#include <vector>

namespace int21::search {

class KnowledgePolicy {
public:
  /// Warnings go to `progress`.
  KnowledgePolicy(const TuneOptions &options, const Blackboard &board,
                  llvm::raw_ostream &progress)
      : kb(options.knowledgeBase), options(options), board(board),
        progress(progress) {}

  /// Looks up every kernel in the knowledge base (none: nothing to do).
  llvm::Error load();

  /// Kernel `kernel`'s trusted record, used without a trial.
  const std::optional<KnowledgeRecord> &reused(unsigned kernel) const {
    return reusedRecords[kernel];
  }
  /// Whether the schedule `hash` is known to lose on `kernel`.
  bool knownLoser(unsigned kernel, uint64_t hash) const {
    return losers[kernel].contains(hash);
  }
  /// Every record of the target: what the knowledge agent proposes from.
  llvm::ArrayRef<KnowledgeRecord> records() const { return known; }

  /// Stores kernel `kernel`'s kept winner (unless its schedule came from
  /// the knowledge base or its default did not run); `roofline` holds the
  /// kernels' bounds.
  void storeBest(unsigned kernel, const Winners &winners,
                 llvm::ArrayRef<double> roofline);
  /// At the end: every kernel's kept winner and losers, and the merges of
  /// `result`.
  void storeAll(const TuneResult &result, const Winners &winners,
                llvm::ArrayRef<double> roofline);

private:
  void warn(llvm::Error error);

  KnowledgeBase *kb;
  const TuneOptions &options;
  const Blackboard &board;
  llvm::raw_ostream &progress;
  /// The target records name.
  std::string target;
  std::vector<std::optional<KnowledgeRecord>> reusedRecords;
  std::vector<llvm::DenseSet<uint64_t>> losers;
  std::vector<KnowledgeRecord> known;
  bool warned = false;
};

} // namespace int21::search

#endif // INT21_LIB_AGENTSEARCH_KNOWLEDGEPOLICY_H

//===- KnowledgeBase.h - what the search learned, kept in SQLite ----------===//
//
// The knowledge base keeps every winner of a search with its evidence, so
// that the next model containing the same work is compiled with the winner
// at once, and work never seen starts from what won on similar work.
//
// A record is keyed by the work's structural signature (the kernel module's
// digest: op kinds, indexing maps, element types, shapes), the target
// ("cpu:x86_64-pc-linux-gnu:sapphirerapids", "sm_90"), the compiler version
// and the machine it was measured on. It holds the schedule, the measured
// times, the correctness evidence, the roofline bound and the lineage.
// Candidates that lost are kept compactly (their schedule hash and why they
// lost), so that a later search does not try them again.
//
// One SQLite file in WAL mode: several processes may read and write it at
// once (writes are short transactions that wait for each other), a process
// killed at any point leaves every committed record in place, and a file
// that is not a knowledge base (or one of a newer schema) is refused.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_KNOWLEDGEBASE_H
#define INT21_AGENTSEARCH_KNOWLEDGEBASE_H

#include "int21/AgentSearch/Blackboard.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace int21::search {

/// "1 thread", "2 threads": what kernels were timed on (KnowledgeRecord,
/// TuneOptions::threads), for messages and reports.
std::string threadsText(unsigned threads);

/// "64x128x256": a record's loop sizes as the knowledge base stores them and
/// messages and reports show them.
std::string dimsText(llvm::ArrayRef<int64_t> dims);

/// The best schedule known for one piece of work on one target.
struct KnowledgeRecord {
  /// Row id, set by the knowledge base.
  int64_t id = 0;

  // The key.
  std::string signature;
  std::string target;
  std::string compilerVersion;
  std::string machine;
  /// The threads the kernel was timed on (the engine's run threads): the
  /// best schedule for one thread may leave a second core idle.
  unsigned threads = 1;

  // The work, for similarity and for matchers: the main op ("matmul",
  // "conv_2d_nchw_fchw", "generic"), the template's dimensions, the element
  // types ("f32" or "f16,f32"), and the kernel module itself.
  std::string opKind;
  std::vector<int64_t> dims;
  std::string elementTypes;
  std::string kernelIR;

  Schedule schedule;

  // The evidence.
  Timing time;
  /// The default schedule's median on the same machine.
  double defaultMs = 0;
  uint64_t seed = 0;
  double maxError = 0;
  /// The tolerance the outputs were compared with ("f32: rtol 1e-3 ...").
  std::string tolerance;
  double rooflineMs = 0;

  // The lineage: the agent that found it and the schedule it came from.
  std::string agent;
  std::string parent;
  /// When it was recorded (UTC, ISO 8601).
  std::string createdAt;

  /// Default over best time.
  double speedup() const {
    return time.medianMs > 0 ? defaultMs / time.medianMs : 1;
  }
  /// The achieved fraction of the roofline bound.
  double rooflineFraction() const {
    return time.medianMs > 0 ? rooflineMs / time.medianMs : 0;
  }
};

/// A candidate that lost: not to be tried again on the same work.
struct KnowledgeLoser {
  std::string signature;
  std::string target;
  uint64_t scheduleHash = 0;
  /// "slower" or why it failed ("wrong", "compile-crash", ...).
  std::string outcome;
  /// Its time over the winner's, for "slower".
  double ratio = 0;
};

/// A fusion merge that won: two kernels of a model fused into one.
struct KnowledgeMerge {
  std::string producer;
  std::string consumer;
  std::string merged;
  std::string target;
  double gainMs = 0;
};

class KnowledgeBase {
public:
  /// The schema this build writes; older files are migrated on open.
  static constexpr int kSchemaVersion = 2;

  ~KnowledgeBase();
  KnowledgeBase(const KnowledgeBase &) = delete;
  KnowledgeBase &operator=(const KnowledgeBase &) = delete;

  /// Opens (creating it, and its directory, unless `readOnly`) the
  /// knowledge base at `path`. A file that is not a knowledge base, is
  /// corrupt, or has a newer schema is refused with an error naming it.
  static llvm::Expected<std::unique_ptr<KnowledgeBase>>
  open(llvm::StringRef path, bool readOnly = false);

  /// The knowledge base a compile uses: `path`, or the default one when
  /// empty. A search opens it for writing (creating it); otherwise it is
  /// opened for reading, and a missing default one is no knowledge base
  /// (null), a missing named one an error.
  static llvm::Expected<std::unique_ptr<KnowledgeBase>>
  openForCompile(llvm::StringRef path, bool tuning);

  /// $XDG_CACHE_HOME/int21/kb.sqlite, or ~/.cache/int21/kb.sqlite.
  static std::string defaultPath();

  /// This machine, as records name it ("<host> (<cpu>)").
  static std::string thisMachine();

  const std::string &path() const { return filePath; }

  /// Every record of `signature` on `target`, fastest first.
  llvm::Expected<std::vector<KnowledgeRecord>>
  find(llvm::StringRef signature, llvm::StringRef target) const;
  /// Every record (of `target`, when not empty), by id.
  llvm::Expected<std::vector<KnowledgeRecord>>
  records(llvm::StringRef target = "") const;
  llvm::Expected<std::optional<KnowledgeRecord>> get(int64_t id) const;

  /// Stores `record` in one transaction. A record with the same key (work,
  /// target, compiler version, machine) is replaced when `record` is faster
  /// or is the same schedule measured again, or always with `replace` (a
  /// search whose winner, timed again, lost to the default). Returns the
  /// record's id.
  llvm::Expected<int64_t> put(const KnowledgeRecord &record,
                              bool replace = false);
  /// Stores losers (duplicates keep the first) in one transaction.
  llvm::Error putLosers(const std::vector<KnowledgeLoser> &losers);
  llvm::Error putMerge(const KnowledgeMerge &merge);

  /// The schedule hashes that lost on `signature` and `target`.
  llvm::Expected<std::vector<uint64_t>> losers(llvm::StringRef signature,
                                               llvm::StringRef target) const;
  llvm::Expected<std::vector<KnowledgeLoser>> allLosers() const;
  llvm::Expected<std::vector<KnowledgeMerge>>
  merges(llvm::StringRef target = "") const;

  /// Deletes the records `ids`; returns how many were deleted.
  llvm::Expected<unsigned> remove(const std::vector<int64_t> &ids);

  /// SQLite's integrity check and the schema's own invariants.
  llvm::Error check() const;

  /// Every record read as a compile reads it (find): knobs that are not a
  /// JSON object of integers, a template or knob the templates do not have,
  /// a value outside its domain for the record's work. The error names the
  /// first few records and what is wrong with each.
  llvm::Error checkRecords() const;

private:
  KnowledgeBase(sqlite3 *db, std::string path) : db(db), filePath(path) {}
  llvm::Error migrate();

  sqlite3 *db;
  std::string filePath;
};

} // namespace int21::search

#endif // INT21_AGENTSEARCH_KNOWLEDGEBASE_H

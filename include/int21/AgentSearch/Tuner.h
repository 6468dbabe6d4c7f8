//===- Tuner.h - the coordinator: search every kernel of a model ----------===//
//
// tuneModule cuts a model (lowered to linalg, prepared for scheduling) into
// kernels, measures each kernel's default schedule against the reference
// lowering, then spends the trial budget: kernels get trials by their share
// of the model's time, agents by how much they have improved the best times
// (a bandit). Candidates are compiled in parallel child processes and
// measured one at a time, each in a child process with a time limit; only a
// correct candidate's time counts. The winners come back as schedules by
// kernel signature, for applySchedules.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_TUNER_H
#define INT21_AGENTSEARCH_TUNER_H

#include "int21/AgentSearch/Blackboard.h"
#include "int21/AgentSearch/Fusion.h"
#include "int21/AgentSearch/KnowledgeBase.h"
#include "int21/Compiler/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace int21::search {

struct TuneOptions {
  /// Trials beyond each kernel's default schedule (0: no limit).
  unsigned budget = 0;
  /// Wall-clock seconds for the whole search (0: no limit). With neither
  /// limit, a budget of 20 trials per kernel applies.
  double seconds = 0;
  uint64_t seed = 21;
  /// Compiles run in parallel (0: the hardware's threads).
  unsigned jobs = 0;
  /// Threads the kernels are timed with: those the engine will run on
  /// (0: runtime::Engine::defaultThreads(), what an engine runs on by default). A
  /// schedule's speed depends on them (how many thread tiles it has, how
  /// evenly they divide among the threads), and a knowledge-base record
  /// holds for the thread count it was measured on.
  unsigned threads = 0;
  /// Time per measurement, after the warm-up.
  double measureSeconds = 0.5;
  /// Time each candidate in alternation with its kernel's default schedule
  /// (within measureSeconds) and scale its time by the default's drift.
  bool pairedTiming = true;
  /// After the search, time each kernel's winner again (beside its default,
  /// on fresh inputs checked again): a winner that fails or is no faster
  /// gives way to the default, and a kept one's time is the one measured
  /// then (confirmWinner). The search's best is the fastest of many noisy
  /// measurements: its speed-up is biased up, a confirmation's is not.
  bool confirmWinners = true;
  /// Built-in agents by name (builtinAgents() in Agent.h); empty: the
  /// default team (defaultTeam()); {"none"}: only the external agents.
  std::vector<std::string> agents;
  /// Merged kernels (distinct fusion sites, see Fusion.h) put on the
  /// blackboard for the fusion agent at most; none without that agent.
  unsigned maxMerges = 16;
  /// A merge is chosen when its merged kernel beats its parts' best times
  /// by more than this fraction (the timing noise). Negative: chosen even
  /// when slower (to check merged engines).
  double mergeMargin = 0.03;
  /// External agents, one command each (docs/agent-protocol.md).
  std::vector<std::string> agentCommands;
  /// Where to write the JSON-lines log of every trial (empty: none).
  std::string logPath;
  /// Where to write the report (empty: none).
  std::string reportDir;
  /// The int21-compile executable the children run.
  std::string workerExecutable;
  /// The engine target (a CPU: the search times kernels here); records in
  /// the knowledge base are made and looked up under its name.
  Target target;
  double compileTimeout = 120;
  double runTimeout = 60;
  /// A progress bar (on a terminal) rather than plain lines.
  bool progressBar = false;
  /// Keep the working directory (kernels, engines) for inspection.
  bool keepWorkDir = false;
  /// The knowledge base (null: none). A kernel it holds a record of, made by
  /// this compiler on this machine, takes that record's schedule without a
  /// trial; records from elsewhere and of similar work seed the search
  /// (the knowledge agent), known losers are not tried again, and every
  /// kernel's winner and losers are stored into it at the end.
  KnowledgeBase *knowledgeBase = nullptr;
  /// Test hook: faults injected into trials by id ("crash", "hang",
  /// "wrong" in the compile child; "run-crash", and "run-slow" (every time
  /// reported ten times what was measured: a slow spell of the machine) in
  /// the measurement child). The winners timed again after the search
  /// count on after the trials' ids.
  std::map<unsigned, std::string> faults;
};

struct KernelSummary {
  std::string signature;
  std::string name;
  /// The kernel class its default template schedules (kernelClass()).
  std::string kernelClass;
  unsigned instances = 0;
  unsigned trials = 0;
  double defaultMs = 0;
  double bestMs = 0;
  double rooflineMs = 0;
  /// Who found the winner ("default" when nothing beat it).
  std::string winnerAgent;
  Schedule winner;
  /// The search's best time; bestMs is the winner's confirmed time (or the
  /// default's, when the winner gave way to it). Equal when unconfirmed.
  double searchMs = 0;
  /// Whether the winner was timed again after the search, and when it gave
  /// way to the default, why (the search's winner then named in it).
  bool confirmed = false;
  std::string demoted;
  /// Why the kernel could not be tuned, when it could not.
  std::string error;
  /// For a merged kernel: the kernels it replaces (Kernel::mergeOf), their
  /// best times summed, and the sites of the model it was chosen for.
  std::optional<std::pair<unsigned, unsigned>> mergeOf;
  double partsMs = 0;
  unsigned mergedSites = 0;
};

/// The class of work a schedule choice is for, in words for the report:
/// the template's kind, with the shape that sets it apart (a one-row
/// matmul, a convolution's window and stride).
std::string kernelClass(const int21::schedule::ScheduleChoice &choice);

struct TuneResult {
  /// The winning schedule of every tuned kernel, by signature (merged
  /// kernels included: applyMerges first, then applySchedules).
  std::map<std::string, Schedule> schedules;
  /// The merges chosen, best gain first: a merged kernel faster than its
  /// parts' best times by more than the measurement spread.
  std::vector<FusionMerge> merges;
  /// Sites of the model those merges merge.
  unsigned mergedSites = 0;
  std::vector<KernelSummary> kernels;
  unsigned trials = 0;
  /// Kernels whose schedule came from the knowledge base.
  unsigned reused = 0;
  /// Default over tuned time of the whole model (kernel times weighted by
  /// their instances; a merged site counts its merged kernel's best time in
  /// place of its parts').
  double speedup = 1;
  double seconds = 0;
  /// The threads the kernels were timed on (TuneOptions::threads resolved).
  unsigned threads = 1;
};

/// The verdict on a kernel's winner timed again after the search: `again`
/// is that measurement (a trial: timed beside the default and scaled to the
/// default's `defaultMs` under paired timing, as a search trial is). Kept
/// when it ran correctly and faster than `defaultMs`.
struct Confirmation {
  bool kept = false;
  /// The winner's time over the default's, as timed again (0 when it did
  /// not run correctly).
  double ratio = 0;
  /// Why it was not kept.
  std::string why;
};
Confirmation confirmWinner(const Trial &again, double defaultMs);

/// Tunes every kernel of `module` (lowered to linalg and prepared; left
/// unchanged) and, with the fusion agent, tries merging fusion groups.
/// Progress goes to `progress`. SIGINT, SIGTERM or SIGHUP stop it with an
/// error (searchInterruption() then names the signal): its child processes
/// are killed, what it committed to the knowledge base stays, and its
/// working files are removed.
llvm::Expected<TuneResult> tuneModule(mlir::ModuleOp module,
                                      const TuneOptions &options,
                                      llvm::raw_ostream &progress);

/// The signal that stopped the last search, 0 if none did.
int searchInterruption();

/// The whole --tune flow on an imported int21 `module`: lowers it to linalg,
/// prepares it for scheduling, tunes it (tuneModule), then applies the chosen
/// merges and the winners' schedules to it. The module is then ready for
/// int21::compileToEngine. Lowering errors go to the module's diagnostics.
llvm::Expected<TuneResult> tuneAndApply(mlir::ModuleOp module,
                                        const TuneOptions &options,
                                        llvm::raw_ostream &progress);

/// Lowers an imported int21 `module` to linalg, folds the weights' data
/// movement and prepares it for scheduling: the module the search cuts
/// kernels from, and that schedules (applySchedules, applyLibrary) are given
/// to before int21::compileToEngine.
llvm::Error lowerForScheduling(mlir::ModuleOp module);

/// Whether a knowledge-base record holds here as it is: made by this
/// compiler version, on this machine (KnowledgeBase::thisMachine()), timed
/// on `threads` threads. Only such a record's schedule is used without a
/// trial (by a search and by applyKnowledge); any other is a starting point,
/// measured again before it is trusted.
bool isTrustedRecord(const KnowledgeRecord &record, unsigned threads);

/// The fastest of `kb`'s records of `signature` on `target` that is trusted
/// (isTrustedRecord) and, when `fits` is given, that `fits`; none when no
/// record is.
llvm::Expected<std::optional<KnowledgeRecord>> findTrustedRecord(
    const KnowledgeBase &kb, llvm::StringRef signature, llvm::StringRef target,
    unsigned threads,
    llvm::function_ref<bool(const KnowledgeRecord &)> fits = nullptr);

/// Without a search: lowers an imported int21 `module` as tuneAndApply does
/// and gives every kernel that `kb` holds a trusted record of
/// (findTrustedRecord) for `kbTarget`, timed on `threads` threads (0:
/// Engine::defaultThreads()), that record's schedule (and merges the sites
/// whose merge won).
struct KnowledgeApplied {
  /// Distinct kernels of the model, and those that got a schedule.
  unsigned kernels = 0;
  unsigned scheduled = 0;
  /// The threads whose records applied.
  unsigned threads = 1;
};
llvm::Expected<KnowledgeApplied> applyKnowledge(mlir::ModuleOp module,
                                        const KnowledgeBase &kb,
                                        llvm::StringRef kbTarget,
                                        unsigned threads = 0);

/// The search's last line: "tuned K kernels in T trials (R reused from the
/// knowledge base): X.XXx faster than the default schedules", and the
/// merges applied when there were any (no newline).
std::string summarizeTuning(const TuneResult &result);

/// Writes the report: DIR/report.md (per kernel: default and best time,
/// trials, the winning agent and schedule) and DIR/kernel-N.svg (best time
/// against trials, one line per agent).
llvm::Error writeReport(const Blackboard &board, const TuneResult &result,
                        llvm::StringRef dir);

/// Test hook of the compile child (WorkerRequest::fault): "crash" raises
/// SIGSEGV, "hang" never returns, "wrong" changes the arithmetic of the
/// first linalg.generic (a multiplication becomes an addition, an addition a
/// subtraction, a maximum a minimum) so that it computes a wrong result. Fails for an unknown
/// kind or a module with nothing to change.
llvm::Error injectFault(mlir::ModuleOp module, llvm::StringRef kind);

/// One trial as a JSON object (a line of the tuning log).
std::string trialToJSONLine(const Blackboard &board, const Trial &trial);

} // namespace int21::search

#endif // INT21_AGENTSEARCH_TUNER_H

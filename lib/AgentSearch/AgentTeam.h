//===- AgentTeam.h - the agents of a search and the bandit over them ------===//
//
// The team is the built-in agents named (the default team when none is) and
// the external agents. For a batch, an agent that seeds each kernel has its
// first proposal for a kernel tried first; then each candidate comes from
// the agent with the best upper confidence bound on its improvements of the
// best times (a bandit). Proposals already tried, known to lose or already
// in the batch are dropped, invalid ones recorded as such; an agent that
// says the search must stop (Agent::failure) ends it with that error.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_LIB_AGENTSEARCH_AGENTTEAM_H
#define INT21_LIB_AGENTSEARCH_AGENTTEAM_H

#include "Trials.h"
#include "int21/AgentSearch/Agent.h"
#include "int21/AgentSearch/Bandit.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <vector>

namespace int21::search {

/// Whether the team of `options` has an agent that proposes merges (the
/// merged kernels are then put on the blackboard).
bool teamProposesMerges(const TuneOptions &options);

class AgentTeam {
public:
  /// Builds the built-in agents of `options` (seeded by their place in the
  /// team), the knowledge agent from `records`, then the external agents.
  llvm::Error build(const TuneOptions &options,
                    llvm::ArrayRef<KnowledgeRecord> records);

  const std::vector<std::unique_ptr<Agent>> &members() const { return agents; }
  /// Whether an agent seeds each kernel (Agent::seedsEachKernel).
  bool seeds() const {
    return llvm::any_of(agents, [](const std::unique_ptr<Agent> &agent) {
      return agent->seedsEachKernel();
    });
  }

  /// Up to `size` new candidates for `kernel`; none when every agent has
  /// run out of ideas for it. `knownLoser` says a schedule hash not to try.
  /// An error when an agent's proposal must stop the search.
  llvm::Expected<std::vector<Work>> proposeBatch(const Blackboard &board, unsigned kernel,
                                 unsigned size,
                                 llvm::function_ref<bool(uint64_t)> knownLoser);
  /// The first trial of merged kernel `kernel`: the proposal of an agent
  /// that proposes merges, if one has it.
  std::optional<Work> proposeMerge(const Blackboard &board, unsigned kernel);

  /// Tells every agent of `recorded`, and rewards the one that proposed it
  /// by how much it improved on `beforeMs` (its kernel's best before it).
  void observe(const Blackboard &board, const Trial &recorded, double beforeMs);
  /// The search has ended.
  void finish();

private:
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<ArmStats> stats;
};

} // namespace int21::search

#endif // INT21_LIB_AGENTSEARCH_AGENTTEAM_H

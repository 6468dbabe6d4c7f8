//===- Agent.h - the interface every search agent implements --------------===//
//
// An agent is a strategy: it reads the blackboard and proposes candidates
// for a kernel; it is told every trial's outcome. The coordinator asks agents
// in turn, validates and deduplicates what they propose, and gives each a
// share of the trials by how much it has improved the best times. Agents are
// used from the coordinator's thread only; each owns its random generator,
// seeded from the search's seed, so a search is deterministic for a seed up
// to timing noise.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_AGENT_H
#define INT21_AGENTSEARCH_AGENT_H

#include "int21/AgentSearch/Blackboard.h"
#include "int21/AgentSearch/KnowledgeBase.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace int21::search {

class Agent {
public:
  virtual ~Agent();
  /// A short name for logs and reports ("tiling", "random", ...).
  virtual llvm::StringRef name() const = 0;
  /// Up to `count` candidates for `kernel`, not yet tried if it can help it
  /// (the coordinator drops duplicates and invalid ones).
  virtual std::vector<Candidate> propose(const Blackboard &board,
                                         unsigned kernel, unsigned count) = 0;
  /// Whether this agent's first proposal for a kernel is that kernel's first
  /// trial after the default, before the bandit chooses (what won on the
  /// same or similar work seeds the search).
  virtual bool seedsEachKernel() const { return false; }
  /// Called with every recorded trial, whoever proposed it.
  virtual void observe(const Blackboard &board, const Trial &trial) {}
  /// Called once when the search ends.
  virtual void finish() {}
  /// Why the search must stop, once this agent has done something it must
  /// not (an external agent's proposal outside the kernel's space); empty
  /// while it has not.
  virtual std::string failure() const { return {}; }
};

/// Uniformly random points of the space: the baseline.
std::unique_ptr<Agent> createRandomAgent(uint64_t seed);
/// Evolutionary search over tile knobs: mutation and crossover of the best
/// correct candidates.
std::unique_ptr<Agent> createTilingAgent(uint64_t seed);
/// A bandit over the pass-pipeline alternatives, applied to the best tiles.
std::unique_ptr<Agent> createPipelineAgent(uint64_t seed);
/// Ranks many proposals with a model fitted on the measured trials and
/// proposes the most promising.
std::unique_ptr<Agent> createCostModelAgent(uint64_t seed);
/// Proposes merging fusion groups: the default schedule of a merged kernel
/// (Kernel::mergeOf) not yet tried, for the coordinator to measure against
/// its parts; then the parts' best schedules where the merged kernel has
/// their template. It proposes nothing for any other kernel.
std::unique_ptr<Agent> createFusionAgent();
/// What won before: the schedules `records` hold for the same work (from
/// another compiler version or machine: to be measured again), then those of
/// the most similar work (same op kind and element types, nearest
/// dimensions), fitted to the kernel's knob domains.
std::unique_ptr<Agent>
createKnowledgeAgent(std::vector<KnowledgeRecord> records);
/// Any program speaking the JSON-lines protocol of docs/agent-protocol.md on
/// its stdin/stdout, started with `/bin/sh -c command`.
llvm::Expected<std::unique_ptr<Agent>>
createExternalAgent(const std::string &command, uint64_t seed);

/// An external agent's answer to a `propose` for `work`, read as the search
/// reads it (docs/agent-protocol.md): at most `count` schedules, each its
/// template's defaults with the agent's knobs over them.
struct ProposeReply {
  std::vector<Schedule> schedules;
  /// Why the answer cannot be read (not JSON, nested too deep, no
  /// `candidates` array): the agent is dropped with this reason.
  std::string unreadable;
  /// Why a proposal lies outside the kernel's space (an unknown template or
  /// knob, a value outside its domain or not an integer): the search stops
  /// with this error.
  std::string outsideSpace;
};
ProposeReply parseProposeReply(const Kernel &work, llvm::StringRef line,
                               unsigned count);

/// What a built-in agent is built from: its seed (the search's seed plus the
/// agent's place in the team) and the knowledge base's records of the
/// target (empty without a knowledge base).
struct AgentSetup {
  uint64_t seed = 0;
  llvm::ArrayRef<KnowledgeRecord> records;
};

/// A built-in agent as the search knows it: the one place that says its
/// name, how it is built and what part it takes in a search.
struct BuiltinAgent {
  /// Agent::name() of the agents it builds, and its name for --agents.
  llvm::StringRef name;
  /// One line for --help.
  llvm::StringRef description;
  std::unique_ptr<Agent> (*create)(const AgentSetup &setup);
  /// In the team a search uses when none is named (TuneOptions::agents
  /// empty).
  bool inDefaultTeam;
  /// Built from the knowledge base's records: named without a knowledge
  /// base it is an error, and it joins the default team only when the
  /// knowledge base holds records of the target.
  bool needsKnowledgeBase;
  /// Its agents seed each kernel (Agent::seedsEachKernel): it leads the
  /// default team.
  bool seedsEachKernel;
  /// It proposes the merged kernels (Kernel::mergeOf): those are put on the
  /// blackboard only when it is in the team, and a merged kernel's first
  /// trial is its proposal.
  bool proposesMerges;
};

/// Every built-in agent, in the order messages list them.
llvm::ArrayRef<BuiltinAgent> builtinAgents();

/// The built-in agent called `name`, or null.
const BuiltinAgent *findBuiltinAgent(llvm::StringRef name);

/// The names of the default team: the built-in agents in it, those that
/// seed each kernel first; those that need a knowledge base only when
/// `withKnowledge` (the knowledge base holds records of the target).
std::vector<std::string> defaultTeam(bool withKnowledge);

/// Every built-in agent's name, joined with ", " ("tiling, pipeline, ...").
std::string builtinAgentNames();

/// The built-in agent called `name` (see builtinAgents), built with `seed`
/// and `records`; null for an unknown name.
std::unique_ptr<Agent>
createBuiltinAgent(llvm::StringRef name, uint64_t seed,
                   llvm::ArrayRef<KnowledgeRecord> records = {});

} // namespace int21::search

#endif // INT21_AGENTSEARCH_AGENT_H

//===- AgentTeam.cpp - the agents of a search and the bandit over them ----===//

#include "AgentTeam.h"

#include <cmath>

using namespace int21::search;

/// Whether `agent` is a built-in agent that proposes merges.
static bool proposesMerges(llvm::StringRef agent) {
  const BuiltinAgent *builtin = findBuiltinAgent(agent);
  return builtin && builtin->proposesMerges;
}

bool int21::search::teamProposesMerges(const TuneOptions &options) {
  if (options.agents.empty())
    return llvm::any_of(defaultTeam(/*withKnowledge=*/false), proposesMerges);
  return llvm::any_of(options.agents, proposesMerges);
}

llvm::Error AgentTeam::build(const TuneOptions &options,
                             llvm::ArrayRef<KnowledgeRecord> records) {
  std::vector<std::string> names =
      options.agents.empty() ? defaultTeam(!records.empty()) : options.agents;
  // "none": only the external agents.
  if (names == std::vector<std::string>{"none"}) {
    names.clear();
    if (options.agentCommands.empty())
      return llvm::createStringError(
          "--agents=none leaves no agent: give --agent-cmd");
  }
  for (auto [i, name] : llvm::enumerate(names)) {
    const BuiltinAgent *builtin = findBuiltinAgent(name);
    if (!builtin)
      return llvm::createStringError(
          "unknown agent '" + name +
          "' (built-in agents: " + builtinAgentNames() + ")");
    if (builtin->needsKnowledgeBase && !options.knowledgeBase)
      return llvm::createStringError("the " + name +
                                     " agent needs a knowledge base (--kb)");
    agents.push_back(builtin->create({options.seed + i, records}));
  }
  for (auto [i, command] : llvm::enumerate(options.agentCommands)) {
    llvm::Expected<std::unique_ptr<Agent>> agent =
        createExternalAgent(command, options.seed + 100 + i);
    if (!agent)
      return agent.takeError();
    agents.push_back(std::move(*agent));
  }
  stats.resize(agents.size());
  return llvm::Error::success();
}

std::optional<Work> AgentTeam::proposeMerge(const Blackboard &board,
                                            unsigned kernel) {
  for (std::unique_ptr<Agent> &agent : agents) {
    if (!proposesMerges(agent->name()))
      continue;
    for (Candidate &candidate : agent->propose(board, kernel, 1)) {
      Work work;
      candidate.kernel = kernel;
      work.candidate = std::move(candidate);
      return work;
    }
  }
  return std::nullopt;
}

void AgentTeam::observe(const Blackboard &board, const Trial &recorded,
                        double before) {
  for (auto [i, agent] : llvm::enumerate(agents)) {
    agent->observe(board, recorded);
    if (agent->name() == recorded.candidate.agent)
      stats[i].record(recorded.outcome == Outcome::Ok && before > 0 &&
                              recorded.time.medianMs < before
                          ? std::log(before / recorded.time.medianMs)
                          : 0.0);
  }
}

void AgentTeam::finish() {
  for (std::unique_ptr<Agent> &agent : agents)
    agent->finish();
}

llvm::Expected<std::vector<Work>>
AgentTeam::proposeBatch(const Blackboard &board, unsigned kernel, unsigned size,
                        llvm::function_ref<bool(uint64_t)> knownLoser) {
  std::vector<Work> batch;
  std::vector<bool> dry(agents.size(), false);
  double pending = 0;
  const Kernel &work = board.kernels()[kernel];
  while (batch.size() < size) {
    // A seeding agent (what won on this or the nearest work) has its first
    // proposal for a kernel tried first. Then the agent with the best upper
    // confidence bound on its improvements.
    std::optional<size_t> pick;
    double pickScore = 0;
    for (size_t a = 0; a < agents.size() && !pick; ++a) {
      llvm::StringRef name = agents[a]->name();
      auto byAgent = [&](const Candidate &c) { return c.agent == name; };
      if (!dry[a] && agents[a]->seedsEachKernel() &&
          !llvm::any_of(board.trialsOf(kernel),
                        [&](unsigned t) {
                          return byAgent(board.trials()[t].candidate);
                        }) &&
          !llvm::any_of(batch,
                        [&](const Work &w) { return byAgent(w.candidate); }))
        pick = a;
    }
    bool seeding = pick.has_value();
    std::vector<double> bounds = upperConfidenceBounds(stats, pending);
    for (size_t a = 0; a < agents.size() && !seeding; ++a) {
      if (dry[a])
        continue;
      if (!pick || bounds[a] > pickScore) {
        pick = a;
        pickScore = bounds[a];
      }
    }
    if (!pick)
      break;
    std::vector<Candidate> proposed = agents[*pick]->propose(board, kernel, 1);
    std::string failure = agents[*pick]->failure();
    if (!failure.empty())
      return llvm::createStringError(failure);
    bool added = false;
    for (Candidate &candidate : proposed) {
      candidate.kernel = kernel;
      uint64_t hash = scheduleHash(work.signature, candidate.schedule);
      if (board.tried(hash) || knownLoser(hash) ||
          llvm::any_of(batch, [&](const Work &w) { return w.hash == hash; }))
        continue;
      Work next;
      next.hash = hash;
      std::string why;
      if (!isValidSchedule(work, candidate.schedule, why)) {
        next.rejected = Outcome::Invalid;
        next.rejection = why;
      }
      next.candidate = std::move(candidate);
      batch.push_back(std::move(next));
      added = true;
      // Counted for the bandit now, so that one batch spreads over agents.
      pending += 1;
      break;
    }
    if (!added)
      dry[*pick] = true;
  }
  return batch;
}

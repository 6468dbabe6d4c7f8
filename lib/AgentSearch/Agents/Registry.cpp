//===- Registry.cpp - the built-in agents, registered in one place --------===//

#include "int21/AgentSearch/Agent.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace int21::search;

namespace {

std::unique_ptr<Agent> makeTiling(const AgentSetup &setup) {
  return createTilingAgent(setup.seed);
}
std::unique_ptr<Agent> makePipeline(const AgentSetup &setup) {
  return createPipelineAgent(setup.seed);
}
std::unique_ptr<Agent> makeCostModel(const AgentSetup &setup) {
  return createCostModelAgent(setup.seed);
}
std::unique_ptr<Agent> makeRandom(const AgentSetup &setup) {
  return createRandomAgent(setup.seed);
}
std::unique_ptr<Agent> makeFusion(const AgentSetup &) {
  return createFusionAgent();
}
std::unique_ptr<Agent> makeKnowledge(const AgentSetup &setup) {
  return createKnowledgeAgent(setup.records.vec());
}

// name, description, create, in the default team, needs a knowledge base,
// seeds each kernel, proposes merges.
const BuiltinAgent registry[] = {
    {"tiling",
     "evolutionary search over tile sizes, seeded by the winners of similar "
     "kernels",
     makeTiling, true, false, false, false},
    {"pipeline",
     "a bandit over the kernel's templates and pass-pipeline alternatives",
     makePipeline, true, false, false, false},
    {"cost-model",
     "ranks many proposals with a model fitted on the measured trials",
     makeCostModel, true, false, false, false},
    {"random", "uniformly random points of the space: the baseline", makeRandom,
     true, false, false, false},
    {"fusion", "merges a producer's fusion group into its consumer's",
     makeFusion, true, false, false, true},
    {"knowledge",
     "what won before on the same or similar work (with a knowledge base)",
     makeKnowledge, true, true, true, false},
};

} // namespace

llvm::ArrayRef<BuiltinAgent> int21::search::builtinAgents() { return registry; }

const BuiltinAgent *int21::search::findBuiltinAgent(llvm::StringRef name) {
  for (const BuiltinAgent &agent : registry)
    if (agent.name == name)
      return &agent;
  return nullptr;
}

std::vector<std::string> int21::search::defaultTeam(bool withKnowledge) {
  std::vector<std::string> seeding, others;
  for (const BuiltinAgent &agent : registry)
    if (agent.inDefaultTeam && (withKnowledge || !agent.needsKnowledgeBase))
      (agent.seedsEachKernel ? seeding : others).push_back(agent.name.str());
  // What won before goes first: a new agent is asked first.
  llvm::append_range(seeding, others);
  return seeding;
}

std::string int21::search::builtinAgentNames() {
  return llvm::join(
      llvm::map_range(registry,
                      [](const BuiltinAgent &agent) { return agent.name; }),
      ", ");
}

std::unique_ptr<Agent>
int21::search::createBuiltinAgent(llvm::StringRef name, uint64_t seed,
                                  llvm::ArrayRef<KnowledgeRecord> records) {
  const BuiltinAgent *agent = findBuiltinAgent(name);
  if (!agent)
    return nullptr;
  return agent->create({seed, records});
}

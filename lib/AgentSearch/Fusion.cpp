//===- Fusion.cpp - merging a producer fusion group into its consumer -----===//

#include "int21/AgentSearch/Fusion.h"

#include "int21/AgentSearch/Kernel.h"
#include "int21/Dialect/Int21/Int21Ops.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace int21;

namespace int21::search {

bool canMerge(FusionGroupOp producer, FusionGroupOp consumer) {
  if (!producer || !consumer || producer == consumer ||
      producer->getBlock() != consumer->getBlock() ||
      producer->getNumResults() == 0)
    return false;
  // An unused result would be lost: the merged group yields only what the
  // consumer yields.
  for (Value result : producer->getResults()) {
    if (result.use_empty())
      return false;
    for (Operation *user : result.getUsers())
      if (!consumer->isProperAncestor(user))
        return false;
  }
  return true;
}

SmallVector<FusionSite> findFusionSites(ModuleOp module) {
  SmallVector<FusionSite> sites;
  module.walk([&](FusionGroupOp producer) {
    if (producer->getNumResults() == 0 || producer->use_empty())
      return;
    Operation *user = *producer->getUsers().begin();
    Operation *owner = producer->getBlock()->findAncestorOpInBlock(*user);
    auto consumer = dyn_cast_or_null<FusionGroupOp>(owner);
    if (canMerge(producer, consumer))
      sites.push_back({producer, consumer});
  });
  return sites;
}

FailureOr<FusionGroupOp> mergeGroups(FusionGroupOp producer,
                                     FusionGroupOp consumer) {
  if (!canMerge(producer, consumer))
    return failure();
  Block &from = producer.getBody().front();
  Block &to = consumer.getBody().front();
  YieldOp yield = producer.getYield();
  // The producer precedes the consumer in one block, so everything its body
  // reads from outside dominates the consumer's body too.
  for (auto [result, value] :
       llvm::zip(producer->getResults(), yield.getValues()))
    result.replaceAllUsesWith(value);
  to.getOperations().splice(to.begin(), from.getOperations(), from.begin(),
                            Block::iterator(yield));
  consumer->setLoc(FusedLoc::get(consumer.getContext(),
                                 {producer->getLoc(), consumer->getLoc()}));
  consumer.removeScheduleAttr();
  producer->erase();
  return consumer;
}

FusionGroupOp cloneMerged(const FusionSite &site, ModuleOp scratch) {
  OpBuilder b = OpBuilder::atBlockEnd(scratch.getBody());
  // Cloning the producer maps its results to the clone's, so the consumer's
  // clone reads the producer's clone.
  IRMapping mapping;
  auto producer = cast<FusionGroupOp>(b.clone(*site.producer, mapping));
  auto consumer = cast<FusionGroupOp>(b.clone(*site.consumer, mapping));
  FailureOr<FusionGroupOp> merged = mergeGroups(producer, consumer);
  return succeeded(merged) ? *merged : FusionGroupOp();
}

std::vector<SiteKey> siteKeys(ModuleOp module) {
  llvm::DenseMap<Operation *, unsigned> position;
  module.walk([&](FusionGroupOp group) {
    position.try_emplace(group, position.size());
  });
  std::vector<SiteKey> keys;
  for (const FusionSite &site : findFusionSites(module)) {
    OwningOpRef<ModuleOp> scratch =
        ModuleOp::create(UnknownLoc::get(module.getContext()));
    FusionGroupOp merged = cloneMerged(site, *scratch);
    if (!merged)
      continue;
    keys.push_back({position.lookup(site.producer),
                    position.lookup(site.consumer),
                    kernelSignature(site.producer),
                    kernelSignature(site.consumer), kernelSignature(merged)});
  }
  return keys;
}

std::vector<unsigned> selectSites(ArrayRef<SiteKey> sites,
                                  ArrayRef<FusionMerge> merges) {
  std::vector<unsigned> chosen;
  llvm::DenseSet<unsigned> taken;
  for (const FusionMerge &merge : merges)
    for (auto [i, site] : llvm::enumerate(sites)) {
      if (site.merged != merge.merged ||
          site.producerSignature != merge.producer ||
          site.consumerSignature != merge.consumer ||
          taken.contains(site.producer) || taken.contains(site.consumer))
        continue;
      taken.insert(site.producer);
      taken.insert(site.consumer);
      chosen.push_back(i);
    }
  return chosen;
}

unsigned applyMerges(ModuleOp module, ArrayRef<FusionMerge> merges) {
  if (merges.empty())
    return 0;
  SmallVector<FusionGroupOp> groups;
  module.walk([&](FusionGroupOp group) { groups.push_back(group); });
  std::vector<SiteKey> keys = siteKeys(module);
  unsigned merged = 0;
  // The chosen sites share no group: merging one leaves the others as they
  // were found.
  for (unsigned i : selectSites(keys, merges))
    if (succeeded(
            mergeGroups(groups[keys[i].producer], groups[keys[i].consumer])))
      ++merged;
  return merged;
}

} // namespace int21::search

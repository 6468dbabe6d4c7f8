//===- Fusion.h - grouping moves: a producer group into its consumer ------===//
//
// int21-form-fusion-groups decides the grouping once, by rules; the search
// revisits it. A fusion site is a producer group whose every result is read
// by one consumer group only: moving the producer's body into the consumer
// gives one kernel that never writes the intermediate tensors out. Whether
// that is faster is measured, like any schedule.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_FUSION_H
#define INT21_AGENTSEARCH_FUSION_H

#include "int21/Dialect/Int21/Int21Ops.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace int21::search {

/// A producer group that may be merged into its consumer group.
struct FusionSite {
  int21::FusionGroupOp producer;
  int21::FusionGroupOp consumer;
};

/// Whether `producer` may be merged into `consumer`: both in the same block,
/// and every result of `producer` used, and used inside `consumer` only.
bool canMerge(int21::FusionGroupOp producer,
              int21::FusionGroupOp consumer);

/// The fusion sites of `module`, in the order of their producers.
llvm::SmallVector<FusionSite> findFusionSites(mlir::ModuleOp module);

/// Merges `producer` into `consumer`: the producer's body moves to the front
/// of the consumer's, its yielded values replace its results, and the
/// producer is erased. The consumer's schedule is dropped (it was chosen for
/// other work). Returns the consumer; fails, changing nothing, unless
/// canMerge(producer, consumer).
mlir::FailureOr<int21::FusionGroupOp>
mergeGroups(int21::FusionGroupOp producer,
            int21::FusionGroupOp consumer);

/// The group `site` would merge into, built in `scratch` (a module the
/// caller owns and drops when done) from clones: the model is not changed.
/// The clones read the model's values, so `scratch` must not outlive them.
int21::FusionGroupOp cloneMerged(const FusionSite &site,
                                       mlir::ModuleOp scratch);

/// A merge the search chose: every site of the model whose merged group has
/// the signature `merged` (that of producer + consumer) is merged.
struct FusionMerge {
  /// Kernel signatures of the producer, the consumer and the merged group.
  std::string producer, consumer, merged;
  /// Model time saved per site: best(producer) + best(consumer) -
  /// best(merged), in milliseconds.
  double gainMs = 0;
};

/// A fusion site named by the positions of its groups in the module's walk
/// order, and the kernel signatures of its groups and of its merged group.
struct SiteKey {
  unsigned producer = 0, consumer = 0;
  std::string producerSignature, consumerSignature, merged;
};

/// The fusion sites of `module` as keys (computes every site's merged
/// signature: one kernel module per site).
std::vector<SiteKey> siteKeys(mlir::ModuleOp module);

/// Which of `sites` `merges` (best first) merge: for each merge in turn, its
/// sites (same three signatures) whose groups no site chosen before takes
/// part in. Positions in
/// `sites`, in the order chosen. The search counts its speed-up with this
/// selection and applyMerges applies the same one.
std::vector<unsigned> selectSites(llvm::ArrayRef<SiteKey> sites,
                                  llvm::ArrayRef<FusionMerge> merges);

/// Merges the sites of `module` that `merges` select. Returns how many.
unsigned applyMerges(mlir::ModuleOp module, llvm::ArrayRef<FusionMerge> merges);

} // namespace int21::search

#endif // INT21_AGENTSEARCH_FUSION_H

//===- InlineFusionGroups.cpp - dissolve int21.fusion_group regions -------===//

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::int21 {
#define GEN_PASS_DEF_INT21INLINEFUSIONGROUPS
#include "int21/Transforms/Passes.h.inc"
} // namespace mlir::int21

using namespace mlir;
using namespace mlir::int21;

namespace {
struct InlineFusionGroupsPass
    : int21::impl::Int21InlineFusionGroupsBase<InlineFusionGroupsPass> {
  void runOnOperation() override {
    SmallVector<FusionGroupOp> groups;
    getOperation().walk([&](FusionGroupOp group) { groups.push_back(group); });
    IRRewriter rewriter(&getContext());
    // The walk is post-order, so nested groups are dissolved first.
    for (FusionGroupOp group : groups) {
      YieldOp yield = group.getYield();
      SmallVector<Value> values(yield.getValues());
      rewriter.eraseOp(yield);
      rewriter.inlineBlockBefore(&group.getBody().front(), group);
      rewriter.replaceOp(group, values);
    }
  }
};
} // namespace

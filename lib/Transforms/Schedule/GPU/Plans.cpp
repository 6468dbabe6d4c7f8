//===- Plans.cpp - which GPU template schedules a fusion group ------------===//
//
// The GPU's default rules: a group around one matmul gets @gpu.matmul (or
// @gpu.batch_matmul), and every group the template of its class over the
// root's leading parallel dimensions (GPU/parallel.mlir); before that, each
// group is prepared so that its tiles are computed where they are used.
//
//===----------------------------------------------------------------------===//

#include "../Common/ScheduleInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace int21;
using namespace int21::schedule;
using namespace int21::schedule::gpu;

/// The GPU plans: a contraction template for matmul groups, else the
/// template of the group's class over the root's leading parallel
/// dimensions (see GPU/parallel.mlir).
SmallVector<Plan> schedule::gpu::planDefaults(FusionGroupOp group) {
  SmallVector<Plan> plans;
  linalg::LinalgOp root = getRoot(group);
  if (!root || !hasStaticTensorLoops(root))
    return plans;
  SmallVector<int64_t> shape = root.getStaticLoopRanges();
  if (llvm::is_contained(shape, 0))
    return plans;
  SmallVector<linalg::LinalgOp> ops = getLinalgOps(group);

  SmallVector<linalg::LinalgOp> anchors;
  for (linalg::LinalgOp op : ops)
    if (!isAllParallel(op))
      anchors.push_back(op);
  if (anchors.size() == 1 && isPlainMatmul(anchors.front()) &&
      hasStaticTensorLoops(anchors.front())) {
    linalg::LinalgOp anchor = anchors.front();
    auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
    if (llvm::all_of(ops, [&](linalg::LinalgOp op) {
          return op == anchor || isElementwiseOver(op, outType.getShape());
        })) {
      Plan plan;
      SmallVector<int64_t> loops = anchor.getStaticLoopRanges();
      bool batched = isa<linalg::BatchMatmulOp>(anchor);
      size_t b = batched ? 1 : 0;
      plan.sequence = batched ? "gpu.batch_matmul" : "gpu.matmul";
      plan.knobs = matmulKnobs(loops[b], loops[b + 1],
                                                 loops[b + 2]);
      plan.dims = {loops[b], loops[b + 1], loops[b + 2]};
      plan.tags.push_back({root, kRootTag});
      plan.tags.push_back({anchor, kAnchorTag});
      for (linalg::LinalgOp op : ops) {
        if (op != root)
          plan.tags.push_back({op, kFuseTag});
        if (op != anchor)
          plan.tags.push_back({op, kElementwiseTag});
      }
      plans.push_back(std::move(plan));
    }
  }

  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  unsigned parallel = 0;
  while (parallel < 4 && parallel < iterators.size() &&
         iterators[parallel] == utils::IteratorType::parallel)
    ++parallel;
  // A thread computes whole rows of what the group reduces (the max and
  // sum of a softmax row): dimensions from the first one that an op of the
  // group reduces on stay whole.
  for (linalg::LinalgOp op : ops) {
    SmallVector<utils::IteratorType> its = op.getIteratorTypesArray();
    for (unsigned d = 0; d < its.size() && d < parallel; ++d)
      if (its[d] == utils::IteratorType::reduction) {
        parallel = d;
        break;
      }
  }
  if (parallel == 0)
    return plans;
  bool conv = llvm::any_of(ops, [](linalg::LinalgOp op) {
    return isa<linalg::Conv2DNchwFchwOp>(op.getOperation());
  });
  bool pooling = llvm::any_of(ops, [](linalg::LinalgOp op) {
    return isWindowPool2d(op);
  });
  bool elementwise = llvm::all_of(ops, isAllParallel);
  Plan plan;
  std::string rank = std::to_string(parallel) + "d";
  if (conv && parallel == 4)
    plan.sequence = "gpu.conv2d_nchw";
  else if (pooling && parallel == 4)
    plan.sequence = "gpu.pooling_nchw";
  else if (elementwise)
    plan.sequence = "gpu.elementwise_" + rank;
  else
    plan.sequence = "gpu.reduction_" + rank;
  SmallVector<unsigned> tiled;
  for (unsigned d = parallel == 4 ? 1 : 0; d < parallel; ++d)
    tiled.push_back(d);
  plan.knobs = parallelKnobs(shape, tiled);
  plan.dims.assign(shape.begin(), shape.begin() + parallel);
  plan.tags.push_back({root, kRootTag});
  for (linalg::LinalgOp op : ops)
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
  plans.push_back(std::move(plan));
  return plans;
}

/// Gives every destination in `group` that is a tensor.empty shared with
/// other ops a tensor.empty of its own, and fuses chains of elementwise
/// generics of the group into one. On the GPU a fused producer otherwise
/// writes into the slice of the block's output that its consumer writes
/// too, which bufferization resolves with copies of whole tiles; with its
/// own destination a producer's tile is a temporary of its thread (or, for
/// a contraction's accumulator, of its block).
void schedule::gpu::prepareGroup(FusionGroupOp group) {
  MLIRContext *ctx = group->getContext();
  // An op with several users in the group (a softmax's row max, read by
  // the exponentials of the sum and of the division) is computed once per
  // user, so that each copy fuses into its user: otherwise the tiles that
  // fuse one user still read the op's whole result, computed outside any
  // kernel. Consumers first, so that the copies' producers are copied too.
  SmallVector<linalg::LinalgOp> groupOps = getLinalgOps(group);
  for (linalg::LinalgOp op : llvm::reverse(groupOps)) {
    if (op->getNumResults() != 1)
      continue;
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : op->getResult(0).getUses())
      if (use.getOwner()->getParentOp() == group.getOperation() &&
          isa<linalg::LinalgOp>(use.getOwner()))
        uses.push_back(&use);
    for (size_t i = 1; i < uses.size(); ++i) {
      OpOperand *use = uses[i];
      OpBuilder b(use->getOwner());
      use->set(b.clone(*op.getOperation())->getResult(0));
    }
  }
  {
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [&](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          return producer && producer->getParentOp() == group.getOperation() &&
                 fused->getOwner()->getParentOp() == group.getOperation() &&
                 fused->get().hasOneUse();
        });
    // A reshape between ops of the group (a matmul's [1, n] result
    // collapsed for its bias) stops fusion: the consumer is expanded to the
    // producer's shape instead, the reshape moving to the group's result.
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, [&](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          return producer && producer->getParentOp() == group.getOperation() &&
                 fused->getOwner()->getParentOp() == group.getOperation();
        });
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyPatternsGreedily(group.getBody(), std::move(patterns), config);
  }
  moveYieldedReshapesOut(group);
  unshareEmptyInits(group);
}

/// Splat tensor constants (outline-weights leaves them in the code) become
/// fills, computed by a kernel: a constant buffer would stay on the host,
/// where kernels cannot read it.
void schedule::gpu::materializeSplats(ModuleOp module) {
  SmallVector<arith::ConstantOp> splats;
  module.walk([&](arith::ConstantOp cst) {
    auto type = dyn_cast<RankedTensorType>(cst.getType());
    auto value = dyn_cast<DenseElementsAttr>(cst.getValue());
    if (type && type.hasStaticShape() && value && value.isSplat() &&
        !cst->use_empty())
      splats.push_back(cst);
  });
  for (arith::ConstantOp cst : splats) {
    auto type = cast<RankedTensorType>(cst.getType());
    auto value = cast<DenseElementsAttr>(cst.getValue());
    OpBuilder b(cst);
    Location loc = cst.getLoc();
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                          type.getElementType());
    Value scalar =
        arith::ConstantOp::create(b, loc, value.getSplatValue<TypedAttr>());
    Value fill = linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
    cst.replaceAllUsesWith(fill);
    cst.erase();
  }
}

/// Drops the memory spaces that the GPU templates request (shared memory)
/// so that the tiled IR runs on the CPU.
void schedule::gpu::dropMemorySpaces(Operation *scope) {
  scope->walk([](bufferization::AllocTensorOp alloc) {
    alloc.removeMemorySpaceAttr();
  });
}

//===- Groups.cpp - fusion groups as the schedules see them ---------------===//
//
// What every target's schedules share about the payload: the form groups
// are put in before scheduling (loose linalg ops wrapped, reshapes moved
// out), the classification of a group's ops, the tags templates find them
// by, the dispatch to the target's default rules, and the export of a
// resolved schedule into a transform library.
//
//===----------------------------------------------------------------------===//

#include "ScheduleInternal.h"

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Schedule.h"
#include "int21/Transforms/TransformOps.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/TransformOps/DialectExtension.h"
#include "mlir/Dialect/Linalg/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/TransformOps/TensorTransformOps.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/LoopExtension/LoopExtension.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtension.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"
#include "mlir/Dialect/Vector/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Debug.h"

#include <memory>

using namespace mlir;
using namespace int21;
using namespace int21::schedule;

namespace int21::schedule {

bool hasStaticTensorLoops(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() &&
         llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
}

int64_t hintedExtent(int64_t extent) {
  return ShapedType::isDynamic(extent) ? kDynamicExtentHint : extent;
}

SmallVector<int64_t> hintedLoopRanges(linalg::LinalgOp op) {
  return llvm::map_to_vector(op.getStaticLoopRanges(), hintedExtent);
}

bool isAllParallel(linalg::LinalgOp op) {
  return op.getNumLoops() == op.getNumParallelLoops();
}

bool yieldsDynamicShapes(FusionGroupOp group) {
  return llvm::any_of(group->getResultTypes(), [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && !shaped.hasStaticShape();
  });
}

/// The ops of the group's body that the templates work on.
SmallVector<linalg::LinalgOp> getLinalgOps(FusionGroupOp group) {
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : group.getBody().front())
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      ops.push_back(linalgOp);
  return ops;
}

/// The op whose single result the group yields, if the group has that form.
linalg::LinalgOp getRoot(FusionGroupOp group) {
  YieldOp yield = group.getYield();
  if (yield.getValues().size() != 1)
    return {};
  Value result = yield.getValues()[0];
  // A result reshaped last (a pointwise convolution's matmul back to NCHW,
  // a grouped convolution's groups merged; on dynamic extents a product's
  // [M, N/16, 16] collapsed to rows and expanded to [N, H, W, C], which
  // stay in the group as their extents are computed there) is a view of
  // the op that computes it.
  for (Operation *reshape = result.getDefiningOp();
       isa_and_present<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
           reshape) &&
       reshape->getParentOp() == group;
       reshape = result.getDefiningOp())
    result = reshape->getOperand(0);
  auto root = result.getDefiningOp<linalg::LinalgOp>();
  if (!root || root->getParentOp() != group || root->getNumResults() != 1)
    return {};
  return root;
}

/// True when `op` is elementwise over exactly the iteration space `shape`.
bool isElementwiseOver(linalg::LinalgOp op, ArrayRef<int64_t> shape) {
  return isAllParallel(op) && op.hasPureTensorSemantics() &&
         op->getNumResults() == 1 && op.getStaticLoopRanges() == shape;
}

bool isPlainMatmul(Operation *op) {
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    return !matmul.hasUserDefinedMaps();
  if (auto matmul = dyn_cast<linalg::BatchMatmulOp>(op))
    return !matmul.hasUserDefinedMaps();
  return false;
}

bool isSharedLhsBatchMatmul(Operation *op) {
  auto matmul = dyn_cast<linalg::BatchMatmulOp>(op);
  if (!matmul || !matmul.hasUserDefinedMaps())
    return false;
  MLIRContext *ctx = op->getContext();
  AffineExpr b = getAffineDimExpr(0, ctx), m = getAffineDimExpr(1, ctx),
             n = getAffineDimExpr(2, ctx), k = getAffineDimExpr(3, ctx);
  SmallVector<AffineMap> shared = {AffineMap::get(4, 0, {m, k}, ctx),
                                   AffineMap::get(4, 0, {b, k, n}, ctx),
                                   AffineMap::get(4, 0, {b, m, n}, ctx)};
  return matmul.getIndexingMapsArray() == ArrayRef<AffineMap>(shared);
}

bool isPlainConv(Operation *op) {
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op);
  return conv && llvm::all_of(conv.getDilations().getValues<int64_t>(),
                              [](int64_t d) { return d == 1; });
}

/// `op` as a generic of two inputs and one output over `loops` loops, the
/// first `parallel` of them parallel and the rest reductions (the form of
/// the lowering's convolutions and products); null for anything else.
static linalg::GenericOp contractionGeneric(Operation *op, unsigned loops,
                                            unsigned parallel) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumLoops() != loops ||
      generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1)
    return {};
  for (auto [i, iterator] : llvm::enumerate(generic.getIteratorTypesArray()))
    if (iterator != (i < parallel ? utils::IteratorType::parallel
                                  : utils::IteratorType::reduction))
      return {};
  return generic;
}

bool isFilterLanesConv2d(Operation *op) {
  linalg::GenericOp generic = contractionGeneric(op, 8, 5);
  if (!generic)
    return false;
  MLIRContext *ctx = op->getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  return maps[1] == AffineMap::get(8, 0, {d(1), d(5), d(6), d(7), d(2)}, ctx) &&
         maps[2] == AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx) &&
         maps[0].getNumResults() == 4 && maps[0].getResult(0) == d(0) &&
         maps[0].getResult(1) == d(5);
}

bool isPanelMatmul(Operation *op, bool transposedA) {
  linalg::GenericOp generic = contractionGeneric(op, 4, 3);
  if (!generic)
    return false;
  MLIRContext *ctx = op->getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap a = transposedA ? AffineMap::get(4, 0, {d(3), d(0)}, ctx)
                            : AffineMap::get(4, 0, {d(0), d(3)}, ctx);
  return generic.getIndexingMapsArray() ==
         SmallVector<AffineMap>{a, AffineMap::get(4, 0, {d(1), d(3), d(2)}, ctx),
                                AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx)};
}

bool isChannelLanesDepthwise2d(Operation *op) {
  linalg::GenericOp generic = contractionGeneric(op, 7, 5);
  if (!generic)
    return false;
  MLIRContext *ctx = op->getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  return maps[1] == AffineMap::get(7, 0, {d(1), d(5), d(6), d(2)}, ctx) &&
         maps[2] == AffineMap::get(7, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx) &&
         maps[0].getNumResults() == 5 && maps[0].getResult(0) == d(0) &&
         maps[0].getResult(1) == d(1) && maps[0].getResult(4) == d(2);
}

/// Whether `op` is genericWindowConv's 2-D generic (see LowerToLinalg/NN.cpp):
/// `lead` parallel loops then the output row and column, `channels`
/// reductions over a group's input channels, then the window's two; the
/// input read at (n, ..., o * stride + k * dilation) with positive strides
/// and dilations, the weight at (`weightLead`..., kh, kw), the output at the
/// leading and spatial loops.
static bool isWindowConv2d(Operation *op, unsigned lead, unsigned channels,
                           ArrayRef<unsigned> inputLead,
                           ArrayRef<unsigned> weightLead) {
  unsigned numLoops = lead + 4 + channels;
  linalg::GenericOp generic = contractionGeneric(op, numLoops, lead + 2);
  if (!generic)
    return false;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  MLIRContext *ctx = op->getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  unsigned window = lead + 2 + channels;
  SmallVector<AffineExpr> output, weight;
  for (unsigned i = 0; i < lead + 2; ++i)
    output.push_back(d(i));
  for (unsigned i : weightLead)
    weight.push_back(d(i));
  weight.append({d(window), d(window + 1)});
  if (maps[2] != AffineMap::get(numLoops, 0, output, ctx) ||
      maps[1] != AffineMap::get(numLoops, 0, weight, ctx))
    return false;
  AffineMap input = maps[0];
  if (input.getNumResults() != inputLead.size() + 2)
    return false;
  for (auto [i, dim] : llvm::enumerate(inputLead))
    if (input.getResult(i) != d(dim))
      return false;
  // o * stride + k * dilation, strides and dilations positive.
  for (unsigned i = 0; i < 2; ++i) {
    auto sum =
        dyn_cast<AffineBinaryOpExpr>(input.getResult(inputLead.size() + i));
    if (!sum || sum.getKind() != AffineExprKind::Add)
      return false;
    auto isScaled = [&](AffineExpr e, unsigned dim) {
      if (e == d(dim))
        return true;
      auto mul = dyn_cast<AffineBinaryOpExpr>(e);
      auto factor = mul ? dyn_cast<AffineConstantExpr>(mul.getRHS())
                        : AffineConstantExpr();
      return mul && mul.getKind() == AffineExprKind::Mul &&
             mul.getLHS() == d(dim) && factor && factor.getValue() > 0;
    };
    unsigned o = lead + i, k = window + i;
    // Either order: the affine simplifier may put the window term first.
    if (!(isScaled(sum.getLHS(), o) && isScaled(sum.getRHS(), k)) &&
        !(isScaled(sum.getRHS(), o) && isScaled(sum.getLHS(), k)))
      return false;
  }
  return true;
}

bool isDepthwiseConv2d(Operation *op) {
  // (n, c, oh, ow, kh, kw): input [N, C, H, W], weight [C, KH, KW].
  return isWindowConv2d(op, /*lead=*/2, /*channels=*/0, {0, 1}, {1});
}

bool isWindowPool2d(Operation *op) {
  // (n, c, oh, ow, kh, kw): input [N, C, H, W], window [KH, KW] (its shape
  // only).
  return isWindowConv2d(op, /*lead=*/2, /*channels=*/0, {0, 1}, {});
}

bool isGroupedConv2d(Operation *op) {
  // (n, g, f, oh, ow, c, kh, kw): input [N, G, C, H, W], weight
  // [G, F, C, KH, KW].
  return isWindowConv2d(op, /*lead=*/3, /*channels=*/1, {0, 1, 5}, {1, 2, 5});
}

void clearTags(Operation *scope) {
  scope->walk([](Operation *op) {
    for (StringRef tag : kTags)
      op->removeAttr(tag);
  });
}

/// Moves reshapes of yielded values after the group (see moveReshapesOut).
void moveYieldedReshapesOut(FusionGroupOp group) {
  auto isReshape = [](Operation *op) {
    return isa_and_present<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
        op);
  };
  YieldOp yield = group.getYield();
  for (OpOperand &operand : yield->getOpOperands()) {
    Operation *reshape = operand.get().getDefiningOp();
    // (An expansion's dynamic extents must be known outside the group.)
    auto extentsOutside = [&](Operation *op) {
      return llvm::all_of(op->getOperands().drop_front(), [&](Value v) {
        return !group->isAncestor(v.getParentRegion()->getParentOp());
      });
    };
    while (isReshape(reshape) && reshape->getParentOp() == group &&
           reshape->getResult(0).hasOneUse() && extentsOutside(reshape)) {
      Value result = group->getResult(operand.getOperandNumber());
      Value source = reshape->getOperand(0);
      operand.set(source);
      OpBuilder b(group->getContext());
      b.setInsertionPointAfter(group);
      Operation *moved = b.clone(*reshape);
      moved->setOperand(0, result);
      result.replaceAllUsesExcept(moved->getResult(0), moved);
      result.setType(source.getType());
      reshape->erase();
      reshape = source.getDefiningOp();
    }
  }
}

SmallVector<Plan> planDefaults(FusionGroupOp group, ScheduleTarget target) {
  if (target == ScheduleTarget::GPU)
    return schedule::gpu::planDefaults(group);
  return schedule::cpu::planDefaults(group);
}

const TemplateRules *lookupRules(StringRef sequence) {
  if (const TemplateRules *rules = schedule::cpu::lookupRules(sequence))
    return rules;
  return schedule::gpu::lookupRules(sequence);
}

void clampToExtents(StringRef sequence, ArrayRef<int64_t> dims, Knobs &knobs) {
  const TemplateRules *rules = lookupRules(sequence);
  if (!rules || !rules->extent)
    return;
  for (auto &knob : knobs)
    if (std::optional<int64_t> extent = rules->extent(knob.getKey(), dims))
      if (*extent > 0 && knob.getValue() > *extent)
        knob.second = *extent;
}

} // namespace int21::schedule

namespace {

/// Wraps a linalg op outside any group into a group of its own.
void wrapInGroup(linalg::LinalgOp op) {
  OpBuilder b(op);
  auto group = FusionGroupOp::create(b, op->getLoc(), op->getResultTypes(),
                                     /*schedule=*/nullptr);
  Block *body = b.createBlock(&group.getBody());
  op->replaceAllUsesWith(group->getResults());
  op->moveBefore(body, body->end());
  b.setInsertionPointToEnd(body);
  YieldOp::create(b, op->getLoc(), op->getResults());
}


/// Reshapes at a group's boundary are data movement, not work: a reshape
/// of a value from outside moves before the group, and a reshape of a
/// yielded value after it, so that the group ends in its compute op (a
/// matmul over collapsed batch dimensions, say) and a template matches.
void moveReshapesOut(FusionGroupOp group) {
  auto isReshape = [](Operation *op) {
    return isa_and_present<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
        op);
  };
  // (Every operand from outside: an expansion's dynamic extents too.)
  auto fromOutside = [&](Value v) {
    return !group->isAncestor(v.getParentRegion()->getParentOp());
  };
  for (Operation &op :
       llvm::make_early_inc_range(group.getBody().front().getOperations()))
    if (isReshape(&op) && llvm::all_of(op.getOperands(), fromOutside))
      op.moveBefore(group);
  // Elementwise consumers of an expanded result run on the collapsed shape
  // instead, so that the expansion reaches the yield (a linear layer's
  // bias and activation over [b * m, n] rather than [b, m, n]).
  {
    RewritePatternSet patterns(group->getContext());
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [&](OpOperand *operand) {
          // Not the other way (a generic collapsed into its collapsing
          // consumer): a grouped convolution's epilogue runs over its
          // [N, G, F, H, W] and its result is collapsed last.
          if (isa<tensor::CollapseShapeOp>(operand->getOwner()))
            return false;
          // An expansion of a value from outside (a bias, expanded to the
          // panels' shape) is no result of the group's to collapse.
          Operation *producer = operand->get().getDefiningOp();
          if (!producer || producer->getParentOp() != group.getOperation())
            return false;
          Operation *source = producer->getOperand(0).getDefiningOp();
          return !isa<tensor::ExpandShapeOp>(producer) ||
                 (source && group->isAncestor(source));
        });
    // Around a matmul, unit dimensions of the elementwise ops go too (a
    // bias over [m, 1, n]), so that they run over the matmul's [m, n]: as
    // many as they have loops beyond the matmul's result, no more. (All of
    // them would take the epilogue of a one-row matmul, [1, n], to [n], and
    // no matmul template would fit the group.)
    // A product in panels counts as its [m, n]; the collapse of its
    // [m, n/16, 16] then moves past the epilogue, which runs over the
    // panels' shape.
    Operation *matmul = nullptr;
    bool panels = false;
    for (Operation &op : group.getBody().front()) {
      panels = isPanelMatmul(&op) || isPanelMatmul(&op, /*transposedA=*/true);
      if (panels || isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
        matmul = &op;
        break;
      }
    }
    linalg::ControlDropUnitDims unitDims;
    if (matmul) {
      int64_t rank =
          panels ? 2
                 : cast<RankedTensorType>(matmul->getResult(0).getType())
                       .getRank();
      unitDims.controlFn = [rank](Operation *op) {
        SmallVector<unsigned> dims;
        auto generic = dyn_cast<linalg::GenericOp>(op);
        if (!generic)
          return dims;
        SmallVector<int64_t> loops = generic.getStaticLoopRanges();
        int64_t excess = static_cast<int64_t>(loops.size()) - rank;
        for (auto [i, size] : llvm::enumerate(loops))
          if (excess > 0 && size == 1) {
            dims.push_back(i);
            --excess;
          }
        return dims;
      };
      linalg::populateFoldUnitExtentDimsPatterns(patterns, unitDims);
    }
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         group->getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns,
                                                       group->getContext());
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyPatternsGreedily(group.getBody(), std::move(patterns), config);
    // Then the collapse of a product in panels moves past the epilogue
    // (apart from the collapsing above, which would undo it).
    if (panels) {
      RewritePatternSet expanding(group->getContext());
      linalg::populateFoldReshapeOpsByExpansionPatterns(
          expanding, [&](OpOperand *operand) {
            auto collapse =
                operand->get().getDefiningOp<tensor::CollapseShapeOp>();
            auto generic = dyn_cast<linalg::GenericOp>(operand->getOwner());
            return collapse && generic &&
                   collapse.getSrc().getDefiningOp() == matmul &&
                   generic.getNumParallelLoops() == generic.getNumLoops();
          });
      tensor::populateFoldTensorEmptyPatterns(expanding);
      (void)applyPatternsGreedily(group.getBody(), std::move(expanding),
                                  config);
    }
  }
  moveYieldedReshapesOut(group);
}

} // namespace

void int21::schedule::registerScheduleDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, linalg::LinalgDialect,
                  tensor::TensorDialect, transform::TransformDialect,
                  vector::VectorDialect, scf::SCFDialect,
                  affine::AffineDialect, mlir::gpu::GPUDialect,
                  bufferization::BufferizationDialect>();
  linalg::registerTransformDialectExtension(registry);
  memref::registerTransformDialectExtension(registry);
  scf::registerTransformDialectExtension(registry);
  tensor::registerTransformDialectExtension(registry);
  vector::registerTransformDialectExtension(registry);
  mlir::gpu::registerTransformDialectExtension(registry);
  transform::registerLoopExtension(registry);
  transform::registerTuneExtension(registry);
  schedule::registerTransformExtension(registry);
  schedule::detail::registerScheduleContract(registry);
  linalg::registerTilingInterfaceExternalModels(registry);
  linalg::registerSubsetOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  vector::registerSubsetOpInterfaceExternalModels(registry);
  affine::registerValueBoundsOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  linalg::registerValueBoundsOpInterfaceExternalModels(registry);
  scf::registerValueBoundsOpInterfaceExternalModels(registry);
  tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  vector::registerValueBoundsOpInterfaceExternalModels(registry);
}

/// Shared, the bufferization sees the accumulator written where the
/// epilogue writes too (a depthwise convolution's bias and its epilogue)
/// and copies the output into a temporary before every tile: a copy of what
/// nothing reads.
void int21::schedule::unshareEmptyInits(FusionGroupOp group) {
  for (linalg::LinalgOp op : getLinalgOps(group))
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
      if (!empty || empty->hasOneUse())
        continue;
      OpBuilder b(op);
      init.set(b.clone(*empty)->getResult(0));
    }
}

LogicalResult int21::schedule::prepareForScheduling(ModuleOp module) {
  // linalg.softmax has no loop lowering: decompose it into generics, which
  // the fallback template tiles and fuses like any other group.
  if (failed(decomposeAggregateOps(module)))
    return failure();
  // Linalg ops outside groups are scheduled as groups of one.
  SmallVector<linalg::LinalgOp> loose;
  module.walk([&](linalg::LinalgOp op) {
    if (isa<func::FuncOp>(op->getParentOp()) && op.hasPureTensorSemantics())
      loose.push_back(op);
  });
  for (linalg::LinalgOp op : loose)
    wrapInGroup(op);
  SmallVector<FusionGroupOp> groups;
  module.walk([&](FusionGroupOp group) { groups.push_back(group); });
  for (FusionGroupOp group : groups) {
    moveReshapesOut(group);
    unshareEmptyInits(group);
  }
  return success();
}


LogicalResult int21::schedule::tagGroupForTemplate(FusionGroupOp group,
                                                    StringRef sequence) {
  for (const Plan &plan : planDefaults(group, ScheduleTarget::CPU)) {
    if (plan.sequence != sequence)
      continue;
    for (auto [op, tag] : plan.tags)
      op->setAttr(tag, UnitAttr::get(group.getContext()));
    return success();
  }
  return failure();
}

void int21::schedule::clearScheduleTags(Operation *scope) { clearTags(scope); }

Operation *int21::schedule::groupAnchor(FusionGroupOp group) {
  SmallVector<linalg::LinalgOp> ops = getLinalgOps(group);
  SmallVector<linalg::LinalgOp> reductions;
  for (linalg::LinalgOp op : ops)
    if (!isAllParallel(op))
      reductions.push_back(op);
  if (reductions.size() == 1)
    return reductions.front();
  if (!reductions.empty())
    return nullptr;
  return getRoot(group);
}

/// Replaces each transform.include in `sequence` whose callee (a sequence
/// of `symbols`) `inlines` picks by the callee's body, transitively. An
/// included sequence that fails propagates its failure to the includer, as
/// the ops it holds do once inlined, so the meaning stays.
static LogicalResult
inlineIncludes(transform::NamedSequenceOp sequence, ModuleOp symbols,
               function_ref<bool(transform::NamedSequenceOp)> inlines) {
  // Templates do not recurse; a cycle would never end.
  constexpr unsigned kMaxInlined = 4096;
  SymbolTable table(symbols);
  for (unsigned inlined = 0;; ++inlined) {
    transform::IncludeOp include;
    transform::NamedSequenceOp callee;
    sequence.walk([&](transform::IncludeOp op) {
      callee = table.lookup<transform::NamedSequenceOp>(
          op.getTarget().getLeafReference());
      if (callee && !inlines(callee))
        return WalkResult::advance();
      include = op;
      return WalkResult::interrupt();
    });
    if (!include)
      return success();
    StringRef target = include.getTarget().getLeafReference().getValue();
    if (inlined == kMaxInlined || !callee || callee.isExternal() ||
        include.getFailurePropagationMode() !=
            transform::FailurePropagationMode::Propagate)
      return include.emitError()
             << "cannot inline the include of @" << target
             << (inlined == kMaxInlined ? ": the includes recurse"
                 : !callee || callee.isExternal()
                     ? ": no such sequence with a body"
                     : ": failures(suppress) has no inline form");
    Block &body = callee.getBody().front();
    IRMapping mapping;
    mapping.map(body.getArguments(), include.getOperands());
    OpBuilder b(include);
    for (Operation &op : body.without_terminator())
      b.clone(op, mapping);
    for (auto [result, yielded] :
         llvm::zip_equal(include.getResults(),
                         body.getTerminator()->getOperands()))
      result.replaceAllUsesWith(mapping.lookupOrDefault(yielded));
    include.erase();
  }
}

namespace {
/// A template as the library holds it: its knobs (and the alternatives no
/// knob drives) turned into arguments of the sequence "<template>.with_knobs".
struct ParameterizedTemplate {
  /// One argument after the group: a knob's value or the region an
  /// alternatives op runs.
  struct Slot {
    std::string name;
    Type type;
    /// The template's own value, where it gives one.
    std::optional<int64_t> preset;
    /// For alternatives: how many regions it has.
    unsigned regions = 0;
  };
  transform::NamedSequenceOp sequence;
  SmallVector<Slot> slots;
};
} // namespace

struct ResolvedScheduleWriter::State {
  ModuleOp library;
  SymbolTable librarySymbols;
  /// The target's templates as written: never changed.
  OwningOpRef<ModuleOp> templates;
  SymbolTable templateSymbols;
  /// The templates written into the library so far, by name.
  llvm::StringMap<ParameterizedTemplate> written;

  State(ModuleOp library, OwningOpRef<ModuleOp> templates)
      : library(library), librarySymbols(library),
        templates(std::move(templates)), templateSymbols(*this->templates) {}

  transform::NamedSequenceOp lookupTemplate(StringRef name) {
    return templateSymbols.lookup<transform::NamedSequenceOp>(name);
  }

  FailureOr<const ParameterizedTemplate *> parameterize(StringRef sequence);
};

/// Writes template `sequence` into the library, once, with its knobs as
/// arguments: the sequences it includes that have knobs (or include some)
/// inlined, each knob op replaced by an argument (one per knob name), each
/// alternatives op no knob drives given an argument for its region; the
/// sequences without knobs it includes written once, under their own
/// names. Everything shared goes to the library's top: a verifier looks an
/// include's callee up by a scan from the first symbol, so an include costs
/// the same however many schedules the library holds.
FailureOr<const ParameterizedTemplate *>
ResolvedScheduleWriter::State::parameterize(StringRef sequence) {
  if (auto it = written.find(sequence); it != written.end())
    return &it->second;
  MLIRContext *ctx = library.getContext();
  transform::NamedSequenceOp entry = lookupTemplate(sequence);
  if (!entry)
    return emitError(UnknownLoc::get(ctx))
           << "'" << sequence << "' is not a schedule template";
  std::string name = (sequence + ".with_knobs").str();
  if (librarySymbols.lookup(name))
    return emitError(UnknownLoc::get(ctx))
           << "the library already holds a sequence @" << name;

  // The sequences reached from the entry, and those among them with knobs
  // (of their own or of a sequence they include).
  SmallVector<transform::NamedSequenceOp> reached;
  DenseMap<Operation *, SmallVector<Operation *>> includers;
  DenseSet<Operation *> seen;
  DenseSet<StringRef> tunable;
  SmallVector<transform::NamedSequenceOp> work = {entry};
  while (!work.empty()) {
    transform::NamedSequenceOp next = work.pop_back_val();
    if (!seen.insert(next).second)
      continue;
    next.walk([&](Operation *op) {
      if (isa<transform::tune::KnobOp, transform::tune::AlternativesOp>(op))
        tunable.insert(next.getSymName());
      if (auto include = dyn_cast<transform::IncludeOp>(op))
        if (auto callee = lookupTemplate(
                include.getTarget().getLeafReference().getValue())) {
          includers[callee].push_back(next);
          work.push_back(callee);
        }
    });
    reached.push_back(next);
  }
  SmallVector<StringRef> spreading(tunable.begin(), tunable.end());
  while (!spreading.empty())
    for (Operation *op : includers[lookupTemplate(spreading.pop_back_val())]) {
      StringRef includer = cast<transform::NamedSequenceOp>(op).getSymName();
      if (tunable.insert(includer).second)
        spreading.push_back(includer);
    }

  // Made in a scratch module, so that a failure leaves the library as it was.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(ctx));
  (*scratch)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                      UnitAttr::get(ctx));
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(scratch->getBody());
  transform::NamedSequenceOp clone;
  for (transform::NamedSequenceOp op : reached) {
    auto copy = cast<transform::NamedSequenceOp>(b.clone(*op));
    if (op == entry)
      clone = copy;
  }
  if (failed(inlineIncludes(clone, *scratch,
                            [&](transform::NamedSequenceOp callee) {
                              return tunable.contains(callee.getSymName());
                            })))
    return failure();

  // Knobs and free alternatives become arguments, in the order they come.
  ParameterizedTemplate result;
  llvm::StringMap<unsigned> slotOf;
  Type paramType = transform::ParamType::get(ctx, IntegerType::get(ctx, 64));
  auto slotFor = [&](StringRef knob, Type type, Location loc) -> Value {
    auto [it, inserted] = slotOf.try_emplace(knob, result.slots.size());
    if (inserted) {
      result.slots.push_back({knob.str(), type, std::nullopt, 0});
      unsigned index = clone.getNumArguments();
      NamedAttribute attrs[] = {
          b.getNamedAttr(transform::TransformDialect::kArgReadOnlyAttrName,
                         b.getUnitAttr()),
          b.getNamedAttr("int21.knob", b.getStringAttr(knob))};
      if (failed(clone.insertArgument(index, type,
                                      b.getDictionaryAttr(attrs), loc)))
        return {};
    }
    return clone.getArgument(1 + it->second);
  };
  bool ok = true;
  clone.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto knob = dyn_cast<transform::tune::KnobOp>(op)) {
      Value arg = slotFor(knob.getName(), knob.getResult().getType(),
                          knob.getLoc());
      if (!arg || arg.getType() != knob.getResult().getType()) {
        knob.emitError("knob '")
            << knob.getName() << "' has two types in '" << sequence << "'";
        ok = false;
        return WalkResult::interrupt();
      }
      auto &slot = result.slots[slotOf[knob.getName()]];
      if (auto selected = dyn_cast_or_null<IntegerAttr>(knob.getSelectedAttr()))
        slot.preset = selected.getInt();
      knob.getResult().replaceAllUsesWith(arg);
      return WalkResult::advance();
    }
    auto alternatives = dyn_cast<transform::tune::AlternativesOp>(op);
    if (!alternatives || alternatives.getSelectedRegionParam())
      return WalkResult::advance();
    Value arg = slotFor(alternatives.getName(), paramType, alternatives.getLoc());
    if (!arg || arg.getType() != paramType) {
      alternatives.emitError("alternatives '")
          << alternatives.getName() << "' has a knob of another type";
      ok = false;
      return WalkResult::interrupt();
    }
    auto &slot = result.slots[slotOf[alternatives.getName()]];
    slot.regions = alternatives->getNumRegions();
    if (auto selected = alternatives.getSelectedRegionAttrAttr())
      slot.preset = selected.getInt();
    alternatives.getSelectedRegionParamMutable().assign(arg);
    alternatives.removeSelectedRegionAttrAttr();
    return WalkResult::advance();
  });
  if (!ok)
    return failure();
  clone.walk([](transform::tune::KnobOp knob) { knob->erase(); });

  // Into the library: the shared sequences and the template, at its top.
  Block::iterator top = library.getBody()->begin();
  for (transform::NamedSequenceOp op : reached) {
    if (op == entry || tunable.contains(op.getSymName()) ||
        librarySymbols.lookup(op.getSymName()))
      continue;
    Operation *shared = SymbolTable(*scratch).lookup(op.getSymName());
    shared->remove();
    librarySymbols.insert(shared, top);
  }
  clone->remove();
  clone.setSymName(name);
  clone->removeAttr(kTemplateMarker);
  librarySymbols.insert(clone, top);
  result.sequence = clone;
  return &written.try_emplace(sequence, std::move(result)).first->second;
}

ResolvedScheduleWriter::ResolvedScheduleWriter(ModuleOp library,
                                               OwningOpRef<ModuleOp> templates)
    : state(std::make_unique<State>(library, std::move(templates))) {}

ResolvedScheduleWriter::~ResolvedScheduleWriter() = default;

FailureOr<std::unique_ptr<ResolvedScheduleWriter>>
ResolvedScheduleWriter::create(ModuleOp library, ScheduleTarget target) {
  FailureOr<OwningOpRef<ModuleOp>> templates =
      schedule::detail::parseTemplateLibrary(library.getContext(), target);
  if (failed(templates))
    return failure();
  return std::unique_ptr<ResolvedScheduleWriter>(
      new ResolvedScheduleWriter(library, std::move(*templates)));
}

FailureOr<Operation *> ResolvedScheduleWriter::add(StringRef sequence,
                                                   const Knobs &knobs,
                                                   StringRef name) {
  MLIRContext *ctx = state->library.getContext();
  if (state->librarySymbols.lookup(name))
    return emitError(UnknownLoc::get(ctx))
           << "the library already holds a sequence @" << name;
  FailureOr<const ParameterizedTemplate *> parameterized =
      state->parameterize(sequence);
  if (failed(parameterized))
    return failure();
  const ParameterizedTemplate &callee = **parameterized;

  // Each argument's value: the schedule's, else the template's own.
  SmallVector<int64_t> values;
  for (const ParameterizedTemplate::Slot &slot : callee.slots) {
    auto it = knobs.find(slot.name);
    std::optional<int64_t> value =
        it != knobs.end() ? std::optional<int64_t>(it->second)
        : slot.regions    ? slot.preset.value_or(0)
                          : slot.preset;
    if (!value)
      return emitError(UnknownLoc::get(ctx))
             << "knob '" << slot.name << "' of '" << sequence
             << "' has no value";
    if (slot.regions && (*value < 0 || *value >= slot.regions))
      return emitError(UnknownLoc::get(ctx))
             << "alternatives '" << slot.name << "' of '" << sequence
             << "' have no region " << *value;
    values.push_back(*value);
  }
  for (const auto &[knob, value] : knobs)
    if (llvm::none_of(callee.slots, [&](const auto &slot) {
          return slot.name == knob;
        }))
      return emitError(UnknownLoc::get(ctx))
             << "'" << sequence << "' has no knob '" << knob << "'";

  // The action: tag the group, run the template with the values, untag.
  transform::NamedSequenceOp entry = state->lookupTemplate(sequence);
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(state->library.getBody());
  Location loc = entry.getLoc();
  auto action = transform::NamedSequenceOp::create(
      b, loc, name, TypeAttr::get(entry.getFunctionType()),
      /*sym_visibility=*/StringAttr(), entry.getArgAttrsAttr(),
      entry.getResAttrsAttr());
  Block *body = b.createBlock(&action.getBody(), {},
                              entry.getArgumentTypes(),
                              SmallVector<Location>(entry.getNumArguments(), loc));
  Value group = body->getArgument(0);
  PrepareGroupOp::create(b, loc, group, b.getStringAttr(sequence));
  SmallVector<Value> operands(body->getArguments());
  for (auto [slot, value] : llvm::zip_equal(callee.slots, values))
    operands.push_back(transform::ParamConstantOp::create(
        b, loc, slot.type, b.getI64IntegerAttr(value)));
  auto include = transform::IncludeOp::create(
      b, loc, entry.getResultTypes(),
      SymbolRefAttr::get(transform::NamedSequenceOp(callee.sequence)
                             .getSymNameAttr()),
      transform::FailurePropagationMode::Propagate, operands,
      /*arg_attrs=*/ArrayAttr(), /*res_attrs=*/ArrayAttr());
  ClearTagsOp::create(b, loc, group);
  transform::YieldOp::create(b, loc, include.getResults());
  state->librarySymbols.insert(action);
  return action.getOperation();
}


//===----------------------------------------------------------------------===//
// The vector registers of the CPU a module is compiled for
//===----------------------------------------------------------------------===//

int64_t VectorModel::scaled(int64_t count) const {
  return std::max<int64_t>(1, count * bits * registers / (512 * 32));
}

/// The model an `int21.vector_registers` attribute gives, or none when it
/// is malformed.
static std::optional<VectorModel> parseVectorModel(Attribute attr) {
  auto values = dyn_cast<DenseI64ArrayAttr>(attr);
  if (!values || values.size() != 2)
    return std::nullopt;
  VectorModel model;
  model.bits = values[0];
  model.registers = values[1];
  if (!llvm::is_contained({128, 256, 512}, model.bits) ||
      model.registers < 8 || model.registers > 64)
    return std::nullopt;
  return model;
}

VectorModel VectorModel::of(Operation *op) {
  for (Operation *at = op; at; at = at->getParentOp())
    if (isa<ModuleOp>(at))
      if (Attribute attr = at->getAttr(kAttrName))
        return parseVectorModel(attr).value_or(VectorModel());
  return VectorModel();
}

LogicalResult VectorModel::verify(Operation *op) {
  WalkResult result = op->walk([](ModuleOp module) {
    Attribute attr = module->getAttr(kAttrName);
    if (attr && !parseVectorModel(attr)) {
      module.emitError() << "'" << kAttrName
                         << "' must be array<i64: BITS, COUNT> with BITS 128, "
                            "256 or 512 and COUNT 8 to 64, got "
                         << attr;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void VectorModel::annotate(ModuleOp module) const {
  if (isReference()) {
    module->removeAttr(kAttrName);
    return;
  }
  module->setAttr(kAttrName, DenseI64ArrayAttr::get(module.getContext(),
                                                    {bits, registers}));
}

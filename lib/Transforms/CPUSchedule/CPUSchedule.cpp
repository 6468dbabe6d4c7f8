//===- CPUSchedule.cpp - apply the default CPU or GPU schedule to groups --===//
//
// Every fusion group is classified (matmul, batch matmul, conv, elementwise,
// anything else), the matching templates of lib/Transforms/Schedules/<target>
// (embedded at build time) get their knobs resolved from the payload's shape,
// and the first template that applies is kept. Templates are tried on a
// clone of the group, so one that fails leaves the group as it was. The
// machinery (template library, knob resolution, classification, knob
// domains) is shared by the targets; int21-cpu-schedule and
// int21-gpu-schedule differ in their template sets and default knobs.
//
//===----------------------------------------------------------------------===//

#include "DefaultKnobs.h"

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/CPUSchedule.h"
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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
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
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Debug.h"

#include <memory>

namespace mlir::int21 {
#define GEN_PASS_DEF_INT21CPUSCHEDULE
#define GEN_PASS_DEF_INT21GPUSCHEDULE
#include "int21/Transforms/Passes.h.inc"
} // namespace mlir::int21

#define DEBUG_TYPE "int21-cpu-schedule"

using namespace mlir;
using namespace mlir::int21;
using mlir::int21::ScheduleTarget;

namespace {

// Tags the templates match payload ops by (see matmul.mlir).
constexpr StringLiteral kRootTag = "int21.root";
constexpr StringLiteral kAnchorTag = "int21.anchor";
constexpr StringLiteral kFuseTag = "int21.fuse";
constexpr StringLiteral kElementwiseTag = "int21.ew";
constexpr StringLiteral kTags[] = {kRootTag, kAnchorTag, kFuseTag,
                                   kElementwiseTag};

struct EmbeddedTemplate {
  const char *fileName;
  const char *text;
};

const EmbeddedTemplate kCPUTemplates[] = {
#include "int21/Transforms/CPUSchedules.inc"
};

const EmbeddedTemplate kGPUTemplates[] = {
#include "int21/Transforms/GPUSchedules.inc"
};

ArrayRef<EmbeddedTemplate> getTemplates(ScheduleTarget target) {
  if (target == ScheduleTarget::GPU)
    return kGPUTemplates;
  return kCPUTemplates;
}

/// One way to schedule a group: a template sequence, its knob values and the
/// tags to put on the group's ops.
struct Plan {
  std::string sequence;
  cpu::Knobs knobs;
  /// The dimensions the knobs tile (see cpu::ScheduleChoice::dims).
  SmallVector<int64_t> dims;
  SmallVector<std::pair<Operation *, StringRef>> tags;
};

bool hasStaticTensorLoops(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() &&
         llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
}

bool isAllParallel(linalg::LinalgOp op) {
  return op.getNumLoops() == op.getNumParallelLoops();
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
  auto root = yield.getValues()[0].getDefiningOp<linalg::LinalgOp>();
  if (!root || root->getParentOp() != group || root->getNumResults() != 1)
    return {};
  return root;
}

/// True when `op` is elementwise over exactly the iteration space `shape`.
bool isElementwiseOver(linalg::LinalgOp op, ArrayRef<int64_t> shape) {
  return isAllParallel(op) && hasStaticTensorLoops(op) &&
         op->getNumResults() == 1 && op.getStaticLoopRanges() == shape;
}

bool isPlainMatmul(Operation *op) {
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    return !matmul.hasUserDefinedMaps();
  if (auto matmul = dyn_cast<linalg::BatchMatmulOp>(op))
    return !matmul.hasUserDefinedMaps();
  return false;
}

bool isPlainConv(Operation *op) {
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op);
  return conv && llvm::all_of(conv.getDilations().getValues<int64_t>(),
                              [](int64_t d) { return d == 1; });
}

/// The anchor-based plans: matmul or conv with elementwise ops around it.
std::optional<Plan> planAnchored(FusionGroupOp group, linalg::LinalgOp root,
                                 ArrayRef<linalg::LinalgOp> ops) {
  SmallVector<linalg::LinalgOp> anchors;
  for (linalg::LinalgOp op : ops)
    if (!isAllParallel(op))
      anchors.push_back(op);
  if (anchors.size() != 1)
    return std::nullopt;
  linalg::LinalgOp anchor = anchors.front();
  bool matmul = isPlainMatmul(anchor);
  bool conv = isPlainConv(anchor);
  if ((!matmul && !conv) || !hasStaticTensorLoops(anchor))
    return std::nullopt;
  auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
  for (linalg::LinalgOp op : ops)
    if (op != anchor && !isElementwiseOver(op, outType.getShape()))
      return std::nullopt;

  Plan plan;
  SmallVector<int64_t> loops = anchor.getStaticLoopRanges();
  plan.tags.push_back({root, kRootTag});
  plan.tags.push_back({anchor, kAnchorTag});
  if (conv) {
    // [n, f, oh, ow, c, kh, kw]; the elementwise ops stay separate from the
    // im2col contraction (reshapes lie between them).
    plan.sequence = "cpu.conv2d_nchw";
    plan.dims = {loops[1], loops[2], loops[3], loops[4] * loops[5] * loops[6]};
    plan.knobs =
        cpu::conv2dKnobs(loops[1], loops[2], loops[3],
                         loops[4] * loops[5] * loops[6]);
    for (linalg::LinalgOp op : ops)
      if (op != anchor)
        plan.tags.push_back({op, kElementwiseTag});
    return plan;
  }
  bool batched = isa<linalg::BatchMatmulOp>(anchor);
  plan.sequence = batched ? "cpu.batch_matmul" : "cpu.matmul";
  size_t b = batched ? 1 : 0;
  plan.knobs = cpu::matmulKnobs(loops[b], loops[b + 1], loops[b + 2]);
  plan.dims = {loops[b], loops[b + 1], loops[b + 2]};
  for (linalg::LinalgOp op : ops) {
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
    if (op != anchor)
      plan.tags.push_back({op, kElementwiseTag});
  }
  return plan;
}

/// Every op elementwise over the root's iteration space.
std::optional<Plan> planElementwise(linalg::LinalgOp root,
                                    ArrayRef<linalg::LinalgOp> ops) {
  if (!hasStaticTensorLoops(root) || !isAllParallel(root))
    return std::nullopt;
  SmallVector<int64_t> shape = root.getStaticLoopRanges();
  if (shape.empty() || shape.size() > 4)
    return std::nullopt;
  for (linalg::LinalgOp op : ops)
    if (!isElementwiseOver(op, shape))
      return std::nullopt;
  Plan plan;
  plan.sequence = "cpu.elementwise_" + std::to_string(shape.size()) + "d";
  plan.knobs = cpu::elementwiseKnobs(shape);
  plan.dims = shape;
  plan.tags.push_back({root, kRootTag});
  for (linalg::LinalgOp op : ops) {
    plan.tags.push_back({op, kElementwiseTag});
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
  }
  return plan;
}

/// Threads over the root's leading parallel dimensions, the rest fused.
std::optional<Plan> planOuterForall(linalg::LinalgOp root,
                                    ArrayRef<linalg::LinalgOp> ops) {
  if (!hasStaticTensorLoops(root))
    return std::nullopt;
  SmallVector<int64_t> shape = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  unsigned parallel = 0;
  while (parallel < 2 && parallel < iterators.size() &&
         iterators[parallel] == utils::IteratorType::parallel)
    ++parallel;
  if (parallel == 0)
    return std::nullopt;
  // A unit leading dimension gives no threads: use the second one too.
  unsigned dims = (parallel == 2 && shape[0] < 4) ? 2 : 1;
  Plan plan;
  plan.sequence = "cpu.outer_forall_" + std::to_string(dims) + "d";
  plan.knobs = cpu::outerForallKnobs(shape, dims);
  plan.dims.assign(shape.begin(), shape.begin() + dims);
  plan.tags.push_back({root, kRootTag});
  for (linalg::LinalgOp op : ops)
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
  return plan;
}

/// The GPU plans: a contraction template for matmul groups, else the
/// template of the group's class over the root's leading parallel
/// dimensions (see Schedules/gpu/parallel.mlir).
SmallVector<Plan> planGPUDefaults(FusionGroupOp group) {
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
      plan.knobs = mlir::int21::gpu::matmulKnobs(loops[b], loops[b + 1],
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
    return isa<linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(
        op.getOperation());
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
  plan.knobs = mlir::int21::gpu::parallelKnobs(shape, tiled);
  plan.dims.assign(shape.begin(), shape.begin() + parallel);
  plan.tags.push_back({root, kRootTag});
  for (linalg::LinalgOp op : ops)
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
  plans.push_back(std::move(plan));
  return plans;
}

/// The plans of the default CPU schedule for a group, most specific first.
SmallVector<Plan> planCPUDefaults(FusionGroupOp group) {
  SmallVector<Plan> plans;
  linalg::LinalgOp root = getRoot(group);
  if (!root)
    return plans;
  // A group that computes nothing (a dimension of 0) needs no schedule, and
  // the knob heuristics divide by its dimensions.
  if (hasStaticTensorLoops(root) &&
      llvm::is_contained(root.getStaticLoopRanges(), 0))
    return plans;
  SmallVector<linalg::LinalgOp> ops = getLinalgOps(group);
  // Vectors of i1 are bit-packed in memory, tensors of i1 one byte per
  // element: groups that touch booleans get threads but no vectors.
  bool touchesBool = llvm::any_of(ops, [](linalg::LinalgOp op) {
    auto isBool = [](Type t) { return getElementTypeOrSelf(t).isInteger(1); };
    return llvm::any_of(op->getOperandTypes(), isBool) ||
           llvm::any_of(op->getResultTypes(), isBool);
  });
  if (!touchesBool) {
    if (std::optional<Plan> plan = planAnchored(group, root, ops))
      plans.push_back(std::move(*plan));
    if (std::optional<Plan> plan = planElementwise(root, ops))
      plans.push_back(std::move(*plan));
  }
  if (std::optional<Plan> plan = planOuterForall(root, ops))
    plans.push_back(std::move(*plan));
  return plans;
}

SmallVector<Plan> planDefaults(FusionGroupOp group, ScheduleTarget target) {
  if (target == ScheduleTarget::GPU)
    return planGPUDefaults(group);
  return planCPUDefaults(group);
}

/// Sets the knob values a schedule attribute or the pass option gives.
void overrideKnobs(cpu::Knobs &knobs, DictionaryAttr values) {
  for (NamedAttribute knob : values) {
    if (auto value = dyn_cast<IntegerAttr>(knob.getValue()))
      knobs[knob.getName().getValue()] = value.getInt();
    else if (auto flag = dyn_cast<BoolAttr>(knob.getValue()))
      knobs[knob.getName().getValue()] = flag.getValue();
  }
}

/// The default plans, led by the group's own schedule when it names one of
/// their templates (the defaults stay behind it as fallbacks); `named` says
/// whether it did.
SmallVector<Plan> planGroup(FusionGroupOp group, ScheduleTarget target,
                            bool &named) {
  named = false;
  SmallVector<Plan> plans = planDefaults(group, target);
  ScheduleAttr schedule = group.getScheduleAttr();
  if (!schedule)
    return plans;
  auto it = llvm::find_if(plans, [&](const Plan &plan) {
    return plan.sequence == schedule.getName().getValue();
  });
  if (it == plans.end())
    return plans;
  Plan own = *it;
  overrideKnobs(own.knobs, schedule.getKnobs());
  plans.insert(plans.begin(), std::move(own));
  named = true;
  return plans;
}

void clearTags(Operation *scope) {
  scope->walk([](Operation *op) {
    for (StringRef tag : kTags)
      op->removeAttr(tag);
  });
}

/// Parses the embedded template files into one module of named sequences.
FailureOr<OwningOpRef<ModuleOp>> parseTemplateLibrary(MLIRContext *ctx,
                                                      ScheduleTarget target) {
  // The files reference each other's sequences: verify only once merged.
  OwningOpRef<ModuleOp> merged = ModuleOp::create(UnknownLoc::get(ctx));
  (*merged)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                     UnitAttr::get(ctx));
  ParserConfig config(ctx, /*verifyAfterParse=*/false);
  for (const EmbeddedTemplate &file : getTemplates(target)) {
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(file.text, config, file.fileName);
    if (!parsed)
      return failure();
    for (Operation &op :
         llvm::make_early_inc_range(parsed->getBody()->getOperations()))
      op.moveBefore(merged->getBody(), merged->getBody()->end());
  }
  if (failed(verify(*merged)))
    return failure();
  return merged;
}

/// Calls `fn` on every knob and alternatives op of `sequence` and of the
/// sequences it includes, each once.
void forEachTunable(transform::NamedSequenceOp sequence, ModuleOp library,
                    function_ref<void(Operation *)> fn) {
  SmallVector<transform::NamedSequenceOp> work = {sequence};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    transform::NamedSequenceOp next = work.pop_back_val();
    if (!seen.insert(next).second)
      continue;
    next.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<transform::tune::KnobOp, transform::tune::AlternativesOp>(op))
        fn(op);
      if (auto include = dyn_cast<transform::IncludeOp>(op))
        if (auto callee = library.lookupSymbol<transform::NamedSequenceOp>(
                include.getTarget()))
          work.push_back(callee);
    });
  }
}

/// Resolves every knob and alternative of `sequence` (and of the sequences
/// it includes) from `knobs`; those not named keep the template's own
/// `selected` value, alternatives their first region. A value outside a
/// knob's listed options joins the list: the options describe the search
/// space, a default may lie between its points. Fails when an alternative
/// index names no region.
LogicalResult resolveKnobs(transform::NamedSequenceOp sequence,
                           ModuleOp library, const cpu::Knobs &knobs) {
  Builder b(sequence.getContext());
  bool ok = true;
  forEachTunable(sequence, library, [&](Operation *op) {
    if (auto knob = dyn_cast<transform::tune::KnobOp>(op)) {
      auto it = knobs.find(knob.getName());
      if (it == knobs.end())
        return;
      Attribute value = b.getI64IntegerAttr(it->second);
      if (auto options = dyn_cast<ArrayAttr>(knob.getOptions());
          options && !llvm::is_contained(options, value)) {
        SmallVector<Attribute> extended(options.getValue());
        extended.push_back(value);
        knob.setOptionsAttr(b.getArrayAttr(extended));
      }
      knob.setSelectedAttr(value);
      return;
    }
    auto alternatives = cast<transform::tune::AlternativesOp>(op);
    if (alternatives.getSelectedRegionParam())
      return;
    int64_t region = 0;
    if (auto it = knobs.find(alternatives.getName()); it != knobs.end())
      region = it->second;
    else if (auto selected = alternatives.getSelectedRegionAttrAttr())
      region = selected.getInt();
    if (region < 0 ||
        region >= static_cast<int64_t>(alternatives->getNumRegions())) {
      ok = false;
      return;
    }
    alternatives.setSelectedRegionAttrAttr(b.getIndexAttr(region));
  });
  return success(ok);
}

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

void moveYieldedReshapesOut(FusionGroupOp group);

/// Reshapes at a group's boundary are data movement, not work: a reshape
/// of a value from outside moves before the group, and a reshape of a
/// yielded value after it, so that the group ends in its compute op (a
/// matmul over collapsed batch dimensions, say) and a template matches.
void moveReshapesOut(FusionGroupOp group) {
  auto isReshape = [](Operation *op) {
    return isa_and_present<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
        op);
  };
  for (Operation &op :
       llvm::make_early_inc_range(group.getBody().front().getOperations()))
    if (isReshape(&op) && !group->isAncestor(
                              op.getOperand(0).getParentRegion()->getParentOp()))
      op.moveBefore(group);
  // Elementwise consumers of an expanded result run on the collapsed shape
  // instead, so that the expansion reaches the yield (a linear layer's
  // bias and activation over [b * m, n] rather than [b, m, n]).
  {
    RewritePatternSet patterns(group->getContext());
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [&](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          return producer && producer->getParentOp() == group.getOperation();
        });
    // Around a matmul, unit dimensions of the elementwise ops go too (a
    // bias over [m, 1, n]), so that they run over the matmul's [m, n].
    bool aroundMatmul = llvm::any_of(
        group.getBody().front(), [](Operation &op) {
          return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
        });
    linalg::ControlDropUnitDims unitDims;
    if (aroundMatmul)
      linalg::populateFoldUnitExtentDimsPatterns(patterns, unitDims);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         group->getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns,
                                                       group->getContext());
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyPatternsGreedily(group.getBody(), std::move(patterns), config);
  }
  moveYieldedReshapesOut(group);
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
    while (isReshape(reshape) && reshape->getParentOp() == group &&
           reshape->getResult(0).hasOneUse()) {
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

/// Parses the pass's `knobs` option, TEMPLATE.NAME=VALUE,... into knob
/// values per template.
FailureOr<llvm::StringMap<cpu::Knobs>> parseKnobOption(StringRef option,
                                                       std::string &error) {
  llvm::StringMap<cpu::Knobs> byTemplate;
  SmallVector<StringRef> items;
  option.split(items, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [key, text] = item.trim().split('=');
    size_t dot = key.rfind('.');
    int64_t value;
    if (dot == StringRef::npos || dot == 0 || dot + 1 == key.size() ||
        text.trim().getAsInteger(10, value)) {
      error = ("expected TEMPLATE.NAME=INTEGER, got '" + item.trim() + "'")
                  .str();
      return failure();
    }
    byTemplate[key.take_front(dot)][key.drop_front(dot + 1)] = value;
  }
  return byTemplate;
}

/// Gives every destination in `group` that is a tensor.empty shared with
/// other ops a tensor.empty of its own, and fuses chains of elementwise
/// generics of the group into one. On the GPU a fused producer otherwise
/// writes into the slice of the block's output that its consumer writes
/// too, which bufferization resolves with copies of whole tiles; with its
/// own destination a producer's tile is a temporary of its thread (or, for
/// a contraction's accumulator, of its block).
void prepareGroupForGPU(FusionGroupOp group) {
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
  linalg::LinalgOp root = getRoot(group);
  for (linalg::LinalgOp op : getLinalgOps(group)) {
    if (op == root)
      continue;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
      if (!empty || empty->hasOneUse())
        continue;
      OpBuilder b(op);
      init.set(b.clone(*empty)->getResult(0));
    }
  }
}

/// Splat tensor constants (outline-weights leaves them in the code) become
/// fills, computed by a kernel: a constant buffer would stay on the host,
/// where kernels cannot read it.
void materializeSplats(ModuleOp module) {
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
void dropMemorySpaces(Operation *scope) {
  scope->walk([](bufferization::AllocTensorOp alloc) {
    alloc.removeMemorySpaceAttr();
  });
}

/// What the two schedule passes share: the template library of a target,
/// the knob option, and the application of plans to groups.
class ScheduleDriver {
public:
  explicit ScheduleDriver(ScheduleTarget target) : target(target) {}

  LogicalResult initialize(MLIRContext *ctx, StringRef passName,
                           StringRef knobOption) {
    std::string error;
    FailureOr<llvm::StringMap<cpu::Knobs>> parsed =
        parseKnobOption(knobOption, error);
    if (failed(parsed))
      return emitError(UnknownLoc::get(ctx))
             << passName << ": knobs: " << error;
    overrides = std::make_shared<llvm::StringMap<cpu::Knobs>>(
        std::move(*parsed));
    FailureOr<OwningOpRef<ModuleOp>> merged = parseTemplateLibrary(ctx, target);
    if (failed(merged))
      return failure();
    library = std::make_shared<OwningOpRef<ModuleOp>>(std::move(*merged));
    return success();
  }

  /// Schedules every group of `module` and dissolves the groups.
  /// `threads` = false makes the CPU's thread tiles cover everything.
  LogicalResult run(ModuleOp module, bool strict, bool threads,
                    function_ref<LogicalResult(OpPassManager &, Operation *)>
                        runPipeline) {
    if (failed(cpu::prepareForScheduling(module)))
      return failure();

    SmallVector<FusionGroupOp> groups;
    module.walk([&](FusionGroupOp group) { groups.push_back(group); });
    for (FusionGroupOp group : groups) {
      if (target == ScheduleTarget::GPU)
        prepareGroupForGPU(group);
      ScheduleAttr schedule = group.getScheduleAttr();
      Location loc = group.getLoc();
      bool named;
      SmallVector<Plan> plans = planGroup(group, target, named);
      if (schedule && strict && !named)
        return emitError(loc) << "schedule " << schedule
                              << " names no template that fits this group";
      for (auto [i, plan] : llvm::enumerate(plans)) {
        if (succeeded(applyPlan(group, plan, threads)))
          break;
        // The group's own schedule is the first plan.
        if (i == 0 && named && strict)
          return emitError(loc) << "schedule " << schedule
                                << " does not apply to this group";
      }
    }

    clearTags(module);
    OpPassManager inliner(ModuleOp::getOperationName());
    inliner.addNestedPass<func::FuncOp>(createInt21InlineFusionGroups());
    return runPipeline(inliner, module);
  }

private:
  /// Applies `plan` to a clone of `group`; on success the clone replaces the
  /// group, otherwise the clone is dropped and the group stays as it was.
  LogicalResult applyPlan(FusionGroupOp group, const Plan &plan,
                          bool threads) {
    MLIRContext *ctx = group->getContext();
    OwningOpRef<ModuleOp> transforms = library->get().clone();
    auto sequence = transforms->lookupSymbol<transform::NamedSequenceOp>(
        plan.sequence);
    if (!sequence)
      return failure();
    cpu::Knobs knobs = plan.knobs;
    if (auto it = overrides->find(plan.sequence); it != overrides->end())
      for (const auto &knob : it->second)
        knobs[knob.getKey()] = knob.getValue();
    if (!threads && target == ScheduleTarget::CPU) {
      // One thread tile covering everything: the templates' canonicalization
      // folds the single-iteration scf.forall away. (forall-to-for does not
      // handle the shared outputs that tensor tiling produces.)
      for (auto &knob : knobs)
        if (knob.getKey().starts_with("par_") || knob.getKey() == "ew_par_c")
          knob.second = int64_t(1) << 30;
    }
    if (failed(resolveKnobs(sequence, *transforms, knobs)))
      return failure();

    for (auto [op, tag] : plan.tags)
      op->setAttr(tag, UnitAttr::get(ctx));
    OpBuilder b(group);
    auto clone = cast<FusionGroupOp>(b.clone(*group.getOperation()));
    clearTags(group);

    LogicalResult result = success();
    {
      // A template that does not fit is an expected outcome, not an error.
      ScopedDiagnosticHandler silence(ctx, [](Diagnostic &diag) {
        LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << diag << "\n");
        return success();
      });
      transform::TransformOptions options;
      options.enableExpensiveChecks(false);
      result = transform::applyTransformNamedSequence(clone, sequence,
                                                      *transforms, options);
      if (succeeded(result))
        result = verify(clone);
    }
    if (failed(result)) {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << plan.sequence
                              << " does not apply at " << group.getLoc()
                              << "\n");
      clone->erase();
      return failure();
    }

    group->replaceAllUsesWith(clone->getResults());
    group->erase();
    return success();
  }

  ScheduleTarget target;
  /// The merged template library and the knob option, parsed once per pass
  /// instance and shared by its clones (read-only: each application works
  /// on its own copy of the library).
  std::shared_ptr<OwningOpRef<ModuleOp>> library;
  std::shared_ptr<llvm::StringMap<cpu::Knobs>> overrides;
};

struct CPUSchedulePass
    : int21::impl::Int21CPUScheduleBase<CPUSchedulePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    cpu::registerScheduleDialects(registry);
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    return driver.initialize(ctx, "int21-cpu-schedule", knobs);
  }

  void runOnOperation() override {
    if (failed(driver.run(getOperation(), strict, threads,
                          [&](OpPassManager &pm, Operation *op) {
                            return runPipeline(pm, op);
                          })))
      signalPassFailure();
  }

  ScheduleDriver driver{ScheduleTarget::CPU};
};

struct GPUSchedulePass
    : int21::impl::Int21GPUScheduleBase<GPUSchedulePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    cpu::registerScheduleDialects(registry);
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    if (chip != "sm_80" && chip != "sm_90")
      return emitError(UnknownLoc::get(ctx))
             << "int21-gpu-schedule: unknown chip '" << chip
             << "' (expected sm_80 or sm_90)";
    return driver.initialize(ctx, "int21-gpu-schedule", knobs);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hostCheck)
      materializeSplats(module);
    if (failed(driver.run(module, strict, /*threads=*/true,
                          [&](OpPassManager &pm, Operation *op) {
                            return runPipeline(pm, op);
                          })))
      return signalPassFailure();
    if (hostCheck)
      dropMemorySpaces(module);
  }

  ScheduleDriver driver{ScheduleTarget::GPU};
};

} // namespace

void mlir::int21::cpu::registerScheduleDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, linalg::LinalgDialect,
                  tensor::TensorDialect, transform::TransformDialect,
                  vector::VectorDialect, scf::SCFDialect,
                  affine::AffineDialect, mlir::gpu::GPUDialect,
                  bufferization::BufferizationDialect>();
  linalg::registerTransformDialectExtension(registry);
  scf::registerTransformDialectExtension(registry);
  tensor::registerTransformDialectExtension(registry);
  vector::registerTransformDialectExtension(registry);
  mlir::gpu::registerTransformDialectExtension(registry);
  transform::registerLoopExtension(registry);
  transform::registerTuneExtension(registry);
  cpu::registerTransformExtension(registry);
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

LogicalResult mlir::int21::cpu::prepareForScheduling(ModuleOp module) {
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
  for (FusionGroupOp group : groups)
    moveReshapesOut(group);
  return success();
}

SmallVector<cpu::ScheduleChoice>
mlir::int21::cpu::getScheduleChoices(FusionGroupOp group,
                                     ScheduleTarget target) {
  SmallVector<ScheduleChoice> choices;
  FailureOr<OwningOpRef<ModuleOp>> library =
      parseTemplateLibrary(group.getContext(), target);
  if (failed(library))
    return choices;
  for (Plan &plan : planDefaults(group, target)) {
    auto sequence = (*library)->lookupSymbol<transform::NamedSequenceOp>(
        plan.sequence);
    if (!sequence)
      continue;
    ScheduleChoice choice;
    choice.sequence = plan.sequence;
    choice.dims = plan.dims;
    forEachTunable(sequence, **library, [&](Operation *op) {
      KnobDomain domain;
      int64_t value = 0;
      if (auto knob = dyn_cast<transform::tune::KnobOp>(op)) {
        domain.name = knob.getName().str();
        if (std::optional<SmallVector<int64_t>> derived =
                target == ScheduleTarget::GPU
                    ? mlir::int21::gpu::knobDomain(plan.sequence, domain.name,
                                                   plan.dims)
                    : cpu::knobDomain(plan.sequence, domain.name, plan.dims))
          domain.options = std::move(*derived);
        else if (auto options = dyn_cast<ArrayAttr>(knob.getOptions()))
          for (Attribute option : options)
            if (auto integer = dyn_cast<IntegerAttr>(option))
              domain.options.push_back(integer.getInt());
        auto selected = dyn_cast_or_null<IntegerAttr>(knob.getSelectedAttr());
        if (auto it = plan.knobs.find(domain.name); it != plan.knobs.end())
          value = it->second;
        else if (selected)
          value = selected.getInt();
        else if (!domain.options.empty())
          value = domain.options.front();
        else
          return; // Not an integer knob: not searched.
      } else {
        auto alternatives = cast<transform::tune::AlternativesOp>(op);
        domain.name = alternatives.getName().str();
        domain.alternative = true;
        for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
          domain.options.push_back(i);
        if (auto selected = alternatives.getSelectedRegionAttrAttr())
          value = selected.getInt();
      }
      if (choice.defaults.count(domain.name))
        return; // The same knob in an included sequence.
      if (!llvm::is_contained(domain.options, value))
        domain.options.push_back(value);
      llvm::sort(domain.options);
      choice.defaults[domain.name] = value;
      choice.domains.push_back(std::move(domain));
    });
    choices.push_back(std::move(choice));
  }
  return choices;
}

bool mlir::int21::cpu::isPlausible(const ScheduleChoice &choice, const Knobs &knobs,
                      std::string &why) {
  for (const KnobDomain &domain : choice.domains) {
    auto it = knobs.find(domain.name);
    if (it == knobs.end()) {
      why = "no value for '" + domain.name + "'";
      return false;
    }
    if (!llvm::is_contained(domain.options, it->second)) {
      why = "'" + domain.name + "' = " + std::to_string(it->second) +
            " is not in its domain";
      return false;
    }
  }
  for (const auto &knob : knobs)
    if (llvm::none_of(choice.domains, [&](const KnobDomain &domain) {
          return domain.name == knob.getKey();
        })) {
      why = ("'" + knob.getKey() + "' is not a knob of " + choice.sequence)
                .str();
      return false;
    }
  if (StringRef(choice.sequence).starts_with("gpu."))
    return mlir::int21::gpu::checkKnobs(choice.sequence, knobs, choice.dims,
                                        why);
  return cpu::checkKnobs(choice.sequence, knobs, choice.dims, why);
}

LogicalResult mlir::int21::cpu::tagGroupForTemplate(FusionGroupOp group,
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

void mlir::int21::cpu::clearScheduleTags(Operation *scope) { clearTags(scope); }

Operation *mlir::int21::cpu::groupAnchor(FusionGroupOp group) {
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

LogicalResult mlir::int21::cpu::addResolvedSchedule(ModuleOp library,
                                                    StringRef sequence,
                                                    const Knobs &knobs,
                                                    StringRef name) {
  MLIRContext *ctx = library.getContext();
  FailureOr<OwningOpRef<ModuleOp>> templates = parseTemplateLibrary(ctx, ScheduleTarget::CPU);
  if (failed(templates))
    return failure();
  auto entry = (*templates)->lookupSymbol<transform::NamedSequenceOp>(sequence);
  if (!entry || failed(resolveKnobs(entry, **templates, knobs)))
    return failure();

  // The sequences reached from the entry, and whether each has knobs.
  SmallVector<transform::NamedSequenceOp> reached;
  DenseMap<Operation *, bool> tunable;
  SmallVector<transform::NamedSequenceOp> work = {entry};
  while (!work.empty()) {
    transform::NamedSequenceOp next = work.pop_back_val();
    if (tunable.count(next))
      continue;
    bool hasKnobs = false;
    next.walk([&](Operation *op) {
      if (isa<transform::tune::KnobOp, transform::tune::AlternativesOp>(op))
        hasKnobs = true;
      if (auto include = dyn_cast<transform::IncludeOp>(op))
        if (auto callee =
                (*templates)->lookupSymbol<transform::NamedSequenceOp>(
                    include.getTarget()))
          work.push_back(callee);
    });
    tunable[next] = hasKnobs;
    reached.push_back(next);
  }
  auto newName = [&](transform::NamedSequenceOp op) -> std::string {
    if (op == entry)
      return name.str();
    if (tunable.lookup(op))
      return (name + "." + op.getSymName()).str();
    return op.getSymName().str();
  };

  OpBuilder b(ctx);
  b.setInsertionPointToEnd(library.getBody());
  for (transform::NamedSequenceOp op : reached) {
    std::string renamed = newName(op);
    if (library.lookupSymbol(renamed))
      continue;
    auto clone = cast<transform::NamedSequenceOp>(b.clone(*op));
    clone.setSymName(renamed);
    clone.walk([&](transform::IncludeOp include) {
      if (auto callee = (*templates)->lookupSymbol<transform::NamedSequenceOp>(
              include.getTarget()))
        include.setTargetAttr(
            SymbolRefAttr::get(ctx, newName(callee)));
    });
    if (op != entry)
      continue;
    // The entry tags the group first and untags it last.
    Block &body = clone.getBody().front();
    Value group = body.getArgument(0);
    OpBuilder inner = OpBuilder::atBlockBegin(&body);
    PrepareGroupOp::create(inner, clone.getLoc(), group,
                           inner.getStringAttr(sequence));
    inner.setInsertionPoint(body.getTerminator());
    ClearTagsOp::create(inner, clone.getLoc(), group);
  }
  return verify(library);
}

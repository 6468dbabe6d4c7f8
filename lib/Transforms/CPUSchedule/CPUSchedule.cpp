//===- CPUSchedule.cpp - apply the default CPU schedule to fusion groups --===//
//
// Every fusion group is classified (matmul, batch matmul, conv, elementwise,
// anything else), the matching templates of lib/Transforms/Schedules/cpu
// (embedded at build time) get their knobs resolved from the payload's shape,
// and the first template that applies is kept. Templates are tried on a
// clone of the group, so one that fails leaves the group as it was.
//
//===----------------------------------------------------------------------===//

#include "DefaultKnobs.h"

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
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
#include "int21/Transforms/Passes.h.inc"
} // namespace mlir::int21

#define DEBUG_TYPE "int21-cpu-schedule"

using namespace mlir;
using namespace mlir::int21;

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

const EmbeddedTemplate kTemplates[] = {
#include "int21/Transforms/CPUSchedules.inc"
};

/// One way to schedule a group: a template sequence, its knob values and the
/// tags to put on the group's ops.
struct Plan {
  std::string sequence;
  cpu::Knobs knobs;
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
  plan.tags.push_back({root, kRootTag});
  for (linalg::LinalgOp op : ops)
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
  return plan;
}

/// The plans for a group, most specific first.
SmallVector<Plan> planGroup(FusionGroupOp group) {
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
  if (auto schedule = group.getScheduleAttr()) {
    // A group that names its schedule gets it, with its knobs over the
    // defaults of whichever plan uses the same template.
    StringRef name = schedule.getName().getValue();
    for (std::optional<Plan> plan :
         {planAnchored(group, root, ops), planElementwise(root, ops),
          planOuterForall(root, ops)}) {
      if (!plan || plan->sequence != name)
        continue;
      for (NamedAttribute knob : schedule.getKnobs())
        if (std::optional<int64_t> value =
                schedule.getIntKnob(knob.getName().getValue()))
          plan->knobs[knob.getName().getValue()] = *value;
      plans.push_back(std::move(*plan));
    }
  }
  // Vectors of i1 are bit-packed in memory, tensors of i1 one byte per
  // element: groups that touch booleans get threads but no vectors.
  bool touchesBool = llvm::any_of(ops, [](linalg::LinalgOp op) {
    auto isBool = [](Type t) { return getElementTypeOrSelf(t).isInteger(1); };
    return llvm::any_of(op->getOperandTypes(), isBool) ||
           llvm::any_of(op->getResultTypes(), isBool);
  });
  if (touchesBool)
    plans.clear();
  if (std::optional<Plan> plan = planAnchored(group, root, ops);
      plan && !touchesBool)
    plans.push_back(std::move(*plan));
  if (std::optional<Plan> plan = planElementwise(root, ops);
      plan && !touchesBool)
    plans.push_back(std::move(*plan));
  if (std::optional<Plan> plan = planOuterForall(root, ops))
    plans.push_back(std::move(*plan));
  return plans;
}

void clearTags(Operation *scope) {
  scope->walk([](Operation *op) {
    for (StringRef tag : kTags)
      op->removeAttr(tag);
  });
}

/// Sets the `selected` value of every knob of `sequence` that `knobs` names.
/// A value outside the template's listed options joins the list: the options
/// describe the search space, the default may lie between its points.
void resolveKnobs(transform::NamedSequenceOp sequence, const cpu::Knobs &knobs) {
  Builder b(sequence.getContext());
  sequence.walk([&](transform::tune::KnobOp knob) {
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
  });
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

struct CPUSchedulePass
    : int21::impl::Int21CPUScheduleBase<CPUSchedulePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registry.insert<arith::ArithDialect, linalg::LinalgDialect,
                    tensor::TensorDialect>();
    linalg::registerTransformDialectExtension(registry);
    scf::registerTransformDialectExtension(registry);
    tensor::registerTransformDialectExtension(registry);
    vector::registerTransformDialectExtension(registry);
    transform::registerLoopExtension(registry);
    transform::registerTuneExtension(registry);
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

  LogicalResult initialize(MLIRContext *ctx) override {
    // One module holding the named sequences of every template file; the
    // files reference each other's sequences, so verify only once merged.
    OwningOpRef<ModuleOp> merged = ModuleOp::create(UnknownLoc::get(ctx));
    (*merged)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                       UnitAttr::get(ctx));
    ParserConfig config(ctx, /*verifyAfterParse=*/false);
    for (const EmbeddedTemplate &file : kTemplates) {
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
    library = std::shared_ptr<OwningOpRef<ModuleOp>>(
        new OwningOpRef<ModuleOp>(std::move(merged)));
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();

    // linalg.softmax has no loop lowering: decompose it into generics, which
    // the fallback template tiles and fuses like any other group.
    if (failed(decomposeAggregateOps(module)))
      return signalPassFailure();

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
    for (FusionGroupOp group : groups)
      for (Plan &plan : planGroup(group))
        if (succeeded(applyPlan(group, plan)))
          break;

    clearTags(module);
    OpPassManager inliner(ModuleOp::getOperationName());
    inliner.addNestedPass<func::FuncOp>(createInt21InlineFusionGroups());
    if (failed(runPipeline(inliner, module)))
      return signalPassFailure();
  }

  /// Reshapes at a group's boundary are data movement, not work: a reshape
  /// of a value from outside moves before the group, and a reshape of a
  /// yielded value after it, so that the group ends in its compute op (a
  /// matmul over collapsed batch dimensions, say) and a template matches.
  static void moveReshapesOut(FusionGroupOp group) {
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

  /// Applies `plan` to a clone of `group`; on success the clone replaces the
  /// group, otherwise the clone is dropped and the group stays as it was.
  LogicalResult applyPlan(FusionGroupOp group, const Plan &plan) {
    MLIRContext *ctx = &getContext();
    OwningOpRef<ModuleOp> transforms = library->get().clone();
    auto sequence = transforms->lookupSymbol<transform::NamedSequenceOp>(
        plan.sequence);
    if (!sequence)
      return failure();
    cpu::Knobs knobs = plan.knobs;
    if (!threads) {
      // One thread tile covering everything: the templates' canonicalization
      // folds the single-iteration scf.forall away. (forall-to-for does not
      // handle the shared outputs that tensor tiling produces.)
      for (auto &knob : knobs)
        if (knob.getKey().starts_with("par_") || knob.getKey() == "ew_par_c")
          knob.second = int64_t(1) << 30;
    }
    resolveKnobs(sequence, knobs);

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

  /// The merged template library, parsed once per pass instance and shared
  /// by its clones (read-only: each application works on its own copy).
  std::shared_ptr<OwningOpRef<ModuleOp>> library;
};

} // namespace

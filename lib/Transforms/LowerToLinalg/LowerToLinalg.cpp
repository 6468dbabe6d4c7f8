//===- LowerToLinalg.cpp - the int21-lower-to-linalg pass and helpers -----===//

#include "LowerToLinalg.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

namespace int21 {
#define GEN_PASS_DEF_INT21LOWERTOLINALG
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;
using namespace int21;
using namespace int21::lowering;

Value lowering::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                            ValueRange dynamicSizes) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamicSizes);
}

Value lowering::filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                             TypedAttr value, ValueRange dynamicSizes) {
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar,
                                emptyTensor(b, loc, type, dynamicSizes))
      .getResult(0);
}

/// The node a location names (the importer's NameLoc), for messages.
static std::string nodeOf(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = nodeOf(inner); !name.empty())
        return name;
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return "";
}

void lowering::assertExtent(OpBuilder &b, Location loc, Value actual,
                            OpFoldResult expected, const Twine &what) {
  Value want = getValueOrCreateConstantIndexOp(b, loc, expected);
  Value same =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, actual, want);
  std::string node = nodeOf(loc);
  cf::AssertOp::create(
      b, loc, same,
      ((node.empty() ? "" : "node '" + node + "': ") + what).str());
}

void lowering::assertHolds(OpBuilder &b, Location loc, Value holds,
                           const Twine &what) {
  std::string node = nodeOf(loc);
  cf::AssertOp::create(
      b, loc, holds,
      ((node.empty() ? "" : "node '" + node + "': ") + what).str());
}

Value lowering::elementCount(OpBuilder &b, Location loc, Value value,
                             ValueRange sizes) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t known = 1;
  Value count;
  for (int64_t d = 0, k = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      known *= type.getDimSize(d);
      continue;
    }
    Value extent = sizes.empty() ? Value(tensor::DimOp::create(b, loc, value, d))
                                 : sizes[k++];
    count = count ? Value(arith::MulIOp::create(b, loc, count, extent)) : extent;
  }
  Value constant = arith::ConstantIndexOp::create(b, loc, known);
  return count ? Value(arith::MulIOp::create(b, loc, count, constant))
               : constant;
}

SmallVector<Value> lowering::dynamicSizesOf(OpBuilder &b, Location loc,
                                            Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, value, d));
  return sizes;
}

SmallVector<Value> lowering::broadcastSizes(OpBuilder &b, Location loc,
                                            RankedTensorType type,
                                            ValueRange inputs) {
  SmallVector<Value> sizes;
  int64_t rank = type.getRank();
  for (int64_t d = 0; d < rank; ++d) {
    // The extent: static, or the first dynamic one of an input. Every other
    // dynamic extent of an input along `d` is read as that extent (not
    // broadcast from 1): the run must give the same.
    OpFoldResult extent = b.getIndexAttr(type.getDimSize(d));
    bool found = !type.isDynamicDim(d);
    for (auto [i, input] : llvm::enumerate(inputs)) {
      auto inputType = cast<RankedTensorType>(input.getType());
      int64_t aligned = d - (rank - inputType.getRank());
      if (aligned < 0 || !inputType.isDynamicDim(aligned))
        continue;
      Value dim = tensor::DimOp::create(b, loc, input, aligned);
      if (!found) {
        extent = dim;
        sizes.push_back(dim);
        found = true;
        continue;
      }
      assertExtent(b, loc, dim, extent,
                   "operand " + Twine(i) + " dimension " + Twine(aligned) +
                       " must match the broadcast extent of dimension " +
                       Twine(d) + " (int21 broadcasts dynamic extents only "
                       "against static ones of 1)");
    }
  }
  return sizes;
}

AffineMap lowering::broadcastIndexingMap(MLIRContext *ctx,
                                         ArrayRef<int64_t> operand,
                                         ArrayRef<int64_t> result) {
  size_t offset = result.size() - operand.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, size] : llvm::enumerate(operand)) {
    bool broadcast = size == 1 && result[i + offset] != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(i + offset, ctx));
  }
  return AffineMap::get(result.size(), 0, exprs, ctx);
}

Value lowering::parallelGeneric(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    ArrayRef<AffineMap> maps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body,
    ValueRange dynamicSizes) {
  int64_t rank = type.getRank();
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(b.getMultiDimIdentityMap(rank));
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs,
             emptyTensor(b, loc, type, dynamicSizes),
             allMaps,
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
             })
      .getResult(0);
}

Value lowering::broadcastingGeneric(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> maps;
  for (Value v : inputs)
    maps.push_back(broadcastIndexingMap(
        b.getContext(), cast<RankedTensorType>(v.getType()).getShape(),
        type.getShape()));
  return parallelGeneric(b, loc, type, inputs, maps, body,
                         broadcastSizes(b, loc, type, inputs));
}

Value lowering::normalizeIndex(OpBuilder &b, Location loc, Value index,
                               int64_t size) {
  if (!index.getType().isIndex())
    index = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, zero);
  Value wrapped = arith::AddIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, size));
  index = arith::SelectOp::create(b, loc, negative, wrapped, index);
  Value last =
      arith::ConstantIndexOp::create(b, loc, std::max<int64_t>(size - 1, 0));
  return arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, index, last), zero);
}

Value lowering::reshapeTensor(OpBuilder &b, Location loc, Value value,
                              RankedTensorType type) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source == type)
    return value;
  if (type.getRank() < source.getRank())
    if (auto reassociation = getReassociationIndicesForCollapse(
            source.getShape(), type.getShape()))
      return tensor::CollapseShapeOp::create(b, loc, type, value,
                                             *reassociation);
  if (type.getRank() > source.getRank())
    if (auto reassociation = getReassociationIndicesForCollapse(
            type.getShape(), source.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, type, value, *reassociation);
  // No single collapse or expand relates the shapes: go through 1-D (or
  // 0-D for one element).
  int64_t count = source.getNumElements();
  auto flatType = RankedTensorType::get(
      count == 1 && (source.getRank() == 0 || type.getRank() == 0)
          ? ArrayRef<int64_t>{}
          : ArrayRef<int64_t>{count},
      source.getElementType());
  Value flat = value;
  if (flatType != source) {
    SmallVector<ReassociationIndices> all;
    if (flatType.getRank() == 1)
      all.push_back(llvm::to_vector(llvm::seq<int64_t>(0, source.getRank())));
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, value, all);
  }
  if (flatType == type)
    return flat;
  SmallVector<ReassociationIndices> all;
  if (flatType.getRank() == 1)
    all.push_back(llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
  return tensor::ExpandShapeOp::create(b, loc, type, flat, all);
}

Value lowering::transposeTensor(OpBuilder &b, Location loc, Value value,
                                ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  // (The extents of a dynamic dimension read from `value`.)
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim : perm)
    sizes.push_back(tensor::getMixedSize(b, loc, value, dim));
  return linalg::TransposeOp::create(
             b, loc, value,
             tensor::EmptyOp::create(b, loc, sizes, type.getElementType()),
             perm)
      .getResult()[0];
}

Value lowering::columnPanels(OpBuilder &b, Location loc, Value matrix,
                             bool transposed) {
  auto type = cast<RankedTensorType>(matrix.getType());
  int64_t k = type.getDimSize(transposed ? 1 : 0),
          blocks = type.getDimSize(transposed ? 0 : 1) / 16;
  // [K, N/16, 16] or [N/16, 16, K], then the panels' order.
  SmallVector<int64_t> split =
      transposed ? SmallVector<int64_t>{blocks, 16, k}
                 : SmallVector<int64_t>{k, blocks, 16};
  Value blocked = reshapeTensor(
      b, loc, matrix, RankedTensorType::get(split, type.getElementType()));
  return transposeTensor(b, loc, blocked,
                         transposed ? ArrayRef<int64_t>{0, 2, 1}
                                    : ArrayRef<int64_t>{1, 0, 2});
}

Value lowering::panelProduct(OpBuilder &b, Location loc, Value lhs,
                             bool lhsTransposed, Value panels, Value init) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = {
      lhsTransposed ? AffineMap::get(4, 0, {d(3), d(0)}, ctx)
                    : AffineMap::get(4, 0, {d(0), d(3)}, ctx),
      AffineMap::get(4, 0, {d(1), d(3), d(2)}, ctx),
      AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{lhs, panels}, init, maps,
             iterators,
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               Value mul = arith::MulFOp::create(nb, nloc, args[0], args[1]);
               linalg::YieldOp::create(
                   nb, nloc,
                   arith::AddFOp::create(nb, nloc, args[2], mul).getResult());
             })
      .getResult(0);
}

bool lowering::isLowerableElementType(Type type) {
  if (isa<FloatType>(type))
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.isSignless() || integer.isUnsigned());
}

bool lowering::isUnsignedElementType(Type type) {
  return getElementTypeOrSelf(type).isUnsignedInteger();
}

Type lowering::signlessType(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (!element.isUnsignedInteger())
    return type;
  Type signless =
      IntegerType::get(type.getContext(), element.getIntOrFloatBitWidth());
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(signless);
  return signless;
}

SignlessTypeConverter::SignlessTypeConverter() {
  // Tried last to first: the catch-all keeps every other type.
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type) { return signlessType(type); });
  auto bitcast = [](OpBuilder &b, Type type, ValueRange inputs,
                    Location loc) -> Value {
    if (inputs.size() != 1 || !isa<RankedTensorType>(type) ||
        !isa<RankedTensorType>(inputs.front().getType()))
      return Value();
    return tensor::BitcastOp::create(b, loc, type, inputs.front());
  };
  addSourceMaterialization(bitcast);
  addTargetMaterialization(bitcast);
}

LogicalResult lowering::checkElementTypes(Operation *op, TypeRange types,
                                          ConversionPatternRewriter &rewriter) {
  for (Type t : types)
    if (!isLowerableElementType(getElementTypeOrSelf(t)))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
  return success();
}

namespace {
struct LowerToLinalgPass
    : int21::impl::Int21LowerToLinalgBase<LowerToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, cf::ControlFlowDialect,
                           linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addIllegalDialect<Int21Dialect>();
    target.addLegalOp<FusionGroupOp, YieldOp, BoundedExtentOp>();
    // Random numbers: a buffer the engine's generator fills.
    target.addLegalOp<memref::AllocOp, memref::ExtractAlignedPointerAsIndexOp,
                      func::CallOp, bufferization::ToTensorOp>();

    // The ops lowered on dynamic extents so far; any other says so.
    WalkResult dynamic = getOperation().walk([&](Operation *op) {
      // An average's divisors are computed per output position at compile
      // time; on dynamic extents only windows that never reach padding (one
      // divisor) are.
      if (auto pool = dyn_cast<AvgPoolOp>(op);
          pool && !pool.getType().hasStaticShape() &&
          (pool.getCeilMode() ||
           llvm::any_of(pool.getPads(), [](int64_t p) { return p != 0; }))) {
        pool.emitOpError() << "on dynamic extents with pads or ceil_mode is "
                              "not lowered yet: give the model's inputs "
                              "static shapes with --input-shape";
        return WalkResult::interrupt();
      }
      // Padding on dynamic extents: with a constant, never cropping.
      if (auto pad = dyn_cast<PadOp>(op)) {
        if (!pad.getType().hasStaticShape() &&
            (pad.getMode() != PadMode::Constant ||
             llvm::any_of(pad.getPads(), [](int64_t p) { return p < 0; }))) {
          pad.emitOpError() << "on dynamic extents in mode '"
                            << stringifyPadMode(pad.getMode())
                            << "' or with negative pads is not lowered yet: "
                               "give the model's inputs static shapes with "
                               "--input-shape";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      }
      // Index tuples of a static size into dimensions of static extents.
      if (auto gather = dyn_cast<GatherNDOp>(op)) {
        auto data = cast<RankedTensorType>(gather.getData().getType());
        auto indices = cast<RankedTensorType>(gather.getIndices().getType());
        int64_t indexed = gather.getBatchDims() + indices.getShape().back();
        if (llvm::any_of(data.getShape().take_front(indexed),
                         ShapedType::isDynamic)) {
          gather.emitOpError() << "with dynamic extents in the dimensions its "
                                  "index tuples address ("
                               << data << ") is not lowered yet: give the "
                               << "model's inputs static shapes with "
                                  "--input-shape";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      }
      // A layer norm divides by the count of what it normalises, static.
      if (auto norm = dyn_cast<LayerNormOp>(op)) {
        auto type = cast<RankedTensorType>(norm.getType());
        int64_t axis = norm.getAxis() < 0 ? norm.getAxis() + type.getRank()
                                          : norm.getAxis();
        if (llvm::any_of(type.getShape().drop_front(axis),
                         ShapedType::isDynamic)) {
          norm.emitOpError() << "on dynamic extents in the normalised "
                                "dimensions is not lowered yet: give the "
                                "model's inputs static shapes with "
                                "--input-shape";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      }
      if (!isa<Int21Dialect>(op->getDialect()) ||
          op->hasTrait<int21::OpTrait::ElementwiseBroadcastable>() ||
          isa<MatMulOp, ReshapeOp, TransposeOp, ConcatOp, SliceOp, ExpandOp,
              IotaOp, DynamicSliceOp, ResizeOp, ConvOp, MaxPoolOp,
              AvgPoolOp, BatchNormOp, SoftmaxOp, LogSoftmaxOp, NonZeroOp,
              UniqueOp, NonMaxSuppressionOp, GatherOp, RandomOp,
              ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp,
              FusionGroupOp, YieldOp>(op))
        return WalkResult::advance();
      for (Type type : op->getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(type);
            tensor && !tensor.hasStaticShape()) {
          op->emitError() << "'" << op->getName() << "' on dynamic extents ("
                          << type << ") is not lowered yet: give the model's "
                          << "inputs static shapes with --input-shape";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return signalPassFailure();

    SignlessTypeConverter converter;
    RewritePatternSet patterns(ctx);
    populateElementwiseLoweringPatterns(converter, patterns);
    populateStructuredLoweringPatterns(converter, patterns, filterLanes);
    populateNNLoweringPatterns(converter, patterns, filterLanes);
    populateNormalizationLoweringPatterns(converter, patterns);
    populateDataMovementLoweringPatterns(converter, patterns);
    populateIndexingLoweringPatterns(converter, patterns);
    populateResamplingLoweringPatterns(converter, patterns);
    populateScanLoweringPatterns(converter, patterns);
    populateDataDependentLoweringPatterns(converter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    resolveDynamicExtents();
    moveAnchorReshapesPastEpilogues();
    // (The epilogues moved past the reshapes take their extents from the
    // values they read: resolved again before fusion replaces those.)
    resolveDynamicExtents();
    fuseEpilogues();
  }

  /// The dynamic extents the lowering took from computed values (tensor.dim
  /// of an op's result) taken from what computes them instead, down to the
  /// function's arguments: no extent then depends on a value that fusion
  /// rewrites, and equal extents are one value.
  void resolveDynamicExtents() {
    SmallVector<Operation *> dims;
    getOperation().walk([&](tensor::DimOp dim) { dims.push_back(dim); });
    if (dims.empty())
      return;
    RewritePatternSet patterns(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    tensor::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    GreedyRewriteConfig config;
    config.enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled)
        .setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(dims, frozen, config);

    // The extent of a group's result is that of the value it yields, when
    // that resolves to values outside the group.
    IRRewriter rewriter(&getContext());
    for (bool changed = true; changed;) {
      changed = false;
      SmallVector<tensor::DimOp> outer;
      getOperation().walk([&](tensor::DimOp dim) {
        if (dim.getSource().getDefiningOp<FusionGroupOp>() &&
            dim.getConstantIndex())
          outer.push_back(dim);
      });
      for (tensor::DimOp dim : outer) {
        auto group = dim.getSource().getDefiningOp<FusionGroupOp>();
        Value yielded = group.getYield()->getOperand(
            cast<OpResult>(dim.getSource()).getResultNumber());
        rewriter.setInsertionPoint(group.getYield());
        auto inner = tensor::DimOp::create(rewriter, dim.getLoc(), yielded,
                                           *dim.getConstantIndex());
        // A placeholder use keeps the value through the rewrites.
        auto anchor = UnrealizedConversionCastOp::create(
            rewriter, dim.getLoc(), TypeRange(), ValueRange{inner});
        (void)applyOpPatternsGreedily({inner.getOperation()}, frozen, config);
        Value resolved = anchor->getOperand(0);
        rewriter.eraseOp(anchor);
        Operation *def = resolved.getDefiningOp();
        bool outside = !def || !group->isAncestor(def);
        SmallVector<Operation *> slice;
        if (outside && (!def || def->isBeforeInBlock(dim) ||
                        def->getBlock() != dim->getBlock())) {
          rewriter.replaceOp(dim, resolved);
          changed = true;
        } else if (!outside && extentSlice(resolved, group, slice)) {
          // Arithmetic on extents from outside the group: computed again
          // where the extent is needed.
          IRMapping mapping;
          rewriter.setInsertionPoint(dim);
          for (Operation *op : slice)
            rewriter.clone(*op, mapping);
          rewriter.replaceOp(dim, mapping.lookup(resolved));
          changed = true;
        } else if (auto constant = getConstantIntValue(resolved)) {
          rewriter.setInsertionPoint(dim);
          rewriter.replaceOp(
              dim, arith::ConstantIndexOp::create(rewriter, dim.getLoc(),
                                                  *constant));
          changed = true;
        }
        if (resolved.use_empty() && def && isMemoryEffectFree(def) &&
            group->isAncestor(def))
          rewriter.eraseOp(def);
      }
    }
    hoistExtentChecks();
  }

  /// The ops of `group` that compute `value` (in order), when they are pure
  /// arithmetic and extents whose operands come from outside the group.
  static bool extentSlice(Value value, Operation *group,
                          SmallVectorImpl<Operation *> &slice) {
    SetVector<Operation *> ops;
    SmallVector<Value> worklist = {value};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || !group->isAncestor(def) || ops.contains(def))
        continue;
      if (def->getParentOp() != group || def->getNumRegions() ||
          !isMemoryEffectFree(def) ||
          !isa<arith::ArithDialect, tensor::TensorDialect>(def->getDialect()))
        return false;
      ops.insert(def);
      llvm::append_range(worklist, def->getOperands());
    }
    slice.assign(ops.begin(), ops.end());
    llvm::sort(slice, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    return true;
  }

  /// The extent checks of the lowering (cf.assert on arithmetic of extents)
  /// moved with what they compute before their group: they are checks of the
  /// run's shapes, which the engine makes before the run, not work of the
  /// group's kernel.
  void hoistExtentChecks() {
    SmallVector<cf::AssertOp> asserts;
    getOperation().walk([&](cf::AssertOp check) {
      if (isa<FusionGroupOp>(check->getParentOp()))
        asserts.push_back(check);
    });
    for (cf::AssertOp check : asserts) {
      Operation *group = check->getParentOp();
      SmallVector<Operation *> ops;
      if (!extentSlice(check.getArg(), group, ops))
        continue;
      // Ops of the slice that the group still uses are copied, the rest
      // moved.
      IRMapping mapping;
      OpBuilder b(group);
      for (Operation *op : ops)
        b.clone(*op, mapping);
      b.clone(*check, mapping);
      check->erase();
      for (Operation *op : llvm::reverse(ops))
        if (op->use_empty())
          op->erase();
    }
  }

  /// The elementwise ops after a contraction or convolution in a group (its
  /// epilogue) fused into one linalg.generic: the templates then tile and
  /// vectorize one op over each tile rather than one pass per op, and an
  /// epilogue that reads the result twice (SiLU, GELU) is one consumer of
  /// it, which fuse_into_containing_op can bring into the thread tiles (it
  /// fuses a producer into its first use only, and would leave the
  /// contraction whole outside them).
  void fuseEpilogues() {
    auto afterAnchor = [](Value value) {
      return computedFrom(value, [](linalg::LinalgOp op) {
        return op.getNumReductionLoops() > 0 &&
               (linalg::isaContractionOpInterface(op) ||
                linalg::isaConvolutionOpInterface(op));
      });
    };
    auto elementwise = [](Operation *op) {
      auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
      return generic && generic.getNumParallelLoops() == generic.getNumLoops();
    };
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](FusionGroupOp group) {
      for (bool fused = true; fused;) {
        fused = false;
        for (Operation &op : group.getBody().front()) {
          if (!elementwise(&op))
            continue;
          auto consumer = cast<linalg::GenericOp>(op);
          for (OpOperand *operand : consumer.getDpsInputOperands()) {
            Operation *producer = operand->get().getDefiningOp();
            // The fused op takes the consumer's place: the producer's other
            // uses must come after it (a view of the producer's result read
            // by a later op of the epilogue may sit in between, where the
            // dynamic extents of a reshape kept it from folding away).
            auto usedBefore = [&](Operation *producer) {
              return llvm::any_of(producer->getUsers(), [&](Operation *user) {
                Operation *inBlock =
                    group.getBody().front().findAncestorOpInBlock(*user);
                return inBlock && inBlock != consumer &&
                       inBlock->isBeforeInBlock(consumer);
              });
            };
            if (!elementwise(producer) ||
                producer->getParentOp() != group.getOperation() ||
                !afterAnchor(operand->get()) ||
                !linalg::areElementwiseOpsFusable(operand) ||
                usedBefore(producer))
              continue;
            rewriter.setInsertionPoint(consumer);
            FailureOr<linalg::ElementwiseOpFusionResult> result =
                linalg::fuseElementwiseOps(rewriter, operand);
            if (failed(result))
              continue;
            for (auto [original, replacement] : result->replacements)
              rewriter.replaceUsesWithIf(original, replacement,
                                         [&](OpOperand &use) {
                                           return use.getOwner() != producer;
                                         });
            rewriter.eraseOp(consumer);
            if (producer->use_empty())
              rewriter.eraseOp(producer);
            // A value the fused op reads twice (x and sigmoid(x)) read once.
            if (auto generic = dyn_cast<linalg::GenericOp>(result->fusedOp))
              (void)linalg::deduplicateOperandsAndRemoveDeadResults(
                  rewriter, generic, /*removeOutputs=*/false);
            fused = true;
            break;
          }
          if (fused)
            break;
        }
      }
    });
  }

  /// Whether `value` is computed from an op that `isAnchor` picks, through
  /// all-parallel generics, transposes (a product computed transposed) and
  /// reshapes. Each producer is
  /// visited once, so a chain of ops each reading two earlier ones stays
  /// linear.
  static bool computedFrom(Value value,
                           llvm::function_ref<bool(linalg::LinalgOp)> isAnchor) {
    DenseMap<Value, bool> seen;
    std::function<bool(Value)> walk = [&](Value v) {
      auto [it, inserted] = seen.try_emplace(v, false);
      if (!inserted)
        return it->second;
      Operation *def = v.getDefiningOp();
      bool found = false;
      if (auto reshape = dyn_cast_or_null<tensor::ExpandShapeOp>(def)) {
        found = walk(reshape.getSrc());
      } else if (auto collapse =
                     dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
        found = walk(collapse.getSrc());
      } else if (auto op = dyn_cast_or_null<linalg::LinalgOp>(def)) {
        if (isAnchor(op))
          found = true;
        else if (isa<linalg::GenericOp, linalg::TransposeOp>(def) &&
                 op.getNumParallelLoops() == op.getNumLoops())
          found = llvm::any_of(op.getDpsInputs(), walk);
      }
      seen[v] = found;
      return found;
    };
    return walk(value);
  }

  /// A matmul whose result is reshaped (a pointwise convolution's [F, H*W]
  /// expanded back to NCHW), or a grouped or blocked convolution's ([N, G,
  /// F/G, H, W] collapsed back to NCHW) or a product's in panels ([M, N/16,
  /// 16] collapsed to [M, N]), is followed by elementwise ops on the
  /// reshaped shape (its bias, activation, residual add): each such op is
  /// rewritten on the anchor's own shape (collapsed, or expanded) and the
  /// reshape moved after it, so that the templates find the epilogue over
  /// their own iteration space and fuse it into their thread tiles.
  void moveAnchorReshapesPastEpilogues() {
    // (A product in panels collapsed to [M, N] and expanded to the batch
    // dimensions of its left operand too.)
    auto fromMatmul = [](Value value) {
      return computedFrom(value, [](linalg::LinalgOp op) {
        return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
               (isa<linalg::GenericOp>(op) && op.getNumReductionLoops() > 0 &&
                linalg::isaContractionOpInterface(op));
      });
    };
    // (Or the blocked forms: a convolution in blocks of filters or
    // channels, a product with its right operand in panels.)
    auto fromGroupedConv = [](Value value) {
      return computedFrom(value, [](linalg::LinalgOp op) {
        return isa<linalg::GenericOp>(op) && op.getNumReductionLoops() > 0 &&
               (linalg::isaConvolutionOpInterface(op) ||
                linalg::isaContractionOpInterface(op));
      });
    };
    auto epilogueOf = [](OpOperand *operand, Operation *reshape) {
      auto generic = dyn_cast<linalg::GenericOp>(operand->getOwner());
      return generic && reshape &&
             generic.getNumParallelLoops() == generic.getNumLoops() &&
             generic->getParentOp() == reshape->getParentOp();
    };
    linalg::ControlFusionFn collapseControl = [&](OpOperand *operand) {
      auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
      return epilogueOf(operand, expand) && fromMatmul(expand.getSrc());
    };
    linalg::ControlFusionFn expandControl = [&](OpOperand *operand) {
      auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
      return epilogueOf(operand, collapse) && fromGroupedConv(collapse.getSrc());
    };
    // Only the groups that have such a reshape, and nothing else rewritten
    // but the reshapes that cancel out (collapse(expand(x)) folds to x): no
    // constants moved, no regions simplified.
    SmallVector<Operation *> matmulGroups, convGroups;
    getOperation().walk([&](FusionGroupOp group) {
      bool expanded = false, collapsed = false;
      group.walk([&](Operation *op) {
        if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
          expanded |= fromMatmul(expand.getSrc());
        else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
          collapsed |= fromGroupedConv(collapse.getSrc());
      });
      if (expanded)
        matmulGroups.push_back(group);
      if (collapsed)
        convGroups.push_back(group);
    });
    RewritePatternSet collapsing(&getContext()), expanding(&getContext());
    linalg::populateFoldReshapeOpsByCollapsingPatterns(collapsing,
                                                       collapseControl);
    linalg::populateFoldReshapeOpsByExpansionPatterns(expanding, expandControl);
    // The expanded epilogue's init a tensor.empty of its own shape, not a
    // reshape (which would fold the epilogue back to the collapsed shape
    // when the schedules move reshapes out of the groups).
    tensor::populateFoldTensorEmptyPatterns(expanding);
    rewriteGroups(matmulGroups, std::move(collapsing));
    rewriteGroups(convGroups, std::move(expanding));
  }

  /// Applies `patterns` to the ops of each group until nothing changes.
  void rewriteGroups(ArrayRef<Operation *> groups, RewritePatternSet patterns) {
    if (groups.empty())
      return;
    FrozenRewritePatternSet frozen(std::move(patterns));
    GreedyRewriteConfig config;
    config.enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled)
        .setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    // Each rewrite makes the next consumer's operand a reshape: again over
    // the group's ops until nothing changes (a chain of k epilogue ops takes
    // k rounds at most).
    for (Operation *group : groups) {
      bool changed = true;
      for (unsigned round = 0; changed && round < 64; ++round) {
        SmallVector<Operation *> ops;
        group->walk([&](Operation *op) {
          if (op != group)
            ops.push_back(op);
        });
        changed = false;
        (void)applyOpPatternsGreedily(ops, frozen, config, &changed);
      }
    }
  }
};
} // namespace

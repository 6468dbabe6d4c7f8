//===- TransformOps.cpp - int21's transform dialect extension -------------===//

#include "int21/Transforms/TransformOps.h"

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Schedule.h"

#include "ScheduleInternal.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;
using namespace int21;

#define GET_OP_CLASSES
#include "int21/Transforms/TransformOps.cpp.inc"

DiagnosedSilenceableFailure
PrepareGroupOp::apply(transform::TransformRewriter &rewriter,
                      transform::TransformResults &results,
                      transform::TransformState &state) {
  for (Operation *op : state.getPayloadOps(getGroup())) {
    auto group = dyn_cast<FusionGroupOp>(op);
    if (!group)
      return emitSilenceableError()
             << "expects int21.fusion_group payload, got " << op->getName();
    if (failed(schedule::tagGroupForTemplate(group, getTemplateName())))
      return emitSilenceableError()
             << "template '" << getTemplateName()
             << "' does not fit the group at " << group.getLoc();
  }
  return DiagnosedSilenceableFailure::success();
}

void PrepareGroupOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getGroupMutable(), effects);
  transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure
ClearTagsOp::apply(transform::TransformRewriter &rewriter,
                   transform::TransformResults &results,
                   transform::TransformState &state) {
  for (Operation *op : state.getPayloadOps(getScope()))
    schedule::clearScheduleTags(op);
  return DiagnosedSilenceableFailure::success();
}

void ClearTagsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getScopeMutable(), effects);
  transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure
MatchAnchorOp::matchOperation(Operation *current,
                              transform::TransformResults &results,
                              transform::TransformState &state) {
  auto group = dyn_cast<FusionGroupOp>(current);
  if (!group)
    return emitSilenceableError() << "not a fusion group";
  Operation *anchor = schedule::groupAnchor(group);
  if (!anchor)
    return emitSilenceableError() << "the group has no main op";
  results.set(cast<OpResult>(getAnchor()), {anchor});
  return DiagnosedSilenceableFailure::success();
}

LogicalResult MatchLoopSizesOp::verify() {
  for (auto [i, size] : llvm::enumerate(getSizes()))
    if (size < 0)
      return emitOpError("expects sizes of 0 or more, loop ") << i;
  return success();
}

/// The static loop sizes of `current`, when it is a structured op.
static std::optional<SmallVector<int64_t>> loopSizesOf(Operation *current) {
  auto op = dyn_cast<linalg::LinalgOp>(current);
  if (!op)
    return std::nullopt;
  return op.getStaticLoopRanges();
}

DiagnosedSilenceableFailure
MatchLoopSizesOp::matchOperation(Operation *current,
                                 transform::TransformResults &results,
                                 transform::TransformState &state) {
  std::optional<SmallVector<int64_t>> sizes = loopSizesOf(current);
  if (!sizes)
    return emitSilenceableError() << "not a structured op";
  if (*sizes != ArrayRef<int64_t>(getSizes()))
    return emitSilenceableError() << "has other loop sizes";
  return DiagnosedSilenceableFailure::success();
}

LogicalResult MatchShapeClassOp::verify() {
  size_t rank = getMultipleOf().size();
  if (getMin().size() != rank || getMax().size() != rank)
    return emitOpError("expects multiple_of, min and max of one length");
  for (size_t i = 0; i < rank; ++i)
    if (getMultipleOf()[i] < 1 || getMin()[i] > getMax()[i])
      return emitOpError("expects positive multiples and min <= max, loop ")
             << i;
  return success();
}

DiagnosedSilenceableFailure
MatchShapeClassOp::matchOperation(Operation *current,
                                  transform::TransformResults &results,
                                  transform::TransformState &state) {
  std::optional<SmallVector<int64_t>> sizes = loopSizesOf(current);
  if (!sizes)
    return emitSilenceableError() << "not a structured op";
  if (sizes->size() != getMultipleOf().size())
    return emitSilenceableError() << "has " << sizes->size() << " loops";
  for (auto [i, size] : llvm::enumerate(*sizes))
    if (ShapedType::isDynamic(size) || size % getMultipleOf()[i] != 0 ||
        size < getMin()[i] || size > getMax()[i])
      return emitSilenceableError() << "loop " << i << " of size " << size
                                    << " is outside the class";
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
PromoteCopyOp::apply(transform::TransformRewriter &rewriter,
                     transform::TransformResults &results,
                     transform::TransformState &state) {
  SmallVector<Operation *> copies;
  for (Value value : state.getPayloadValues(getTensor())) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return emitSilenceableError()
             << "expects a ranked tensor value, got " << value.getType();
    Location loc = value.getLoc();
    if (auto result = dyn_cast<OpResult>(value))
      rewriter.setInsertionPointAfter(result.getOwner());
    else
      rewriter.setInsertionPointToStart(
          cast<BlockArgument>(value).getOwner());
    SmallVector<Value> dynamicSizes;
    for (auto [i, size] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(size))
        dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, value, i));
    auto alloc = bufferization::AllocTensorOp::create(
        rewriter, loc, type, dynamicSizes, /*copy=*/Value(),
        /*size_hint=*/Value(), getMemorySpaceAttr());
    auto copy = linalg::CopyOp::create(rewriter, loc, ValueRange{value},
                                       ValueRange{alloc.getResult()});
    rewriter.replaceUsesWithIf(value, copy.getResult(0), [&](OpOperand &use) {
      return use.getOwner() != copy.getOperation() &&
             use.getOwner() != alloc.getOperation() &&
             !isa<tensor::DimOp>(use.getOwner());
    });
    copies.push_back(copy);
  }
  results.set(cast<OpResult>(getCopy()), copies);
  return DiagnosedSilenceableFailure::success();
}

void PromoteCopyOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTensorMutable(), effects);
  transform::producesHandle(getOperation()->getOpResults(), effects);
  transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure
LoopFullUnrollOp::applyToOne(transform::TransformRewriter &rewriter,
                             Operation *target,
                             transform::ApplyToEachResultList &results,
                             transform::TransformState &state) {
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop)
    return DiagnosedSilenceableFailure::success();
  std::optional<APInt> tripCount = loop.getStaticTripCount();
  if (!tripCount)
    return emitSilenceableError()
           << "expects a loop of a constant trip count at " << loop.getLoc();
  if (tripCount->isZero()) {
    rewriter.replaceOp(loop, loop.getInitArgs());
    return DiagnosedSilenceableFailure::success();
  }
  if (failed(loopUnrollFull(loop)))
    return emitSilenceableError() << "could not unroll the loop at "
                                  << loop.getLoc();
  return DiagnosedSilenceableFailure::success();
}

/// Whether `op` lies in a fusion group that yields a tensor of dynamic
/// extents (the generic code of a dynamic model).
static bool inDynamicGroup(Operation *op) {
  auto group = op->getParentOfType<FusionGroupOp>();
  return group && schedule::yieldsDynamicShapes(group);
}

// Both read their handle (the loops and ops it holds stay where they are,
// as upstream's hoisting op leaves them) and change the payload.
void TileDynamicByOneOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

void HoistSubsetsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure
TileDynamicByOneOp::applyToOne(transform::TransformRewriter &rewriter,
                               Operation *target,
                               transform::ApplyToEachResultList &results,
                               transform::TransformState &state) {
  if (!inDynamicGroup(target))
    return DiagnosedSilenceableFailure::success();
  // The remainder of a loop over a static extent (a dynamic group's static
  // dimension) is static once canonicalized: its ops keep their vectors.
  // (Tiled by one, a remainder of 8 columns of a depthwise window became
  // scalar tiles whose vectorization did not end.)
  if (auto loop = dyn_cast<scf::ForOp>(target);
      loop && getConstantIntValue(loop.getLowerBound()) &&
      getConstantIntValue(loop.getUpperBound()) &&
      getConstantIntValue(loop.getStep()))
    return DiagnosedSilenceableFailure::success();
  SmallVector<linalg::LinalgOp> dynamic;
  // (An op with no static dimension longer than 1 has nothing to vectorize
  // along: it stays a scalar loop, as its unit vectors would not lower.)
  target->walk([&](linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (op.hasPureTensorSemantics() &&
        llvm::any_of(ranges, ShapedType::isDynamic) &&
        llvm::any_of(ranges, [](int64_t r) {
          return !ShapedType::isDynamic(r) && r > 1;
        }))
      dynamic.push_back(op);
  });
  for (linalg::LinalgOp op : dynamic) {
    SmallVector<OpFoldResult> sizes;
    for (int64_t range : op.getStaticLoopRanges())
      sizes.push_back(rewriter.getIndexAttr(ShapedType::isDynamic(range) ? 1
                                                                        : 0));
    scf::SCFTilingOptions options;
    options.setTileSizes(sizes);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled))
      return emitSilenceableError()
             << "could not tile the op at " << op->getLoc();
    rewriter.replaceOp(op, tiled->replacements);
  }
  return DiagnosedSilenceableFailure::success();
}

void OverlapRemainderOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getRestMutable(), effects);
  transform::onlyReadsHandle(getMainMutable(), effects);
  transform::modifiesPayload(effects);
}

/// Whether running an iteration of `loop` on tiles that overlap those of
/// other iterations writes there what they wrote: the loop's tensors
/// (its region iter_args) are only written, never read, in its body (their
/// slices the inits of structured ops that do not read them, their extents,
/// the destinations of the tiles' inserts).
static bool writesAlikeTwice(scf::ForOp loop) {
  for (BlockArgument arg : loop.getRegionIterArgs())
    for (OpOperand &use : arg.getUses()) {
      Operation *user = use.getOwner();
      if (isa<tensor::DimOp, scf::YieldOp>(user))
        continue;
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(user);
          insert && &use == &insert.getDestMutable())
        continue;
      auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
      if (!slice)
        return false;
      for (OpOperand &sliceUse : slice->getUses()) {
        auto op = dyn_cast<linalg::LinalgOp>(sliceUse.getOwner());
        if (!op || !op.isDpsInit(&sliceUse) ||
            op.payloadUsesValueFromOperand(&sliceUse))
          return false;
      }
    }
  return true;
}

DiagnosedSilenceableFailure
OverlapRemainderOp::apply(transform::TransformRewriter &rewriter,
                          transform::TransformResults &results,
                          transform::TransformState &state) {
  auto rests = llvm::to_vector(state.getPayloadOps(getRest()));
  auto mains = llvm::to_vector(state.getPayloadOps(getMain()));
  if (rests.size() != mains.size())
    return emitSilenceableError()
           << "expects as many remainders as loops, got " << rests.size()
           << " and " << mains.size();
  for (auto [restOp, mainOp] : llvm::zip(rests, mains)) {
    auto rest = dyn_cast<scf::ForOp>(restOp);
    auto main = dyn_cast<scf::ForOp>(mainOp);
    if (!rest || !main)
      return emitSilenceableError() << "expects scf.for loops";
    std::optional<int64_t> step = getConstantIntValue(rest.getStep());
    if (!inDynamicGroup(rest) || !step ||
        getConstantIntValue(rest.getUpperBound()) || !writesAlikeTwice(rest))
      continue;
    // The whole tile ending at the extent's end, where there is a
    // remainder and the extent holds a whole tile.
    Location loc = rest.getLoc();
    rewriter.setInsertionPoint(rest);
    Value end = rest.getUpperBound();
    Value start =
        affine::makeComposedAffineApply(
            rewriter, loc, getAffineSymbolExpr(0, getContext()) - *step,
            {OpFoldResult(end)})
            .getResult();
    Value partial = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, rest.getLowerBound(), end);
    Value whole = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge,
                                        start, main.getLowerBound());
    Value overlap = arith::AndIOp::create(rewriter, loc, partial, whole);
    auto ifOp = scf::IfOp::create(rewriter, loc, rest.getResultTypes(), overlap,
                                  /*addThenBlock=*/true, /*addElseBlock=*/true);
    // Then: the body once, at `start`, on the loop's tensors.
    Block *thenBlock = ifOp.thenBlock();
    if (!thenBlock->empty())
      rewriter.eraseOp(thenBlock->getTerminator());
    rewriter.setInsertionPointToEnd(thenBlock);
    IRMapping mapping;
    mapping.map(rest.getInductionVar(), start);
    for (auto [arg, init] :
         llvm::zip(rest.getRegionIterArgs(), rest.getInitArgs()))
      mapping.map(arg, init);
    for (Operation &op : rest.getBody()->without_terminator())
      rewriter.clone(op, mapping);
    auto yield = cast<scf::YieldOp>(rest.getBody()->getTerminator());
    scf::YieldOp::create(
        rewriter, loc,
        llvm::map_to_vector(yield.getOperands(), [&](Value v) {
          return mapping.lookupOrDefault(v);
        }));
    // Else: the loop as it is (the handle keeps it).
    rewriter.replaceAllUsesWith(rest.getResults(), ifOp.getResults());
    Block *elseBlock = ifOp.elseBlock();
    if (!elseBlock->empty())
      rewriter.eraseOp(elseBlock->getTerminator());
    rewriter.moveOpBefore(rest, elseBlock, elseBlock->end());
    rewriter.setInsertionPointToEnd(elseBlock);
    scf::YieldOp::create(rewriter, loc, rest.getResults());
  }
  return DiagnosedSilenceableFailure::success();
}

LogicalResult PadDynamicTileOp::verify() {
  if (getDims().size() != getMultiples().size())
    return emitOpError() << "has " << getDims().size() << " dims and "
                         << getMultiples().size() << " multiples";
  return success();
}

void PadDynamicTileOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::consumesHandle(getTargetMutable(), effects);
  transform::onlyReadsHandle(getMultiplesMutable(), effects);
  transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure
PadDynamicTileOp::apply(transform::TransformRewriter &rewriter,
                        transform::TransformResults &results,
                        transform::TransformState &state) {
  SmallVector<int64_t> multiples;
  for (Value param : getMultiples()) {
    ArrayRef<Attribute> values = state.getParams(param);
    auto value = values.size() == 1 ? dyn_cast<IntegerAttr>(values[0])
                                    : IntegerAttr();
    if (!value || value.getInt() < 1)
      return emitSilenceableError()
             << "expects one positive integer for each multiple";
    multiples.push_back(value.getInt());
  }
  for (Operation *target :
       llvm::to_vector(state.getPayloadOps(getTarget()))) {
    auto op = dyn_cast<linalg::LinalgOp>(target);
    if (!op || !op.hasPureTensorSemantics() || !inDynamicGroup(target))
      continue;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(getDims(), [&](int64_t dim) {
          return dim < 0 || dim >= static_cast<int64_t>(ranges.size());
        }))
      return emitSilenceableError()
             << "names a dimension that is not a loop of the op at "
             << op->getLoc();
    if (llvm::none_of(getDims(), [&](int64_t dim) {
          return ShapedType::isDynamic(ranges[dim]);
        }))
      continue;
    linalg::LinalgPaddingOptions options;
    options.setPaddingDimensions(getDims());
    options.setPadToMultipleOf(multiples);
    SmallVector<Attribute> zeros;
    for (Value operand : op->getOperands())
      zeros.push_back(
          rewriter.getZeroAttr(getElementTypeOrSelf(operand.getType())));
    options.setPaddingValues(zeros);
    options.copyBackOp = linalg::LinalgPaddingOptions::CopyBackOp::None;
    linalg::LinalgOp padded;
    SmallVector<Value> replacements;
    SmallVector<tensor::PadOp> pads;
    rewriter.setInsertionPoint(op);
    // (No static bound: the op stays as it is, scalar loops.)
    if (failed(linalg::rewriteAsPaddedOp(rewriter, op, options, padded,
                                         replacements, pads)))
      continue;
    rewriter.replaceOp(op, replacements);
  }
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
HoistSubsetsOp::applyToOne(transform::TransformRewriter &rewriter,
                           Operation *target,
                           transform::ApplyToEachResultList &results,
                           transform::TransformState &state) {
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop)
    return DiagnosedSilenceableFailure::success();
  if (!inDynamicGroup(loop) || loop.getStaticTripCount())
    (void)hoistLoopInvariantSubsets(rewriter, loop);
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure
GeneralizeOp::applyToOne(transform::TransformRewriter &rewriter,
                         Operation *target,
                         transform::ApplyToEachResultList &results,
                         transform::TransformState &state) {
  auto named = dyn_cast<linalg::LinalgOp>(target);
  if (!named)
    return emitSilenceableError()
           << "expects a structured op at " << target->getLoc();
  if (isa<linalg::GenericOp>(target)) {
    results.push_back(target);
    return DiagnosedSilenceableFailure::success();
  }
  // The op's own discardable attributes, not linalg's (the memoized
  // indexing maps of a named op).
  SmallVector<NamedAttribute> tags;
  for (NamedAttribute attr : target->getDiscardableAttrs())
    if (!attr.getName().strref().starts_with("linalg."))
      tags.push_back(attr);
  rewriter.setInsertionPoint(target);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, named);
  if (failed(generic))
    return emitSilenceableError()
           << "could not generalize the op at " << target->getLoc();
  for (NamedAttribute tag : tags)
    (*generic)->setAttr(tag.getName(), tag.getValue());
  results.push_back(*generic);
  return DiagnosedSilenceableFailure::success();
}

/// The largest divisor of `n` that is at most `limit` (at least 1).
static int64_t largestDivisor(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

DiagnosedSilenceableFailure
GPUCopyThreadsOp::apply(transform::TransformRewriter &rewriter,
                        transform::TransformResults &results,
                        transform::TransformState &state) {
  auto single = [&](Value param, int64_t &value) {
    ArrayRef<Attribute> params = state.getParams(param);
    auto integer =
        params.size() == 1 ? dyn_cast<IntegerAttr>(params.front()) : nullptr;
    if (!integer || integer.getInt() < 1)
      return false;
    value = integer.getInt();
    return true;
  };
  int64_t vector, threadsY, threadsX;
  if (!single(getVectorWidth(), vector) || !single(getThreadsY(), threadsY) ||
      !single(getThreadsX(), threadsX))
    return emitSilenceableError()
           << "expects one positive integer per parameter";
  std::optional<std::pair<int64_t, int64_t>> tile;
  for (Operation *op : state.getPayloadOps(getCopy())) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || linalgOp.getNumLoops() < 2)
      return emitSilenceableError()
             << "expects a structured op with two loops or more";
    SmallVector<int64_t> sizes = linalgOp.getStaticLoopRanges();
    std::pair<int64_t, int64_t> shape = {sizes[sizes.size() - 2],
                                         sizes.back()};
    if (ShapedType::isDynamic(shape.first) ||
        ShapedType::isDynamic(shape.second))
      return emitSilenceableError() << "expects a static tile";
    if (tile && *tile != shape)
      return emitSilenceableError() << "expects tiles of one shape";
    tile = shape;
  }
  if (!tile)
    return emitSilenceableError() << "expects a payload op";
  auto [rows, cols] = *tile;
  int64_t width = 1;
  while (width * 2 <= vector && cols % (width * 2) == 0)
    width *= 2;
  int64_t numX = largestDivisor(cols / width, threadsX);
  int64_t numY = largestDivisor(rows, threadsY);
  Builder b(getContext());
  results.setParams(cast<OpResult>(getNumY()), {b.getI64IntegerAttr(numY)});
  results.setParams(cast<OpResult>(getNumX()), {b.getI64IntegerAttr(numX)});
  results.setParams(cast<OpResult>(getWidth()), {b.getI64IntegerAttr(width)});
  results.setParams(cast<OpResult>(getStep()),
                    {b.getI64IntegerAttr(numX * width)});
  return DiagnosedSilenceableFailure::success();
}

void GPUCopyThreadsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getOperation()->getOpOperands(), effects);
  transform::producesHandle(getOperation()->getOpResults(), effects);
  transform::onlyReadsPayload(effects);
}

namespace {
/// addf(acc, mulf(a, b)) -> vector.fma(a, b, acc) on vectors.
struct MultiplyAddToFMA : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    if (!isa<VectorType>(add.getType()))
      return failure();
    for (unsigned i = 0; i < 2; ++i) {
      auto mul = add->getOperand(i).getDefiningOp<arith::MulFOp>();
      if (!mul || !mul->hasOneUse())
        continue;
      rewriter.replaceOpWithNewOp<vector::FMAOp>(
          add, mul.getLhs(), mul.getRhs(), add->getOperand(1 - i));
      rewriter.eraseOp(mul);
      return success();
    }
    return failure();
  }
};
/// A generic reading an input through a unit-stride slice with map results
/// `d * s`: the slice takes stride s, the map `d`.
struct StridedWindowSlice : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (OpOperand *operand : op.getDpsInputOperands()) {
      auto slice = operand->get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || !slice.hasUnitStride())
        continue;
      AffineMap map = maps[operand->getOperandNumber()];
      SmallVector<int64_t> scale(map.getNumResults(), 1);
      SmallVector<AffineExpr> exprs;
      bool supported = true, strided = false;
      for (auto [j, e] : llvm::enumerate(map.getResults())) {
        if (isa<AffineDimExpr>(e)) {
          exprs.push_back(e);
          continue;
        }
        auto mul = dyn_cast<AffineBinaryOpExpr>(e);
        if (!mul || mul.getKind() != AffineExprKind::Mul ||
            !isa<AffineDimExpr>(mul.getLHS()) ||
            !isa<AffineConstantExpr>(mul.getRHS()) ||
            cast<AffineConstantExpr>(mul.getRHS()).getValue() <= 1) {
          supported = false;
          break;
        }
        scale[j] = cast<AffineConstantExpr>(mul.getRHS()).getValue();
        exprs.push_back(mul.getLHS());
        strided = true;
      }
      if (!supported || !strided)
        continue;
      // The slice's result dimensions (the map's results) in its source.
      llvm::SmallBitVector dropped = slice.getDroppedDims();
      SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
      SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
      SmallVector<OpFoldResult> strides = slice.getMixedStrides();
      SmallVector<int64_t> shape(slice.getType().getShape());
      unsigned j = 0;
      for (unsigned d = 0; d < sizes.size() && supported; ++d) {
        if (dropped.test(d))
          continue;
        if (scale[j] > 1) {
          int64_t range = ranges[cast<AffineDimExpr>(exprs[j]).getPosition()];
          std::optional<int64_t> have = getConstantIntValue(sizes[d]);
          if (!have || *have < (range - 1) * scale[j] + 1) {
            supported = false;
            break;
          }
          sizes[d] = rewriter.getIndexAttr(range);
          strides[d] = rewriter.getIndexAttr(scale[j]);
          shape[j] = range;
        }
        ++j;
      }
      if (!supported)
        continue;
      auto type = RankedTensorType::get(shape, slice.getType().getElementType());
      Value stridedSlice = tensor::ExtractSliceOp::create(
          rewriter, slice.getLoc(), type, slice.getSource(), offsets, sizes,
          strides);
      maps[operand->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), 0, exprs, op.getContext());
      rewriter.modifyOpInPlace(op, [&] {
        operand->set(stridedSlice);
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return failure();
  }
};

/// transfer_read (in bounds, at zero, the whole slice) of a slice strided
/// along its innermost dimension: the rows' contiguous spans, then every
/// s-th element of each (a shuffle). Strides of outer dimensions stay in the
/// slice: they only space the rows.
struct StridedSliceRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto slice = read.getBase().getDefiningOp<tensor::ExtractSliceOp>();
    VectorType vector = read.getVectorType();
    if (!slice || !slice.getType().hasStaticShape() ||
        vector.getShape() != slice.getType().getShape() ||
        !read.getPermutationMap().isMinorIdentity() ||
        read.getPermutationMap().getNumResults() != vector.getRank() ||
        read.getMask() || !llvm::all_of(read.getInBoundsValues(), [](bool b) {
          return b;
        }) ||
        !llvm::all_of(read.getIndices(),
                      [](Value v) { return isZeroInteger(v); }))
      return failure();
    // The innermost dimension of the result, in the source.
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    SmallVector<OpFoldResult> strides = slice.getMixedStrides();
    int innermost = static_cast<int>(sizes.size()) - 1;
    while (innermost >= 0 && dropped.test(innermost))
      --innermost;
    std::optional<int64_t> step =
        innermost >= 0 ? getConstantIntValue(strides[innermost]) : std::nullopt;
    if (!step || *step <= 1)
      return failure();
    int64_t width = vector.getShape().back();
    int64_t span = (width - 1) * *step + 1;
    sizes[innermost] = rewriter.getIndexAttr(span);
    strides[innermost] = rewriter.getIndexAttr(1);
    SmallVector<int64_t> shape(vector.getShape());
    shape.back() = span;
    Location loc = read.getLoc();
    Value contiguous = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get(shape, vector.getElementType()),
        slice.getSource(), slice.getMixedOffsets(), sizes, strides);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<Value> indices(shape.size(), zero);
    SmallVector<bool> inBounds(shape.size(), true);
    Value wide = vector::TransferReadOp::create(
        rewriter, loc, VectorType::get(shape, vector.getElementType()),
        contiguous, indices, read.getPadding(), inBounds);
    SmallVector<int64_t> mask;
    for (int64_t i = 0; i < width; ++i)
      mask.push_back(i * *step);
    // Row by row: vector.shuffle picks from 1-D vectors.
    ArrayRef<int64_t> rows = vector.getShape().drop_back();
    int64_t count = 1;
    for (int64_t r : rows)
      count *= r;
    Value result = arith::ConstantOp::create(
        rewriter, loc, vector, rewriter.getZeroAttr(vector));
    for (int64_t linear = 0; linear < count; ++linear) {
      SmallVector<int64_t> position(rows.size());
      for (int64_t d = rows.size() - 1, rest = linear; d >= 0; --d) {
        position[d] = rest % rows[d];
        rest /= rows[d];
      }
      Value row = position.empty()
                      ? wide
                      : vector::ExtractOp::create(rewriter, loc, wide, position)
                            .getResult();
      Value picked = vector::ShuffleOp::create(rewriter, loc, row, row, mask);
      result = position.empty() ? picked
                                : vector::InsertOp::create(rewriter, loc,
                                                           picked, result,
                                                           position)
                                      .getResult();
    }
    rewriter.replaceOp(read, result);
    return success();
  }
};
/// A generic of static loop ranges reading an input through a map that,
/// over the generic's box, is `c + b * d` in each result (see
/// apply_patterns.int21.box_affine_maps): the input becomes a strided slice
/// read with a projected permutation.
/// A 0-d vector.transfer_read of a tensor, in a dynamic group, as a
/// tensor.extract broadcast into the vector.
struct ScalarRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (read.getVectorType().getRank() != 0 || read.getMask() ||
        !isa<RankedTensorType>(read.getBase().getType()) ||
        !inDynamicGroup(read))
      return failure();
    Value element = tensor::ExtractOp::create(
        rewriter, read.getLoc(), read.getBase(), read.getIndices());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(
        read, read.getVectorType(), element);
    return success();
  }
};

struct BoxAffineMap : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  static constexpr int64_t kMaxPoints = 4096;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t points = 1;
    for (int64_t range : ranges) {
      if (ShapedType::isDynamic(range) || range < 1)
        return failure();
      points *= range;
      if (points > kMaxPoints)
        return failure();
    }
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (OpOperand *operand : op.getDpsInputOperands()) {
      AffineMap map = maps[operand->getOperandNumber()];
      auto type = dyn_cast<RankedTensorType>(operand->get().getType());
      if (!type || !type.hasStaticShape() || map.getNumSymbols() != 0 ||
          map.isProjectedPermutation())
        continue;
      unsigned dims = map.getNumDims();
      // The fit at the origin and one step along each dimension.
      SmallVector<int64_t> origin(dims, 0);
      SmallVector<int64_t> base = map.compose(origin);
      SmallVector<SmallVector<int64_t>> slope(dims);
      for (unsigned d = 0; d < dims; ++d) {
        slope[d].assign(base.size(), 0);
        if (ranges[d] < 2)
          continue;
        SmallVector<int64_t> step(origin);
        step[d] = 1;
        SmallVector<int64_t> at = map.compose(step);
        for (unsigned r = 0; r < base.size(); ++r)
          slope[d][r] = at[r] - base[r];
      }
      // Each result moves with one dimension at most, forward; each
      // dimension moves one result at most.
      SmallVector<int> dimOf(base.size(), -1);
      bool fits = true;
      llvm::SmallBitVector used(dims);
      for (unsigned r = 0; r < base.size() && fits; ++r)
        for (unsigned d = 0; d < dims && fits; ++d) {
          if (slope[d][r] == 0)
            continue;
          if (slope[d][r] < 0 || dimOf[r] != -1 || used.test(d))
            fits = false;
          dimOf[r] = d;
          used.set(d);
        }
      if (!fits)
        continue;
      // Checked at every point of the box, in bounds of the input.
      SmallVector<int64_t> point(dims, 0);
      for (int64_t n = 0; n < points && fits; ++n) {
        for (int64_t d = dims - 1, rest = n; d >= 0; --d) {
          point[d] = rest % ranges[d];
          rest /= ranges[d];
        }
        SmallVector<int64_t> at = map.compose(point);
        for (unsigned r = 0; r < base.size() && fits; ++r) {
          int64_t want = base[r] + (dimOf[r] >= 0 ? slope[dimOf[r]][r] *
                                                        point[dimOf[r]]
                                                  : 0);
          fits = at[r] == want && want >= 0 && want < type.getDimSize(r);
        }
      }
      if (!fits)
        continue;
      SmallVector<OpFoldResult> offsets, sizes, strides;
      SmallVector<int64_t> shape;
      SmallVector<AffineExpr> exprs;
      for (unsigned r = 0; r < base.size(); ++r) {
        offsets.push_back(rewriter.getIndexAttr(base[r]));
        if (dimOf[r] < 0) {
          sizes.push_back(rewriter.getIndexAttr(1));
          strides.push_back(rewriter.getIndexAttr(1));
          continue;
        }
        sizes.push_back(rewriter.getIndexAttr(ranges[dimOf[r]]));
        strides.push_back(rewriter.getIndexAttr(slope[dimOf[r]][r]));
        shape.push_back(ranges[dimOf[r]]);
        exprs.push_back(rewriter.getAffineDimExpr(dimOf[r]));
      }
      Value slice = tensor::ExtractSliceOp::create(
          rewriter, op.getLoc(),
          RankedTensorType::get(shape, type.getElementType()),
          operand->get(), offsets, sizes, strides);
      maps[operand->getOperandNumber()] =
          AffineMap::get(dims, 0, exprs, op.getContext());
      rewriter.modifyOpInPlace(op, [&] {
        operand->set(slice);
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return failure();
  }
};

/// tensor.pad of a constant -> tensor.empty, each side of each padded
/// dimension filled (the border it adds, over the source's extent in the
/// dimensions before it and the whole result in those after), then the
/// source inserted. Bufferized, the border is written once and the interior
/// copied once; the pad's own bufferization fills the whole result, then
/// copies the interior over it.
struct PadBorders : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    Value value = pad.getConstantPaddingValue();
    if (!value)
      return failure();
    Location loc = pad.getLoc();
    RankedTensorType type = pad.getResultType();
    ReifiedRankedShapedTypeDims shapes;
    if (failed(reifyResultShapes(rewriter, pad, shapes)))
      return failure();
    SmallVector<OpFoldResult> result = shapes.front();
    SmallVector<OpFoldResult> source =
        tensor::getMixedSizes(rewriter, loc, pad.getSource());
    SmallVector<OpFoldResult> low = pad.getMixedLowPad();
    SmallVector<OpFoldResult> high = pad.getMixedHighPad();
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
    AffineExpr s0, s1;
    bindSymbols(rewriter.getContext(), s0, s1);
    Value dest = tensor::EmptyOp::create(rewriter, loc, result,
                                         type.getElementType());
    for (int64_t d = 0; d < rank; ++d) {
      for (bool lowSide : {true, false}) {
        OpFoldResult extent = lowSide ? low[d] : high[d];
        if (isZeroInteger(extent))
          continue;
        SmallVector<OpFoldResult> offsets, sizes;
        for (int64_t j = 0; j < rank; ++j) {
          if (j < d) {
            offsets.push_back(low[j]);
            sizes.push_back(source[j]);
          } else if (j > d) {
            offsets.push_back(rewriter.getIndexAttr(0));
            sizes.push_back(result[j]);
          } else {
            offsets.push_back(lowSide ? rewriter.getIndexAttr(0)
                                      : affine::makeComposedFoldedAffineApply(
                                            rewriter, loc, s0 + s1,
                                            {low[d], source[d]}));
            sizes.push_back(extent);
          }
        }
        Value slab = tensor::ExtractSliceOp::create(rewriter, loc, dest,
                                                    offsets, sizes, ones);
        Value filled =
            linalg::FillOp::create(rewriter, loc, value, slab).getResult(0);
        dest = tensor::InsertSliceOp::create(rewriter, loc, filled, dest,
                                             offsets, sizes, ones);
      }
    }
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        pad, pad.getSource(), dest, low, source, ones);
    return success();
  }
};

/// insert_slice(src into tensor.empty), whole and adding only unit
/// dimensions -> expand_shape(src).
struct RankExpandingInsert : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    RankedTensorType srcType = insert.getSourceType();
    RankedTensorType destType = insert.getDestType();
    if (!insert.getDest().getDefiningOp<tensor::EmptyOp>() ||
        srcType.getRank() >= destType.getRank() ||
        !srcType.hasStaticShape() || !destType.hasStaticShape() ||
        !insert.hasUnitStride() ||
        !llvm::all_of(insert.getMixedOffsets(),
                      [](OpFoldResult o) { return isZeroInteger(o); }))
      return failure();
    SmallVector<int64_t> sizes(insert.getStaticSizes());
    if (ArrayRef<int64_t>(sizes) != destType.getShape())
      return failure();
    // The source is the destination without some unit dimensions (the
    // verifier's rank reduction): the elements are in the same order,
    // whichever units it dropped.
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForCollapse(destType.getShape(),
                                           srcType.getShape());
    if (!groups)
      return failure();
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        insert, destType, insert.getSource(), *groups);
    return success();
  }
};
} // namespace

void int21::ApplyStridedWindowsPatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  patterns.add<StridedWindowSlice, StridedSliceRead>(patterns.getContext());
}

void int21::ApplyScalarReadsPatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  patterns.add<ScalarRead>(patterns.getContext());
}

void int21::ApplyBoxAffineMapsPatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  patterns.add<BoxAffineMap>(patterns.getContext());
}

void int21::ApplyPadBordersPatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  patterns.add<PadBorders>(patterns.getContext());
}

void int21::ApplyRankExpandingInsertsPatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  patterns.add<RankExpandingInsert>(patterns.getContext());
}

void int21::ApplyMultiplyAddToFMAPatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  patterns.add<MultiplyAddToFMA>(patterns.getContext());
}

namespace {
class Int21TransformExtension
    : public transform::TransformDialectExtension<Int21TransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(Int21TransformExtension)
  using Base::Base;

  void init() {
    declareDependentDialect<Int21Dialect>();
    declareGeneratedDialect<bufferization::BufferizationDialect>();
    declareGeneratedDialect<linalg::LinalgDialect>();
    declareGeneratedDialect<tensor::TensorDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "int21/Transforms/TransformOps.cpp.inc"
        >();
  }
};
} // namespace

void int21::schedule::registerTransformExtension(DialectRegistry &registry) {
  registry.addExtensions<Int21TransformExtension>();
}

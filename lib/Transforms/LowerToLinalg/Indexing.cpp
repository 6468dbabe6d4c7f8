//===- Indexing.cpp - gather_elements, gather_nd and the scatters ---------===//
//
// Gathers are parallel linalg.generics whose bodies compute the source
// coordinates and read them with tensor.extract. Scatters write where their
// indices say, so later updates see earlier ones: they are an scf.for nest
// over the updates that carries the result tensor and inserts one element
// per iteration, which one-shot bufferization turns into in-place stores
// into one copy of the data. Every index is normalised and clamped
// (normalizeIndex), so no input makes them read or write out of bounds.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace int21;
using namespace int21::lowering;

namespace {

SmallVector<Value> indexValues(OpBuilder &b, Location loc, int64_t count,
                               int64_t first = 0) {
  SmallVector<Value> values;
  for (int64_t d = first; d < first + count; ++d)
    values.push_back(linalg::IndexOp::create(b, loc, d));
  return values;
}

/// result[p] = data[p with p[axis] = indices[p]].
struct GatherElementsLowering : OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Value data = adaptor.getData();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    int64_t rank = resultType.getRank();
    int64_t axis = op.getAxis();
    int64_t axisSize = dataType.getDimSize(axis);
    Value result = parallelGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getIndices(),
        rewriter.getMultiDimIdentityMap(rank),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          SmallVector<Value> at = indexValues(b, l, rank);
          at[axis] = normalizeIndex(b, l, args[0], axisSize);
          return tensor::ExtractOp::create(b, l, data, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// result[B, M, S] = data[B, indices[B, M, 0..k), S] for batch coordinates B
/// (batch_dims of them), the tuple coordinates M and the slice coordinates S.
struct GatherNDLowering : OpConversionPattern<GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    int64_t batchDims = op.getBatchDims();
    int64_t q = indicesType.getRank(), k = indicesType.getShape().back();
    int64_t sliceRank = dataType.getRank() - batchDims - k;
    if (llvm::any_of(dataType.getShape().take_front(batchDims + k),
                     ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(
          op, "dynamic extents in the dimensions the tuples index");
    // The result's dynamic extents: the tuples' (positions from NonZero)
    // and the slices'.
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < resultType.getRank(); ++d)
      if (resultType.isDynamicDim(d))
        dynamicSizes.push_back(
            d < q - 1 ? tensor::DimOp::create(rewriter, op.getLoc(), indices, d)
                      : tensor::DimOp::create(rewriter, op.getLoc(), data,
                                              d - (q - 1) + batchDims + k));
    Value result = parallelGeneric(
        rewriter, op.getLoc(), resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> tuple = indexValues(b, l, q - 1);
          SmallVector<Value> at(tuple.begin(), tuple.begin() + batchDims);
          tuple.push_back(Value());
          for (int64_t j = 0; j < k; ++j) {
            tuple.back() = arith::ConstantIndexOp::create(b, l, j);
            Value index = tensor::ExtractOp::create(b, l, indices, tuple);
            at.push_back(normalizeIndex(b, l, index,
                                        dataType.getDimSize(batchDims + j)));
          }
          llvm::append_range(at, indexValues(b, l, sliceRank, q - 1));
          return tensor::ExtractOp::create(b, l, data, at);
        },
        dynamicSizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `update` combined into `current` by `reduction`.
Value combine(OpBuilder &b, Location loc, ScatterReduction reduction,
              Value current, Value update, bool isUnsigned) {
  Type type = update.getType();
  bool isFloat = isa<FloatType>(type);
  bool isBool = type.isInteger(1);
  switch (reduction) {
  case ScatterReduction::None:
    return update;
  case ScatterReduction::Add:
    if (isFloat)
      return arith::AddFOp::create(b, loc, current, update);
    if (isBool)
      return arith::OrIOp::create(b, loc, current, update);
    return arith::AddIOp::create(b, loc, current, update);
  case ScatterReduction::Mul:
    if (isFloat)
      return arith::MulFOp::create(b, loc, current, update);
    if (isBool)
      return arith::AndIOp::create(b, loc, current, update);
    return arith::MulIOp::create(b, loc, current, update);
  case ScatterReduction::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, current, update);
    if (isBool || isUnsigned)
      return arith::MaxUIOp::create(b, loc, current, update);
    return arith::MaxSIOp::create(b, loc, current, update);
  case ScatterReduction::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, current, update);
    if (isBool || isUnsigned)
      return arith::MinUIOp::create(b, loc, current, update);
    return arith::MinSIOp::create(b, loc, current, update);
  }
  return update;
}

/// A copy of `data` into which every element of `updates` is combined, in
/// row-major order, at the coordinates `target` computes from the update's
/// coordinates (with the loop body's builder).
Value scatterLoop(
    OpBuilder &rewriter, Location loc, Value data, Value updates,
    ScatterReduction reduction, bool isUnsigned,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        target) {
  auto updatesType = cast<RankedTensorType>(updates.getType());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> lbs(updatesType.getRank(), zero),
      steps(updatesType.getRank(), one), ubs;
  for (int64_t size : updatesType.getShape())
    ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps, data,
      [&](OpBuilder &b, Location l, ValueRange ivs,
          ValueRange acc) -> scf::ValueVector {
        Value update = tensor::ExtractOp::create(b, l, updates, ivs);
        SmallVector<Value> at = target(b, l, ivs);
        if (reduction != ScatterReduction::None) {
          Value current = tensor::ExtractOp::create(b, l, acc[0], at);
          update = combine(b, l, reduction, current, update, isUnsigned);
        }
        return {tensor::InsertOp::create(b, l, update, acc[0], at).getResult()};
      });
  return nest.results.front();
}

struct ScatterElementsLowering : OpConversionPattern<ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Value indices = adaptor.getIndices();
    int64_t axis = op.getAxis();
    int64_t axisSize = op.getData().getType().getDimSize(axis);
    Value result = scatterLoop(
        rewriter, op.getLoc(), adaptor.getData(), adaptor.getUpdates(),
        op.getReduction(), isUnsignedElementType(op.getData().getType()),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> at(ivs);
          Value index = tensor::ExtractOp::create(b, l, indices, ivs);
          at[axis] = normalizeIndex(b, l, index, axisSize);
          return at;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScatterNDLowering : OpConversionPattern<ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Value indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(op.getData().getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t q = indicesType.getRank(), k = indicesType.getShape().back();
    Value result = scatterLoop(
        rewriter, op.getLoc(), adaptor.getData(), adaptor.getUpdates(),
        op.getReduction(), isUnsignedElementType(dataType),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> tuple(ivs.take_front(q - 1)), at;
          tuple.push_back(Value());
          for (int64_t j = 0; j < k; ++j) {
            tuple.back() = arith::ConstantIndexOp::create(b, l, j);
            Value index = tensor::ExtractOp::create(b, l, indices, tuple);
            at.push_back(normalizeIndex(b, l, index, dataType.getDimSize(j)));
          }
          llvm::append_range(at, ivs.drop_front(q - 1));
          return at;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void lowering::populateIndexingLoweringPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<GatherElementsLowering, GatherNDLowering,
               ScatterElementsLowering, ScatterNDLowering>(
      converter, patterns.getContext());
}

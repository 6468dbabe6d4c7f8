//===- Normalization.cpp - batch/layer norm, argmax and argmin -----------===//
//
// Per-axis statistics as linalg.generic: normalisations broadcast their
// statistics and parameters through indexing maps; arg reductions carry a
// (value, index) pair through one reduction.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace int21;
using namespace int21::lowering;

namespace {

using utils::IteratorType;

TypedAttr floatAttr(Type type, double value) {
  return FloatAttr::get(type, value);
}

TypedAttr infAttr(Type type, bool negative) {
  auto f = cast<FloatType>(type);
  return FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), negative));
}

SmallVector<AffineExpr> dims(MLIRContext *ctx, int64_t from, int64_t count) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < count; ++i)
    exprs.push_back(getAffineDimExpr(from + i, ctx));
  return exprs;
}

/// (x - mean) / sqrt(variance + epsilon) * scale + bias.
Value normalise(OpBuilder &b, Location loc, Value x, Value mean, Value variance,
                Value scale, Value bias, FloatAttr epsilon) {
  Type type = x.getType();
  Value eps = arith::ConstantOp::create(
      b, loc, FloatAttr::get(type, epsilon.getValueAsDouble()));
  Value sum = arith::AddFOp::create(b, loc, variance, eps);
  Value norm =
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, x, mean),
                            math::SqrtOp::create(b, loc, sum));
  Value scaled = arith::MulFOp::create(b, loc, norm, scale);
  return bias ? Value(arith::AddFOp::create(b, loc, scaled, bias)) : scaled;
}

struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    auto type = cast<RankedTensorType>(signlessType(op.getType()));
    int64_t rank = type.getRank();
    if (rank < 2)
      return rewriter.notifyMatchFailure(op, "expects a channel dimension");
    Location loc = op.getLoc();
    AffineMap channel =
        AffineMap::get(rank, 0, getAffineDimExpr(1, op.getContext()));
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    FloatAttr epsilon = op.getEpsilonAttr();
    rewriter.replaceOp(
        op, parallelGeneric(rewriter, loc, type,
                            ValueRange{adaptor.getInput(), adaptor.getScale(),
                                       adaptor.getBias(), adaptor.getMean(),
                                       adaptor.getVariance()},
                            {id, channel, channel, channel, channel},
                            [&](OpBuilder &b, Location l, ValueRange a) {
                              return normalise(b, l, a[0], a[3], a[4], a[1],
                                               a[2], epsilon);
                            },
                            dynamicSizesOf(rewriter, loc,
                                           adaptor.getInput())));
    return success();
  }
};

/// Mean and variance over dimensions axis.. as two reduction generics (the
/// second subtracts the mean first, for accuracy), then one normalising
/// generic with scale and bias broadcast to the trailing dimensions.
struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto type = cast<RankedTensorType>(signlessType(op.getType()));
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    double count = static_cast<double>(
        ShapedType::getNumElements(type.getShape().drop_front(axis)));
    auto statsType =
        RankedTensorType::get(type.getShape().take_front(axis), elementType);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap outer = AffineMap::get(rank, 0, dims(ctx, 0, axis), ctx);
    SmallVector<IteratorType> iterators(axis, IteratorType::parallel);
    iterators.append(rank - axis, IteratorType::reduction);
    Value x = adaptor.getInput();

    auto mean = [&](OpBuilder &b, Location l, Value sum) -> Value {
      Value n = arith::ConstantOp::create(b, l, floatAttr(elementType, count));
      return arith::DivFOp::create(b, l, sum, n);
    };
    // (The normalised dimensions are static: the pass checks it.)
    SmallVector<Value> sizes = dynamicSizesOf(rewriter, loc, x);
    Value zeros = filledTensor(rewriter, loc, statsType,
                               floatAttr(elementType, 0.0), sizes);
    Value sum = linalg::GenericOp::create(
                    rewriter, loc, TypeRange{statsType}, x, zeros,
                    SmallVector<AffineMap>{id, outer}, iterators,
                    [](OpBuilder &b, Location l, ValueRange a) {
                      linalg::YieldOp::create(
                          b, l, Value(arith::AddFOp::create(b, l, a[0], a[1])));
                    })
                    .getResult(0);
    Value squares =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{statsType}, ValueRange{x, sum}, zeros,
            SmallVector<AffineMap>{id, outer, outer}, iterators,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value d = arith::SubFOp::create(b, l, a[0], mean(b, l, a[1]));
              Value sq = arith::MulFOp::create(b, l, d, d);
              linalg::YieldOp::create(
                  b, l, Value(arith::AddFOp::create(b, l, a[2], sq)));
            })
            .getResult(0);

    SmallVector<Value> inputs = {x, sum, squares, adaptor.getScale()};
    SmallVector<AffineMap> maps = {id, outer, outer};
    auto trailing = [&](Value v) {
      return broadcastIndexingMap(
          ctx, cast<RankedTensorType>(v.getType()).getShape(), type.getShape());
    };
    maps.push_back(trailing(adaptor.getScale()));
    if (Value bias = adaptor.getBias()) {
      inputs.push_back(bias);
      maps.push_back(trailing(bias));
    }
    FloatAttr epsilon = op.getEpsilonAttr();
    rewriter.replaceOp(
        op, parallelGeneric(rewriter, loc, type, inputs, maps,
                            [&](OpBuilder &b, Location l, ValueRange a) {
                              Value bias = a.size() > 4 ? a[4] : Value();
                              return normalise(b, l, a[0], mean(b, l, a[1]),
                                               mean(b, l, a[2]), a[3], bias,
                                               epsilon);
                            },
                            sizes));
    return success();
  }
};

/// One reduction generic with two outputs, the best value so far and its
/// index; a strict comparison keeps the first index, a non-strict one the
/// last. NaNs never compare true, so they are skipped.
template <typename OpTy, bool isMax>
struct ArgReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    Type elementType = inputType.getElementType();
    int64_t rank = inputType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    bool last = op.getSelectLastIndex();
    bool isUnsigned = isUnsignedElementType(op.getInput().getType());

    SmallVector<int64_t> shape(inputType.getShape());
    shape.erase(shape.begin() + axis);
    TypedAttr worst;
    if (isa<FloatType>(elementType)) {
      worst = infAttr(elementType, /*negative=*/isMax);
    } else {
      unsigned width = elementType.getIntOrFloatBitWidth();
      APInt value = isUnsigned ? (isMax ? APInt::getMinValue(width)
                                        : APInt::getMaxValue(width))
                               : (isMax ? APInt::getSignedMinValue(width)
                                        : APInt::getSignedMaxValue(width));
      worst = rewriter.getIntegerAttr(elementType, value);
    }
    Type i64 = rewriter.getI64Type();
    Value values = filledTensor(
        rewriter, loc, RankedTensorType::get(shape, elementType), worst);
    Value indices =
        filledTensor(rewriter, loc, RankedTensorType::get(shape, i64),
                     rewriter.getI64IntegerAttr(0));
    SmallVector<AffineExpr> kept = dims(ctx, 0, rank);
    kept.erase(kept.begin() + axis);
    AffineMap keptMap = AffineMap::get(rank, 0, kept, ctx);
    SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
    iterators[axis] = IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{values.getType(), indices.getType()},
        adaptor.getInput(), ValueRange{values, indices},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank), keptMap,
                               keptMap},
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          Value index = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value better;
          if (isa<FloatType>(elementType)) {
            auto pred = isMax ? (last ? arith::CmpFPredicate::OGE
                                      : arith::CmpFPredicate::OGT)
                              : (last ? arith::CmpFPredicate::OLE
                                      : arith::CmpFPredicate::OLT);
            better = arith::CmpFOp::create(b, l, pred, a[0], a[1]);
          } else {
            using IP = arith::CmpIPredicate;
            auto pred = isUnsigned ? (isMax ? (last ? IP::uge : IP::ugt)
                                            : (last ? IP::ule : IP::ult))
                                   : (isMax ? (last ? IP::sge : IP::sgt)
                                            : (last ? IP::sle : IP::slt));
            better = arith::CmpIOp::create(b, l, pred, a[0], a[1]);
          }
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, a[0], a[1]),
                         arith::SelectOp::create(b, l, better, index, a[2])});
        });
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, loc, generic.getResult(1), resultType));
    return success();
  }
};

} // namespace

void lowering::populateNormalizationLoweringPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<BatchNormLowering, LayerNormLowering,
               ArgReduceLowering<ArgMaxOp, true>,
               ArgReduceLowering<ArgMinOp, false>>(converter,
                                                   patterns.getContext());
}

//===- DataMovement.cpp - slice, concat, gather and pad -------------------===//
//
// Lowerings onto the tensor dialect where it has the op (extract_slice,
// concat, pad) and onto linalg.generic where indices are computed: negative
// slice steps, gathers and the non-constant pad modes.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace int21;
using namespace int21::lowering;

namespace {

using utils::IteratorType;

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(
      values, [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); });
}

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    ArrayRef<int64_t> starts = op.getStarts(), sizes = op.getSizes(),
                      steps = op.getSteps();
    int64_t rank = resultType.getRank();
    if (static_cast<int64_t>(starts.size()) != rank ||
        static_cast<int64_t>(sizes.size()) != rank ||
        static_cast<int64_t>(steps.size()) != rank ||
        llvm::is_contained(steps, 0))
      return rewriter.notifyMatchFailure(op, "malformed slice");
    Location loc = op.getLoc();
    // A dynamic dimension is kept whole (its extent is the input's) or read
    // at static positions, which must lie inside it.
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    SmallVector<OpFoldResult> mixedSizes;
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!inputType.isDynamicDim(d)) {
        mixedSizes.push_back(rewriter.getIndexAttr(sizes[d]));
        continue;
      }
      Value extent = tensor::DimOp::create(rewriter, loc, input, d);
      if (ShapedType::isDynamic(sizes[d])) {
        mixedSizes.push_back(extent);
        dynamicSizes.push_back(extent);
        continue;
      }
      mixedSizes.push_back(rewriter.getIndexAttr(sizes[d]));
      if (sizes[d] == 0)
        continue;
      int64_t furthest =
          std::max(starts[d], starts[d] + (sizes[d] - 1) * steps[d]);
      Value inside = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::slt,
          arith::ConstantIndexOp::create(rewriter, loc, furthest), extent);
      assertHolds(rewriter, loc, inside,
                  "Slice: reads element " + Twine(furthest) +
                      " of input dimension " + Twine(d) +
                      ", which is shorter at run time");
    }
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, resultType, input, indexAttrs(rewriter, starts), mixedSizes,
          indexAttrs(rewriter, steps));
      return success();
    }
    // Element j of dimension d reads starts[d] + j * steps[d]: an affine
    // indexing map, whatever the sign of the step.
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      exprs.push_back(getAffineDimExpr(d, ctx) * steps[d] + starts[d]);
    rewriter.replaceOp(
        op, parallelGeneric(rewriter, loc, resultType, input,
                            AffineMap::get(rank, 0, exprs, ctx),
                            [](OpBuilder &, Location, ValueRange args) {
                              return args[0];
                            },
                            dynamicSizes));
    return success();
  }
};

struct DynamicSliceLowering : OpConversionPattern<DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, TypeRange{op.getInput().getType()},
                                 rewriter)))
      return failure();
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    SmallVector<OpFoldResult> starts = getAsOpFoldResult(op.getStarts()),
                              sizes = getAsOpFoldResult(op.getSizes()),
                              steps = getAsOpFoldResult(op.getSteps());
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < resultType.getRank(); ++d)
      if (resultType.isDynamicDim(d))
        dynamicSizes.push_back(op.getSizes()[d]);
    // An empty input gives an empty result (no position lies inside it).
    auto inputType = cast<RankedTensorType>(input.getType());
    if (llvm::is_contained(inputType.getShape(), 0)) {
      rewriter.replaceOp(op,
                         emptyTensor(rewriter, loc, resultType, dynamicSizes));
      return success();
    }
    // Positive steps known at compile time: a strided view.
    if (llvm::all_of(steps, [](OpFoldResult step) {
          std::optional<int64_t> known = getConstantIntValue(step);
          return known && *known > 0;
        })) {
      Value slice = tensor::ExtractSliceOp::create(rewriter, loc, input,
                                                   starts, sizes, steps);
      if (slice.getType() != resultType)
        slice = tensor::CastOp::create(rewriter, loc, resultType, slice);
      rewriter.replaceOp(op, slice);
      return success();
    }
    // Any sign: each element read at its position (a gather).
    rewriter.replaceOp(
        op, parallelGeneric(
                rewriter, loc, resultType, ValueRange(), {},
                [&](OpBuilder &b, Location l, ValueRange) -> Value {
                  SmallVector<Value> position;
                  for (int64_t d = 0; d < resultType.getRank(); ++d) {
                    Value j = linalg::IndexOp::create(b, l, d);
                    position.push_back(arith::AddIOp::create(
                        b, l, op.getStarts()[d],
                        arith::MulIOp::create(b, l, j, op.getSteps()[d])));
                  }
                  return tensor::ExtractOp::create(b, l, input, position);
                },
                dynamicSizes));
    return success();
  }
};

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    int64_t rank = resultType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    if (adaptor.getInputs().size() == 1) {
      rewriter.replaceOp(op, adaptor.getInputs().front());
      return success();
    }
    // Dynamic extents off the axis are read as the first input's.
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    auto firstType = cast<RankedTensorType>(inputs.front().getType());
    for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
      auto type = cast<RankedTensorType>(input.getType());
      for (int64_t d = 0; d < rank; ++d) {
        if (d == axis || (!type.isDynamicDim(d) && !firstType.isDynamicDim(d)))
          continue;
        Value extent = type.isDynamicDim(d)
                           ? tensor::DimOp::create(rewriter, loc, input, d)
                           : tensor::DimOp::create(rewriter, loc,
                                                   inputs.front(), d);
        OpFoldResult expected =
            type.isDynamicDim(d)
                ? (firstType.isDynamicDim(d)
                       ? OpFoldResult(tensor::DimOp::create(
                             rewriter, loc, inputs.front(), d))
                       : OpFoldResult(
                             rewriter.getIndexAttr(firstType.getDimSize(d))))
                : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(d)));
        assertExtent(rewriter, loc, extent, expected,
                     "input " + Twine(i + 1) + " dimension " + Twine(d) +
                         " must match input 0's");
      }
    }
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(
        op, resultType, static_cast<uint64_t>(axis), inputs);
    return success();
  }
};

/// result[i..., j..., k...] = data[i..., norm(indices[j...]), k...], where
/// norm adds the axis size to a negative index and clamps the result into
/// the axis (out-of-range indices are an error in ONNX, never a stray read).
struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value data = adaptor.getData();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(adaptor.getIndices().getType());
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    int64_t rank = dataType.getRank(), q = indicesType.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank || resultType.getRank() != rank - 1 + q)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    // The result's dynamic extents: the data's around the axis, the
    // indices' in its place (the positions of NonZero, say).
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      if (d < axis)
        dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, data, d));
      else if (d < axis + q)
        dynamicSizes.push_back(tensor::DimOp::create(
            rewriter, loc, adaptor.getIndices(), d - axis));
      else
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, data, d - q + 1));
    }
    Value axisExtent =
        dataType.isDynamicDim(axis)
            ? tensor::DimOp::create(rewriter, loc, data, axis).getResult()
            : Value();
    int64_t axisSize = dataType.getDimSize(axis);
    SmallVector<AffineExpr> indexExprs;
    for (int64_t j = 0; j < q; ++j)
      indexExprs.push_back(getAffineDimExpr(axis + j, ctx));
    Value result = parallelGeneric(
        rewriter, loc, resultType, adaptor.getIndices(),
        AffineMap::get(resultType.getRank(), 0, indexExprs, ctx),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Type indexType = b.getIndexType();
          Value index = arith::IndexCastOp::create(b, l, indexType, args[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value size =
              axisExtent
                  ? axisExtent
                  : arith::ConstantIndexOp::create(b, l, axisSize).getResult();
          Value negative = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::slt, index, zero);
          index = arith::SelectOp::create(
              b, l, negative, arith::AddIOp::create(b, l, index, size), index);
          // An index outside [-size, size) is an error in ONNX; clamped, it
          // can never read outside the data, whatever the input.
          Value last =
              axisExtent
                  ? arith::SubIOp::create(
                        b, l, size, arith::ConstantIndexOp::create(b, l, 1))
                        .getResult()
                  : arith::ConstantIndexOp::create(b, l, axisSize - 1)
                        .getResult();
          index = arith::MaxSIOp::create(
              b, l, arith::MinSIOp::create(b, l, index, last), zero);
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          at.push_back(index);
          for (int64_t d = axis + 1; d < rank; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d + q - 1));
          return tensor::ExtractOp::create(b, l, data, at);
        },
        dynamicSizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The index into a dimension of `size` that output index `index` reads in
/// `mode`, for a begin pad of `low` (which may be negative: a crop).
Value sourceIndex(OpBuilder &b, Location loc, PadMode mode, Value index,
                  int64_t low, int64_t size) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value i = arith::SubIOp::create(b, loc, index, constant(low));
  // The non-negative remainder of i by `period`.
  auto positiveRem = [&](int64_t period) -> Value {
    Value p = constant(period);
    Value r = arith::RemSIOp::create(b, loc, i, p);
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r,
                                           constant(0));
    return arith::SelectOp::create(b, loc, negative,
                                   arith::AddIOp::create(b, loc, r, p), r);
  };
  switch (mode) {
  case PadMode::Edge:
    return arith::MaxSIOp::create(
        b, loc, arith::MinSIOp::create(b, loc, i, constant(size - 1)),
        constant(0));
  case PadMode::Wrap:
    return positiveRem(size);
  case PadMode::Reflect: {
    if (size == 1)
      return constant(0);
    // Reflection is periodic with period 2 * (size - 1).
    int64_t period = 2 * (size - 1);
    Value r = positiveRem(period);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r,
                                         constant(size));
    return arith::SelectOp::create(
        b, loc, inside, r, arith::SubIOp::create(b, loc, constant(period), r));
  }
  case PadMode::Constant:
    break;
  }
  return i;
}

struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    Type elementType = inputType.getElementType();
    int64_t rank = inputType.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    if (static_cast<int64_t>(pads.size()) != 2 * rank)
      return rewriter.notifyMatchFailure(op, "expects 2 * rank pads");
    ArrayRef<int64_t> low = pads.take_front(rank), high = pads.drop_front(rank);
    PadMode mode = op.getMode();

    if (mode != PadMode::Constant) {
      if (inputType.getNumElements() == 0)
        return rewriter.notifyMatchFailure(op, "cannot extend an empty tensor");
      Value result = parallelGeneric(
          rewriter, loc, resultType, ValueRange{}, {},
          [&](OpBuilder &b, Location l, ValueRange) -> Value {
            SmallVector<Value> at;
            for (int64_t d = 0; d < rank; ++d) {
              Value index = linalg::IndexOp::create(b, l, d);
              at.push_back(low[d] == 0 && high[d] == 0
                               ? index
                               : sourceIndex(b, l, mode, index, low[d],
                                             inputType.getDimSize(d)));
            }
            return tensor::ExtractOp::create(b, l, input, at);
          });
      rewriter.replaceOp(op, result);
      return success();
    }

    // On dynamic extents (constant mode, no crop: the pass checks it): one
    // tensor.pad, its result extents the input's plus the pads.
    if (!resultType.hasStaticShape()) {
      if (llvm::all_of(pads, [](int64_t p) { return p == 0; })) {
        rewriter.replaceOp(op, input);
        return success();
      }
      SmallVector<OpFoldResult> lows, highs;
      for (int64_t d = 0; d < rank; ++d) {
        lows.push_back(rewriter.getIndexAttr(low[d]));
        highs.push_back(rewriter.getIndexAttr(high[d]));
      }
      Value scalar = arith::ConstantOp::create(
          rewriter, loc,
          isa<FloatType>(elementType)
              ? TypedAttr(rewriter.getFloatAttr(
                    elementType, op.getValue().convertToDouble()))
              : TypedAttr(rewriter.getIntegerAttr(
                    elementType,
                    static_cast<int64_t>(op.getValue().convertToDouble()))));
      rewriter.replaceOpWithNewOp<tensor::PadOp>(op, resultType, input, lows,
                                                 highs, scalar);
      return success();
    }
    // Constant mode: crop the negative pads, then tensor.pad the others.
    if (llvm::any_of(pads, [](int64_t p) { return p < 0; })) {
      SmallVector<int64_t> offsets, sizes;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t cropLow = std::max<int64_t>(-low[d], 0);
        int64_t cropHigh = std::max<int64_t>(-high[d], 0);
        offsets.push_back(cropLow);
        sizes.push_back(
            std::max<int64_t>(inputType.getDimSize(d) - cropLow - cropHigh, 0));
      }
      input = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get(sizes, elementType), input,
          indexAttrs(rewriter, offsets), indexAttrs(rewriter, sizes),
          indexAttrs(rewriter, SmallVector<int64_t>(rank, 1)));
    }
    if (llvm::any_of(pads, [](int64_t p) { return p > 0; })) {
      double value = op.getValue().convertToDouble();
      TypedAttr padAttr;
      if (isa<FloatType>(elementType))
        padAttr = rewriter.getFloatAttr(elementType, value);
      else if (elementType.isInteger(1))
        padAttr = rewriter.getIntegerAttr(elementType, value != 0.0);
      else
        padAttr =
            rewriter.getIntegerAttr(elementType, static_cast<int64_t>(value));
      Value scalar = arith::ConstantOp::create(rewriter, loc, padAttr);
      auto clamp = [&](ArrayRef<int64_t> p) {
        return indexAttrs(rewriter, llvm::map_to_vector(p, [](int64_t v) {
                            return std::max<int64_t>(v, 0);
                          }));
      };
      input = tensor::PadOp::create(rewriter, loc, resultType, input,
                                    clamp(low), clamp(high), scalar);
    }
    rewriter.replaceOp(op, input);
    return success();
  }
};

} // namespace

void lowering::populateDataMovementLoweringPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<SliceLowering, DynamicSliceLowering, ConcatLowering,
               GatherLowering, PadLowering>(
      converter, patterns.getContext());
}

//===- Scans.cpp - cumsum and topk ----------------------------------------===//
//
// Ops whose result along an axis depends on the results before it: an
// scf.for walks the axis (cumsum) or the k selected ranks (topk) and carries
// the result tensors, which it fills one slice per iteration with
// tensor.insert_slice; the work on a slice is a linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace int21;
using namespace int21::lowering;

namespace {

using utils::IteratorType;

/// Offsets, sizes and strides of the slice at position `position` of `axis`
/// of a tensor of `shape`.
struct AxisSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

AxisSlice axisSlice(OpBuilder &b, ArrayRef<int64_t> shape, int64_t axis,
                    Value position) {
  AxisSlice s;
  for (auto [d, size] : llvm::enumerate(shape)) {
    bool isAxis = static_cast<int64_t>(d) == axis;
    s.offsets.push_back(isAxis ? OpFoldResult(position) : b.getIndexAttr(0));
    s.sizes.push_back(b.getIndexAttr(isAxis ? 1 : size));
    s.strides.push_back(b.getIndexAttr(1));
  }
  return s;
}

SmallVector<int64_t> withoutAxis(ArrayRef<int64_t> shape, int64_t axis) {
  SmallVector<int64_t> rows(shape);
  rows.erase(rows.begin() + axis);
  return rows;
}

TypedAttr zeroAttr(OpBuilder &b, Type type) {
  if (isa<FloatType>(type))
    return b.getFloatAttr(type, 0);
  return b.getIntegerAttr(type, 0);
}

/// for p along the axis (backwards when reversed):
///   exclusive: out[p] = acc; acc += x[p]
///   inclusive: acc += x[p]; out[p] = acc
/// where acc, one slice, is accumulated in place by a linalg.generic.
struct CumSumLowering : OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    int64_t axis = op.getAxis(), size = type.getDimSize(axis);
    auto sliceType =
        RankedTensorType::get(withoutAxis(type.getShape(), axis), elementType);
    int64_t sliceRank = sliceType.getRank();
    bool exclusive = op.getExclusive(), reverse = op.getReverse();

    Value acc =
        filledTensor(rewriter, loc, sliceType, zeroAttr(rewriter, elementType));
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, size);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step,
        ValueRange{emptyTensor(rewriter, loc, type), acc},
        [&](OpBuilder &b, Location l, Value k, ValueRange iter) {
          Value position =
              reverse
                  ? arith::SubIOp::create(
                        b, l, arith::ConstantIndexOp::create(b, l, size - 1), k)
                  : k;
          AxisSlice s = axisSlice(b, type.getShape(), axis, position);
          Value result = iter[0], sum = iter[1];
          auto store = [&](Value slice) {
            result = tensor::InsertSliceOp::create(
                b, l, slice, result, s.offsets, s.sizes, s.strides);
          };
          if (exclusive)
            store(sum);
          Value slice = tensor::ExtractSliceOp::create(
              b, l, sliceType, input, s.offsets, s.sizes, s.strides);
          AffineMap id = b.getMultiDimIdentityMap(sliceRank);
          sum =
              linalg::GenericOp::create(
                  b, l, TypeRange{sliceType}, slice, sum,
                  SmallVector<AffineMap>{id, id},
                  SmallVector<IteratorType>(sliceRank, IteratorType::parallel),
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    Value v = isa<FloatType>(elementType)
                                  ? arith::AddFOp::create(nb, nl, a[1], a[0])
                                        .getResult()
                                  : arith::AddIOp::create(nb, nl, a[1], a[0])
                                        .getResult();
                    linalg::YieldOp::create(nb, nl, v);
                  })
                  .getResult(0);
          if (!exclusive)
            store(sum);
          scf::YieldOp::create(b, l, ValueRange{result, sum});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

/// Rank r of the result is the element that comes first, in the order of
/// the selection, among those after the element of rank r - 1: one
/// reduction generic per rank, O(n k) per row. The order is strict and
/// total (NaN above every number, ties broken by the lower index), so every
/// rank is a different element.
struct TopKLowering : OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank(), axis = op.getAxis(), k = op.getK();
    bool largest = op.getLargest();
    bool isUnsigned = isUnsignedElementType(op.getInput().getType());
    Type i64 = rewriter.getI64Type();
    auto valuesType =
        cast<RankedTensorType>(signlessType(op.getValues().getType()));
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    SmallVector<int64_t> rows = withoutAxis(type.getShape(), axis);
    auto rowValuesType = RankedTensorType::get(rows, elementType);
    auto rowIndicesType = RankedTensorType::get(rows, i64);

    // Whether (a, ia) comes strictly before (b, ib) in the selection order.
    auto before = [&](OpBuilder &b, Location l, Value va, Value ia, Value vb,
                      Value ib) -> Value {
      Value first, equal;
      if (isa<FloatType>(elementType)) {
        using FP = arith::CmpFPredicate;
        auto cmp = [&](FP p, Value x, Value y) -> Value {
          return arith::CmpFOp::create(b, l, p, x, y);
        };
        Value nanA = cmp(FP::UNO, va, va), nanB = cmp(FP::UNO, vb, vb);
        Value notNanA = arith::XOrIOp::create(
            b, l, nanA, arith::ConstantIntOp::create(b, l, 1, 1));
        Value notNanB = arith::XOrIOp::create(
            b, l, nanB, arith::ConstantIntOp::create(b, l, 1, 1));
        // NaN is above every number: first among the largest, last among
        // the smallest.
        first = largest ? arith::OrIOp::create(
                              b, l, cmp(FP::OGT, va, vb),
                              arith::AndIOp::create(b, l, nanA, notNanB))
                        : arith::OrIOp::create(
                              b, l, cmp(FP::OLT, va, vb),
                              arith::AndIOp::create(b, l, notNanA, nanB));
        equal = arith::OrIOp::create(b, l, cmp(FP::OEQ, va, vb),
                                     arith::AndIOp::create(b, l, nanA, nanB));
      } else {
        using IP = arith::CmpIPredicate;
        IP p = largest ? (isUnsigned ? IP::ugt : IP::sgt)
                       : (isUnsigned ? IP::ult : IP::slt);
        first = arith::CmpIOp::create(b, l, p, va, vb);
        equal = arith::CmpIOp::create(b, l, IP::eq, va, vb);
      }
      Value lower =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, ia, ib);
      return arith::OrIOp::create(b, l, first,
                                  arith::AndIOp::create(b, l, equal, lower));
    };

    SmallVector<AffineExpr> kept;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        kept.push_back(getAffineDimExpr(d, ctx));
    AffineMap keptMap = AffineMap::get(rank, 0, kept, ctx);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
    iterators[axis] = IteratorType::reduction;

    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, k);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> init = {emptyTensor(rewriter, loc, valuesType),
                               emptyTensor(rewriter, loc, indicesType),
                               filledTensor(rewriter, loc, rowValuesType,
                                            zeroAttr(rewriter, elementType)),
                               filledTensor(rewriter, loc, rowIndicesType,
                                            rewriter.getI64IntegerAttr(-1))};
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, init,
        [&](OpBuilder &b, Location l, Value r, ValueRange iter) {
          Value isFirst =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, r, lb);
          Value bestValues =
              filledTensor(b, l, rowValuesType, zeroAttr(b, elementType));
          Value bestIndices =
              filledTensor(b, l, rowIndicesType, b.getI64IntegerAttr(-1));
          auto select = linalg::GenericOp::create(
              b, l, TypeRange{rowValuesType, rowIndicesType},
              ValueRange{input, iter[2], iter[3]},
              ValueRange{bestValues, bestIndices},
              SmallVector<AffineMap>{id, keptMap, keptMap, keptMap, keptMap},
              iterators, [&](OpBuilder &nb, Location nl, ValueRange a) {
                Value x = a[0], prevValue = a[1], prevIndex = a[2];
                Value bestValue = a[3], bestIndex = a[4];
                Value j = arith::IndexCastOp::create(
                    nb, nl, i64, linalg::IndexOp::create(nb, nl, axis));
                Value eligible = arith::OrIOp::create(
                    nb, nl, isFirst,
                    before(nb, nl, prevValue, prevIndex, x, j));
                Value noneYet = arith::CmpIOp::create(
                    nb, nl, arith::CmpIPredicate::slt, bestIndex,
                    arith::ConstantIntOp::create(nb, nl, i64, 0));
                Value take = arith::AndIOp::create(
                    nb, nl, eligible,
                    arith::OrIOp::create(
                        nb, nl, noneYet,
                        before(nb, nl, x, j, bestValue, bestIndex)));
                linalg::YieldOp::create(
                    nb, nl,
                    ValueRange{
                        arith::SelectOp::create(nb, nl, take, x, bestValue),
                        arith::SelectOp::create(nb, nl, take, j, bestIndex)});
              });
          AxisSlice s = axisSlice(b, valuesType.getShape(), axis, r);
          Value values =
              tensor::InsertSliceOp::create(b, l, select.getResult(0), iter[0],
                                            s.offsets, s.sizes, s.strides);
          Value indices =
              tensor::InsertSliceOp::create(b, l, select.getResult(1), iter[1],
                                            s.offsets, s.sizes, s.strides);
          // Copied into the carried tensors, so that the loop's results
          // bufferize in place (the selection reads them until here).
          Value prevValues =
              linalg::CopyOp::create(b, l, select.getResult(0), iter[2])
                  .getResult(0);
          Value prevIndices =
              linalg::CopyOp::create(b, l, select.getResult(1), iter[3])
                  .getResult(0);
          scf::YieldOp::create(
              b, l, ValueRange{values, indices, prevValues, prevIndices});
        });
    rewriter.replaceOp(
        op, SmallVector<Value>{loop.getResult(0), loop.getResult(1)});
    return success();
  }
};

} // namespace

void lowering::populateScanLoweringPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<CumSumLowering, TopKLowering>(converter, patterns.getContext());
}

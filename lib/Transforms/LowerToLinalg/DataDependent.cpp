//===- DataDependent.cpp - ops whose result extents depend on data ---------===//
//
// The number of nonzero elements (ONNX NonZero, Compress) is known during
// the run only. The lowering counts first (a loop nest carrying the count),
// sizes the result with the count (int21.bounded_extent: at most the number
// of elements, the size a model output is allocated at before the run),
// then writes the positions in a second loop nest that carries the result
// and the next column. Outside fusion groups, each loop nest becomes a
// kernel of its own and the count a load between them.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace int21;
using namespace int21::lowering;

namespace {

/// Whether `value`, an element of a signless tensor, is not zero (NaN is
/// not zero).
Value isNonZero(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (isa<FloatType>(type))
    return arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::UNE, value,
        arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0)));
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, value,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0)));
}

/// The loop bounds of every element of `input`: zeros, its extents, ones.
struct ElementLoops {
  SmallVector<Value> lbs, ubs, steps;
};

ElementLoops elementLoops(OpBuilder &b, Location loc, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  ElementLoops loops;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    loops.lbs.push_back(zero);
    loops.steps.push_back(one);
    loops.ubs.push_back(
        type.isDynamicDim(d)
            ? tensor::DimOp::create(b, loc, input, d).getResult()
            : arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))
                  .getResult());
  }
  return loops;
}

struct NonZeroLowering : OpConversionPattern<NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NonZeroOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    ElementLoops loops = elementLoops(rewriter, loc, input);
    Value numel = one;
    for (Value extent : loops.ubs)
      numel = arith::MulIOp::create(rewriter, loc, numel, extent);

    // The count (of a scalar: the body once, without loops).
    scf::LoopNest count = scf::buildLoopNest(
        rewriter, loc, loops.lbs, loops.ubs, loops.steps, ValueRange{zero},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iter) -> scf::ValueVector {
          Value element = tensor::ExtractOp::create(b, l, input, ivs);
          Value add = arith::SelectOp::create(b, l, isNonZero(b, l, element),
                                              one, zero);
          return {arith::AddIOp::create(b, l, iter[0], add)};
        });
    Value extent =
        BoundedExtentOp::create(rewriter, loc, count.results.front(), numel);

    // The positions, column by column.
    Value empty = emptyTensor(rewriter, loc, resultType, ValueRange{extent});
    if (type.getRank() == 0) {
      // One row of zeros, one column when the scalar is not zero.
      Value filled = linalg::FillOp::create(
                         rewriter, loc,
                         ValueRange{arith::ConstantIntOp::create(
                             rewriter, loc, rewriter.getI64Type(), 0)},
                         ValueRange{empty})
                         .getResult(0);
      rewriter.replaceOp(op, filled);
      return success();
    }
    scf::LoopNest write = scf::buildLoopNest(
        rewriter, loc, loops.lbs, loops.ubs, loops.steps,
        ValueRange{empty, zero},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iter) -> scf::ValueVector {
          Value element = tensor::ExtractOp::create(b, l, input, ivs);
          auto branch = scf::IfOp::create(
              b, l, TypeRange{resultType, b.getIndexType()},
              isNonZero(b, l, element), /*withElseRegion=*/true);
          {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(&branch.getThenRegion().front());
            Value result = iter[0];
            for (auto [d, iv] : llvm::enumerate(ivs)) {
              Value row = arith::ConstantIndexOp::create(b, l, d);
              Value position =
                  arith::IndexCastOp::create(b, l, b.getI64Type(), iv);
              result = tensor::InsertOp::create(b, l, position, result,
                                                ValueRange{row, iter[1]});
            }
            scf::YieldOp::create(
                b, l,
                ValueRange{result, arith::AddIOp::create(b, l, iter[1], one)});
            b.setInsertionPointToStart(&branch.getElseRegion().front());
            scf::YieldOp::create(b, l, ValueRange{iter[0], iter[1]});
          }
          return {branch.getResult(0), branch.getResult(1)};
        });
    rewriter.replaceOp(op, write.results.front());
    return success();
  }
};

/// Loops over [0, `ub`) carrying `init`, built by `body`.
scf::ForOp forLoop(OpBuilder &b, Location loc, Value lb, Value ub,
                   ValueRange init,
                   function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                   Value, ValueRange)>
                       body) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return scf::ForOp::create(
      b, loc, lb, ub, one, init,
      [&](OpBuilder &nb, Location l, Value iv, ValueRange iter) {
        scf::YieldOp::create(nb, l, body(nb, l, iv, iter));
      });
}

/// scf.if `condition` yielding `thenValues()` or `elseValues()`, of
/// `types`.
using BranchBuilder =
    function_ref<SmallVector<Value>(OpBuilder &, Location)>;
SmallVector<Value> ifThenElse(OpBuilder &b, Location loc, Value condition,
                              TypeRange types, BranchBuilder thenValues,
                              BranchBuilder elseValues) {
  auto branch = scf::IfOp::create(b, loc, types, condition,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  scf::YieldOp::create(b, loc, thenValues(b, loc));
  b.setInsertionPointToStart(&branch.getElseRegion().front());
  scf::YieldOp::create(b, loc, elseValues(b, loc));
  return branch.getResults();
}

/// The distinct rows: for each row the first row equal to it (a pass over
/// the rows before it), then each new row's rank among the distinct ones
/// (by lexicographic order, or order of occurrence), which places its
/// values, index and count. O(n^2 s) for n rows of s elements.
struct UniqueLowering : OpConversionPattern<UniqueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UniqueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type element = type.getElementType();
    bool isUnsigned = isUnsignedElementType(op.getInput().getType());
    bool sorted = op.getSorted();
    Type i64 = rewriter.getI64Type();
    int64_t n = type.getDimSize(0), s = type.getDimSize(1);
    auto constant = [&](OpBuilder &b, Location l, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, l, v);
    };
    Value zero = constant(rewriter, loc, 0), one = constant(rewriter, loc, 1);
    Value rows = constant(rewriter, loc, n), cols = constant(rewriter, loc, s);
    auto toIndex = [&](OpBuilder &b, Location l, Value v) -> Value {
      return arith::IndexCastOp::create(b, l, b.getIndexType(), v);
    };
    auto toI64 = [&](OpBuilder &b, Location l, Value v) -> Value {
      return arith::IndexCastOp::create(b, l, i64, v);
    };
    auto equal = [&](OpBuilder &b, Location l, Value a, Value c) -> Value {
      if (isa<FloatType>(element))
        return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a, c);
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a, c);
    };
    auto less = [&](OpBuilder &b, Location l, Value a, Value c) -> Value {
      if (isa<FloatType>(element))
        return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, a, c);
      return arith::CmpIOp::create(b, l,
                                   isUnsigned || element.isInteger(1)
                                       ? arith::CmpIPredicate::ult
                                       : arith::CmpIPredicate::slt,
                                   a, c);
    };
    auto at = [&](OpBuilder &b, Location l, Value row, Value col) -> Value {
      return tensor::ExtractOp::create(b, l, x, ValueRange{row, col});
    };
    // Whether rows i and j are equal.
    auto rowsEqual = [&](OpBuilder &b, Location l, Value i, Value j) -> Value {
      Value yes = arith::ConstantIntOp::create(b, l, 1, 1);
      return forLoop(b, l, zero, cols, ValueRange{yes},
                     [&](OpBuilder &nb, Location nl, Value k,
                         ValueRange iter) -> SmallVector<Value> {
                       return {arith::AndIOp::create(
                           nb, nl, iter[0],
                           equal(nb, nl, at(nb, nl, i, k), at(nb, nl, j, k)))};
                     })
          .getResult(0);
    };
    // Whether row i comes before row j (the first element that differs).
    auto rowBefore = [&](OpBuilder &b, Location l, Value i, Value j) -> Value {
      Value no = arith::ConstantIntOp::create(b, l, 0, 1);
      return forLoop(
                 b, l, zero, cols, ValueRange{no, no},
                 [&](OpBuilder &nb, Location nl, Value k,
                     ValueRange iter) -> SmallVector<Value> {
                   Value a = at(nb, nl, i, k), c = at(nb, nl, j, k);
                   Value differs = arith::XOrIOp::create(
                       nb, nl, equal(nb, nl, a, c),
                       arith::ConstantIntOp::create(nb, nl, 1, 1));
                   Value decides = arith::AndIOp::create(
                       nb, nl, differs,
                       arith::XOrIOp::create(
                           nb, nl, iter[0],
                           arith::ConstantIntOp::create(nb, nl, 1, 1)));
                   return {arith::OrIOp::create(nb, nl, iter[0], decides),
                           arith::SelectOp::create(nb, nl, decides,
                                                   less(nb, nl, a, c),
                                                   iter[1])};
                 })
          .getResult(1);
    };

    // first[i]: the first row equal to row i; u, the number of new rows.
    auto vectorType = RankedTensorType::get({n}, i64);
    Value firstInit = emptyTensor(rewriter, loc, vectorType);
    auto firsts = forLoop(
        rewriter, loc, zero, rows, ValueRange{firstInit, zero},
        [&](OpBuilder &b, Location l, Value i,
            ValueRange iter) -> SmallVector<Value> {
          Value first =
              forLoop(b, l, zero, i, ValueRange{i},
                      [&](OpBuilder &nb, Location nl, Value j,
                          ValueRange f) -> SmallVector<Value> {
                        Value unset = arith::CmpIOp::create(
                            nb, nl, arith::CmpIPredicate::eq, f[0], i);
                        Value take = arith::AndIOp::create(
                            nb, nl, unset, rowsEqual(nb, nl, j, i));
                        return {arith::SelectOp::create(nb, nl, take, j, f[0])};
                      })
                  .getResult(0);
          Value isNew =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, first, i);
          Value firstsNext = tensor::InsertOp::create(
              b, l, toI64(b, l, first), iter[0], ValueRange{i});
          Value count = arith::AddIOp::create(
              b, l, iter[1], arith::SelectOp::create(b, l, isNew, one, zero));
          return {firstsNext, count};
        });
    Value first = firsts.getResult(0);
    Value u = BoundedExtentOp::create(rewriter, loc, firsts.getResult(1),
                                      rows);
    auto isNewRow = [&](OpBuilder &b, Location l, Value k) -> Value {
      Value f = toIndex(b, l,
                        tensor::ExtractOp::create(b, l, first, ValueRange{k}));
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, f, k);
    };

    // Each new row at its rank; every row's rank (the inverse).
    auto valuesType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getValues().getType()));
    auto dynamicType = RankedTensorType::get({ShapedType::kDynamic}, i64);
    Value values = emptyTensor(rewriter, loc, valuesType, ValueRange{u});
    Value indices = emptyTensor(rewriter, loc, dynamicType, ValueRange{u});
    Value inverse = emptyTensor(rewriter, loc, vectorType);
    auto placed = forLoop(
        rewriter, loc, zero, rows, ValueRange{values, indices, inverse, zero},
        [&](OpBuilder &b, Location l, Value i,
            ValueRange iter) -> SmallVector<Value> {
          Value known = toIndex(
              b, l, tensor::ExtractOp::create(b, l, first, ValueRange{i}));
          SmallVector<Value> placed = ifThenElse(
              b, l, isNewRow(b, l, i), iter.getTypes(),
              [&](OpBuilder &nb, Location nl) -> SmallVector<Value> {
                Value rank = iter[3];
                if (sorted)
                  rank = forLoop(nb, nl, zero, rows, ValueRange{zero},
                                 [&](OpBuilder &mb, Location ml, Value k,
                                     ValueRange r) -> SmallVector<Value> {
                                   Value counts = arith::AndIOp::create(
                                       mb, ml, isNewRow(mb, ml, k),
                                       rowBefore(mb, ml, k, i));
                                   return {arith::AddIOp::create(
                                       mb, ml, r[0],
                                       arith::SelectOp::create(
                                           mb, ml, counts, one, zero))};
                                 })
                             .getResult(0);
                Value row =
                    forLoop(nb, nl, zero, cols, ValueRange{iter[0]},
                            [&](OpBuilder &mb, Location ml, Value k,
                                ValueRange v) -> SmallVector<Value> {
                              return {tensor::InsertOp::create(
                                  mb, ml, at(mb, ml, i, k), v[0],
                                  ValueRange{rank, k})};
                            })
                        .getResult(0);
                Value index = tensor::InsertOp::create(
                    nb, nl, toI64(nb, nl, i), iter[1], ValueRange{rank});
                Value inv = tensor::InsertOp::create(
                    nb, nl, toI64(nb, nl, rank), iter[2], ValueRange{i});
                return {row, index, inv,
                        arith::AddIOp::create(nb, nl, iter[3], one)};
              },
              // A row seen before has the rank of its first occurrence.
              [&](OpBuilder &nb, Location nl) -> SmallVector<Value> {
                Value rank = tensor::ExtractOp::create(nb, nl, iter[2],
                                                       ValueRange{known});
                return {iter[0], iter[1],
                        tensor::InsertOp::create(nb, nl, rank, iter[2],
                                                 ValueRange{i}),
                        iter[3]};
              });
          return placed;
        });
    Value inv = placed.getResult(2);
    // The counts: one per row at its rank.
    Value counts = filledTensor(rewriter, loc, dynamicType,
                                rewriter.getI64IntegerAttr(0), ValueRange{u});
    counts = forLoop(rewriter, loc, zero, rows, ValueRange{counts},
                     [&](OpBuilder &b, Location l, Value i,
                         ValueRange iter) -> SmallVector<Value> {
                       Value rank = toIndex(
                           b, l,
                           tensor::ExtractOp::create(b, l, inv, ValueRange{i}));
                       Value c = tensor::ExtractOp::create(b, l, iter[0],
                                                           ValueRange{rank});
                       Value next = arith::AddIOp::create(
                           b, l, c,
                           arith::ConstantIntOp::create(b, l, i64, 1));
                       return {tensor::InsertOp::create(b, l, next, iter[0],
                                                        ValueRange{rank})};
                     })
                 .getResult(0);
    rewriter.replaceOp(op, ValueRange{placed.getResult(0), placed.getResult(1),
                                      inv, counts});
    return success();
  }
};

/// Per batch and class, up to max_output rounds: the best candidate left
/// (a pass over the boxes), written as (b, c, box) at the next row, then a
/// pass that suppresses the boxes overlapping it. The rows go into a buffer
/// of the bound (batches x classes x boxes), sliced to the count.
struct NonMaxSuppressionLowering : OpConversionPattern<NonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NonMaxSuppressionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value boxes = adaptor.getBoxes(), scores = adaptor.getScores();
    auto scoresType = cast<RankedTensorType>(scores.getType());
    Type element = scoresType.getElementType();
    int64_t batches = scoresType.getDimSize(0);
    int64_t classes = scoresType.getDimSize(1);
    int64_t count = scoresType.getDimSize(2);
    bool center = op.getCenterPointBox();
    Type i64 = rewriter.getI64Type();
    auto constant = [&](OpBuilder &b, Location l, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, l, v);
    };
    auto real = [&](OpBuilder &b, Location l, double v) -> Value {
      return arith::ConstantOp::create(b, l, b.getFloatAttr(element, v));
    };
    Value zero = constant(rewriter, loc, 0), one = constant(rewriter, loc, 1);
    Value n = constant(rewriter, loc, count);
    // The limits, read during the run: at most every box per class.
    Value maxOutput = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(),
        tensor::ExtractOp::create(rewriter, loc, adaptor.getMaxOutput(),
                                  ValueRange{}));
    maxOutput = arith::MaxSIOp::create(
        rewriter, loc, arith::MinSIOp::create(rewriter, loc, maxOutput, n),
        zero);
    Value iouThreshold = tensor::ExtractOp::create(
        rewriter, loc, adaptor.getIouThreshold(), ValueRange{});
    Value scoreThreshold = tensor::ExtractOp::create(
        rewriter, loc, adaptor.getScoreThreshold(), ValueRange{});

    // A box's [ymin, xmin, ymax, xmax].
    auto corners = [&](OpBuilder &b, Location l, Value batch,
                       Value box) -> SmallVector<Value> {
      SmallVector<Value> v;
      for (int64_t k = 0; k < 4; ++k)
        v.push_back(tensor::ExtractOp::create(
            b, l, boxes, ValueRange{batch, box, constant(b, l, k)}));
      if (center) {
        // [x, y, width, height] around the center.
        Value half = real(b, l, 0.5);
        Value hw = arith::MulFOp::create(b, l, v[2], half);
        Value hh = arith::MulFOp::create(b, l, v[3], half);
        return {arith::SubFOp::create(b, l, v[1], hh),
                arith::SubFOp::create(b, l, v[0], hw),
                arith::AddFOp::create(b, l, v[1], hh),
                arith::AddFOp::create(b, l, v[0], hw)};
      }
      return {arith::MinimumFOp::create(b, l, v[0], v[2]),
              arith::MinimumFOp::create(b, l, v[1], v[3]),
              arith::MaximumFOp::create(b, l, v[0], v[2]),
              arith::MaximumFOp::create(b, l, v[1], v[3])};
    };
    // Whether box j overlaps box `a` (corners) more than the threshold.
    auto suppresses = [&](OpBuilder &b, Location l, ArrayRef<Value> a,
                          ArrayRef<Value> c) -> Value {
      Value none = real(b, l, 0);
      auto extent = [&](Value lo, Value hi) -> Value {
        return arith::SubFOp::create(b, l, hi, lo);
      };
      Value areaA = arith::MulFOp::create(b, l, extent(a[0], a[2]),
                                          extent(a[1], a[3]));
      Value areaC = arith::MulFOp::create(b, l, extent(c[0], c[2]),
                                          extent(c[1], c[3]));
      Value h = arith::MaximumFOp::create(
          b, l,
          extent(arith::MaximumFOp::create(b, l, a[0], c[0]),
                 arith::MinimumFOp::create(b, l, a[2], c[2])),
          none);
      Value w = arith::MaximumFOp::create(
          b, l,
          extent(arith::MaximumFOp::create(b, l, a[1], c[1]),
                 arith::MinimumFOp::create(b, l, a[3], c[3])),
          none);
      Value inter = arith::MulFOp::create(b, l, h, w);
      Value uni = arith::SubFOp::create(
          b, l, arith::AddFOp::create(b, l, areaA, areaC), inter);
      Value iou = arith::DivFOp::create(b, l, inter, uni);
      using FP = arith::CmpFPredicate;
      Value positive = arith::AndIOp::create(
          b, l, arith::CmpFOp::create(b, l, FP::OGT, areaA, none),
          arith::CmpFOp::create(b, l, FP::OGT, areaC, none));
      return arith::AndIOp::create(
          b, l, positive,
          arith::CmpFOp::create(b, l, FP::OGT, iou, iouThreshold));
    };

    int64_t bound = batches * classes * count;
    auto rowsType = RankedTensorType::get({bound, 3}, i64);
    auto flagsType = RankedTensorType::get({count}, rewriter.getI1Type());
    Value rows = emptyTensor(rewriter, loc, rowsType);
    auto perClass = [&](OpBuilder &b, Location l, Value batch, Value cls,
                        ValueRange iter) -> SmallVector<Value> {
      Value flags = filledTensor(b, l, flagsType, b.getBoolAttr(false));
      auto rounds = forLoop(
          b, l, zero, maxOutput, ValueRange{iter[0], iter[1], flags},
          [&](OpBuilder &rb, Location rl, Value,
              ValueRange state) -> SmallVector<Value> {
            Value taken = state[2];
            // The best candidate left: -1 when none.
            Value noBox = constant(rb, rl, -1);
            auto best = forLoop(
                rb, rl, zero, n, ValueRange{noBox, real(rb, rl, 0)},
                [&](OpBuilder &cb, Location cl, Value i,
                    ValueRange found) -> SmallVector<Value> {
                  Value score = tensor::ExtractOp::create(
                      cb, cl, scores, ValueRange{batch, cls, i});
                  Value free = arith::XOrIOp::create(
                      cb, cl,
                      tensor::ExtractOp::create(cb, cl, taken, ValueRange{i}),
                      arith::ConstantIntOp::create(cb, cl, 1, 1));
                  Value eligible = arith::AndIOp::create(
                      cb, cl, free,
                      arith::CmpFOp::create(cb, cl, arith::CmpFPredicate::OGT,
                                            score, scoreThreshold));
                  Value first = arith::CmpIOp::create(
                      cb, cl, arith::CmpIPredicate::slt, found[0], zero);
                  Value higher = arith::CmpFOp::create(
                      cb, cl, arith::CmpFPredicate::OGT, score, found[1]);
                  Value take = arith::AndIOp::create(
                      cb, cl, eligible,
                      arith::OrIOp::create(cb, cl, first, higher));
                  return {arith::SelectOp::create(cb, cl, take, i, found[0]),
                          arith::SelectOp::create(cb, cl, take, score,
                                                  found[1])};
                });
            Value box = best.getResult(0);
            Value any = arith::CmpIOp::create(rb, rl, arith::CmpIPredicate::sge,
                                              box, zero);
            return ifThenElse(
                rb, rl, any, state.getTypes(),
                [&](OpBuilder &tb, Location tl) -> SmallVector<Value> {
                  Value row = state[0];
                  Value next = state[1];
                  for (auto [k, v] : llvm::enumerate(
                           SmallVector<Value>{batch, cls, box}))
                    row = tensor::InsertOp::create(
                        tb, tl, arith::IndexCastOp::create(tb, tl, i64, v),
                        row, ValueRange{next, constant(tb, tl, k)});
                  SmallVector<Value> chosen = corners(tb, tl, batch, box);
                  Value marked = forLoop(
                      tb, tl, zero, n, ValueRange{taken},
                      [&](OpBuilder &sb, Location sl, Value j,
                          ValueRange f) -> SmallVector<Value> {
                        Value was = tensor::ExtractOp::create(sb, sl, f[0],
                                                              ValueRange{j});
                        Value self = arith::CmpIOp::create(
                            sb, sl, arith::CmpIPredicate::eq, j, box);
                        Value now = arith::OrIOp::create(
                            sb, sl, was,
                            arith::OrIOp::create(
                                sb, sl, self,
                                suppresses(sb, sl, chosen,
                                           corners(sb, sl, batch, j))));
                        return {tensor::InsertOp::create(sb, sl, now, f[0],
                                                         ValueRange{j})};
                      })
                                     .getResult(0);
                  return {row, arith::AddIOp::create(tb, tl, next, one),
                          marked};
                },
                [&](OpBuilder &, Location) -> SmallVector<Value> {
                  return {state[0], state[1], state[2]};
                });
          });
      return {rounds.getResult(0), rounds.getResult(1)};
    };
    auto all = forLoop(
        rewriter, loc, zero, constant(rewriter, loc, batches),
        ValueRange{rows, zero},
        [&](OpBuilder &b, Location l, Value batch,
            ValueRange iter) -> SmallVector<Value> {
          return SmallVector<Value>(
              forLoop(b, l, zero, constant(b, l, classes), iter,
                      [&](OpBuilder &cb, Location cl, Value cls,
                          ValueRange inner) -> SmallVector<Value> {
                        return perClass(cb, cl, batch, cls, inner);
                      })
                  .getResults());
        });
    Value selected = BoundedExtentOp::create(rewriter, loc, all.getResult(1),
                                             constant(rewriter, loc, bound));
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0),
                                         rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {selected, rewriter.getIndexAttr(3)};
    SmallVector<OpFoldResult> strides = {rewriter.getIndexAttr(1),
                                         rewriter.getIndexAttr(1)};
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, cast<RankedTensorType>(op.getType()), all.getResult(0), offsets,
        sizes, strides);
    return success();
  }
};

} // namespace

namespace {

/// int21.random: a buffer filled by the engine's generator
/// (`int21_random` in lib/Runtime/EngineSupport.c, which the importer
/// declares), viewed as the result tensor.
struct RandomLowering : OpConversionPattern<RandomOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandomOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    auto callee = module ? module.lookupSymbol<func::FuncOp>(kRandomFunction)
                         : func::FuncOp();
    if (!callee)
      return rewriter.notifyMatchFailure(op, "@int21_random is not declared");
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer =
        memref::AllocOp::create(rewriter, loc, bufferType, adaptor.getSizes());
    Type i64 = rewriter.getI64Type();
    Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      count = arith::MulIOp::create(
          rewriter, loc, count,
          memref::DimOp::create(rewriter, loc, buffer, d).getResult());
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buffer);
    auto asI64 = [&](Value index) {
      return arith::IndexCastOp::create(rewriter, loc, i64, index).getResult();
    };
    std::optional<int64_t> seed = op.getSeed();
    Value args[] = {
        asI64(pointer), asI64(count),
        arith::ConstantIntOp::create(rewriter, loc, i64, seed ? *seed : -1),
        arith::ConstantIntOp::create(rewriter, loc, i64, op.getNormal())};
    func::CallOp::create(rewriter, loc, callee, args);
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, type, buffer, /*restrict=*/true, /*writable=*/true);
    return success();
  }
};

} // namespace

void lowering::populateDataDependentLoweringPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<NonZeroLowering, UniqueLowering, NonMaxSuppressionLowering,
               RandomLowering>(converter, patterns.getContext());
}

//===- Structured.cpp - constants, contractions, reductions, movement -----===//
//
// Lowerings onto named linalg ops where one fits (matmul, batch_matmul,
// transpose, reduce, softmax) and linalg.generic where none does (matmul
// with broadcast batch dimensions, expand, log-softmax, and for CPU targets
// a matmul with a constant right operand in panels of 16 columns).
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace int21;
using namespace int21::lowering;

namespace {

TypedAttr zeroAttr(OpBuilder &b, Type type) {
  return cast<TypedAttr>(b.getZeroAttr(type));
}

/// `value` retyped to the signless type of its unsigned elements: the same
/// bits, which is what arith.constant accepts.
FailureOr<TypedAttr> signlessAttr(TypedAttr value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !isUnsignedElementType(type))
    return value;
  auto signless = cast<ShapedType>(signlessType(type));
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return cast<TypedAttr>(dense.bitcast(signless.getElementType()));
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return cast<TypedAttr>(
        DenseResourceElementsAttr::get(signless, resource.getRawHandle()));
  return failure();
}

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TypedAttr> value = signlessAttr(cast<TypedAttr>(op.getValue()));
    if (failed(value))
      return rewriter.notifyMatchFailure(op, "unsupported unsigned constant");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, *value);
    return success();
  }
};

struct MatMulLowering : OpConversionPattern<MatMulOp> {
  MatMulLowering(const TypeConverter &converter, MLIRContext *ctx,
                 bool panels)
      : OpConversionPattern(converter, ctx), panels(panels) {}

  /// Whether products with a constant right operand lay it out in panels
  /// (CPU targets; see panelMatmul).
  bool panels;

  /// Whether [rows, k] x `rhs` [k, n] runs with the right operand in panels
  /// of 16 columns: a constant (its layout folds into the weights), floats,
  /// whole vectors of columns, and more rows than a decoder step or a batch-1
  /// head, whose weight is streamed once.
  static bool wantsPanels(Value rhs, int64_t rows, Type element) {
    auto type = cast<RankedTensorType>(rhs.getType());
    // A constant, or its transpose, reshape or slice (a linear layer's
    // weight imported as W^T, a part of attention's projection weight):
    // folded as well.
    auto staticSlice = [](Operation *op) {
      auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(op);
      return slice && slice.getType().hasStaticShape() &&
             llvm::none_of(slice.getStaticOffsets(), ShapedType::isDynamic) &&
             llvm::none_of(slice.getStaticStrides(), ShapedType::isDynamic);
    };
    Operation *def = rhs.getDefiningOp();
    while (isa_and_present<linalg::TransposeOp, tensor::CollapseShapeOp,
                           tensor::ExpandShapeOp>(def) ||
           staticSlice(def))
      def = def->getOperand(0).getDefiningOp();
    return isa<FloatType>(element) && type.getRank() == 2 &&
           type.hasStaticShape() && type.getDimSize(1) % 16 == 0 &&
           rows > 16 && def && def->hasTrait<::mlir::OpTrait::ConstantLike>();
  }

  /// `lhs` [M, K] x `rhs` [K, N] with the constant right operand in panels
  /// of 16 columns, [N/16, K, 16] (folded into a constant by
  /// int21-outline-weights, as ONNX Runtime packs a constant GEMM operand
  /// once): a generic over (m, nb, ni, k) writing the [M, N/16, 16] view of
  /// the result, collapsed back to [M, N]. A register tile reads its B
  /// panels as consecutive vectors, where rows of B N floats apart (8 KiB
  /// for 2048 columns: every row in the same L1 sets, a page apart for the
  /// prefetcher) were read from L2 at every step (@cpu.matmul_panels).
  static Value panelMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                           RankedTensorType resultType) {
    Type element = resultType.getElementType();
    int64_t m = resultType.getDimSize(0), blocks = resultType.getDimSize(1) / 16;
    Value panels = columnPanels(b, loc, rhs, /*transposed=*/false);
    SmallVector<Value> rows;
    if (ShapedType::isDynamic(m))
      rows.push_back(tensor::DimOp::create(b, loc, lhs, 0));
    Value init = filledTensor(
        b, loc, RankedTensorType::get({m, blocks, 16}, element),
        zeroAttr(b, element), rows);
    Value product =
        panelProduct(b, loc, lhs, /*lhsTransposed=*/false, panels, init);
    return tensor::CollapseShapeOp::create(
        b, loc, resultType, product,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  }

  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    Type elementType = resultType.getElementType();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t rank = resultType.getRank();
    // The product's extents: batch dimensions broadcast from both operands'
    // (as ONNX broadcasts them), rows from the left, columns from the right.
    auto sizesOf = [&](RankedTensorType type) -> SmallVector<Value> {
      if (type != resultType)
        return {};
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < rank; ++d) {
        if (!type.isDynamicDim(d))
          continue;
        if (d == rank - 2) {
          sizes.push_back(tensor::DimOp::create(rewriter, loc, lhs,
                                                lhsType.getRank() - 2));
        } else if (d == rank - 1) {
          sizes.push_back(tensor::DimOp::create(rewriter, loc, rhs,
                                                rhsType.getRank() - 1));
        } else {
          for (auto [v, t] : {std::pair{lhs, lhsType}, std::pair{rhs, rhsType}}) {
            int64_t aligned = d - (rank - t.getRank());
            if (aligned >= 0 && t.isDynamicDim(aligned)) {
              sizes.push_back(tensor::DimOp::create(rewriter, loc, v, aligned));
              break;
            }
          }
        }
      }
      return sizes;
    };
    auto zeros = [&](RankedTensorType type) {
      return filledTensor(rewriter, loc, type, zeroAttr(rewriter, elementType),
                          sizesOf(type));
    };
    // Dynamic extents the product reads as equal: K, and batch dimensions
    // of both operands (neither broadcast from 1).
    auto checkExtents = [&]() {
      int64_t kl = lhsType.getRank() - 1, kr = rhsType.getRank() - 2;
      if (lhsType.isDynamicDim(kl) || rhsType.isDynamicDim(kr))
        assertExtent(
            rewriter, loc, tensor::DimOp::create(rewriter, loc, lhs, kl),
            rhsType.isDynamicDim(kr)
                ? OpFoldResult(tensor::DimOp::create(rewriter, loc, rhs, kr))
                : OpFoldResult(rewriter.getIndexAttr(rhsType.getDimSize(kr))),
            "the operands' K must agree");
      for (int64_t d = 0; d < rank - 2; ++d) {
        int64_t l = d - (rank - lhsType.getRank()),
                r = d - (rank - rhsType.getRank());
        if (l < 0 || r < 0 ||
            (!lhsType.isDynamicDim(l) && !rhsType.isDynamicDim(r)))
          continue;
        auto extentOf = [&](Value v, RankedTensorType t,
                            int64_t i) -> OpFoldResult {
          if (t.isDynamicDim(i))
            return tensor::DimOp::create(rewriter, loc, v, i).getResult();
          return rewriter.getIndexAttr(t.getDimSize(i));
        };
        // A static 1 broadcasts the other side: nothing to check.
        if (lhsType.getDimSize(l) == 1 || rhsType.getDimSize(r) == 1)
          continue;
        Value left = lhsType.isDynamicDim(l)
                         ? tensor::DimOp::create(rewriter, loc, lhs, l)
                         : tensor::DimOp::create(rewriter, loc, rhs, r);
        OpFoldResult right = lhsType.isDynamicDim(l)
                                 ? extentOf(rhs, rhsType, r)
                                 : extentOf(lhs, lhsType, l);
        assertExtent(rewriter, loc, left, right,
                     "the operands' batch dimension " + Twine(d) +
                         " must agree (int21 broadcasts dynamic extents only "
                         "against static ones of 1)");
      }
    };
    if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape())
      checkExtents();
    // Rows of dynamic extent (a dynamic model's linear layers, [b..., m, k]
    // x [k, n]): the product over the rows flattened, viewed back as
    // [b..., m, n]; against a constant weight in panels, as static ones.
    bool dynamicRows = !resultType.hasStaticShape() && rhsType.getRank() == 2 &&
                       lhsType.getRank() == rank && rhsType.hasStaticShape() &&
                       !lhsType.isDynamicDim(rank - 1);
    bool inPanels =
        dynamicRows && panels &&
        wantsPanels(rhs, std::numeric_limits<int64_t>::max(), elementType);
    if (dynamicRows && (inPanels || rank > 2)) {
      int64_t n = rhsType.getDimSize(1);
      SmallVector<ReassociationIndices> rowsAnd = {
          llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)), {rank - 1}};
      Value flat = lhs;
      if (rank > 2)
        flat = tensor::CollapseShapeOp::create(rewriter, loc, lhs, rowsAnd);
      auto flatResult = RankedTensorType::get(
          {cast<RankedTensorType>(flat.getType()).getDimSize(0), n},
          elementType);
      Value product;
      if (inPanels) {
        product = panelMatmul(rewriter, loc, flat, rhs, flatResult);
      } else {
        SmallVector<Value> rows;
        if (flatResult.isDynamicDim(0))
          rows.push_back(tensor::DimOp::create(rewriter, loc, flat, 0));
        Value init = filledTensor(rewriter, loc, flatResult,
                                  zeroAttr(rewriter, elementType), rows);
        product = linalg::MatmulOp::create(rewriter, loc, TypeRange{flatResult},
                                           ValueRange{flat, rhs},
                                           ValueRange{init})
                      .getResult(0);
      }
      if (rank > 2) {
        SmallVector<OpFoldResult> shape;
        for (int64_t d = 0; d < rank - 1; ++d)
          shape.push_back(
              lhsType.isDynamicDim(d)
                  ? OpFoldResult(tensor::DimOp::create(rewriter, loc, lhs, d)
                                     .getResult())
                  : OpFoldResult(rewriter.getIndexAttr(lhsType.getDimSize(d))));
        shape.push_back(rewriter.getIndexAttr(n));
        product = tensor::ExpandShapeOp::create(rewriter, loc, resultType,
                                                product, rowsAnd, shape);
      }
      rewriter.replaceOp(op, product);
      return success();
    }
    if (rank == 2 && panels &&
        wantsPanels(rhs, resultType.getDimSize(0), elementType) &&
        resultType.hasStaticShape()) {
      rewriter.replaceOp(op, panelMatmul(rewriter, loc, lhs, rhs, resultType));
      return success();
    }
    if (rank == 2) {
      rewriter.replaceOp(
          op, linalg::MatmulOp::create(rewriter, loc, TypeRange{resultType},
                                       ValueRange{lhs, rhs},
                                       ValueRange{zeros(resultType)})
                  .getResults());
      return success();
    }
    if (rank == 3 && lhsType.getRank() == 3 && rhsType.getRank() == 3 &&
        lhsType.getDimSize(0) == rhsType.getDimSize(0)) {
      rewriter.replaceOp(op, linalg::BatchMatmulOp::create(
                                 rewriter, loc, TypeRange{resultType},
                                 ValueRange{lhs, rhs},
                                 ValueRange{zeros(resultType)})
                                 .getResults());
      return success();
    }
    // Batch dimensions on the left operand only ([b..., m, k] x [k, n], the
    // linear layers of transformers): one matmul over (b... * m) rows.
    ArrayRef<int64_t> lhsShape = lhsType.getShape(),
                      rhsShape = rhsType.getShape();
    int64_t m = lhsShape[lhsShape.size() - 2], k = lhsShape.back(),
            n = rhsShape.back();
    if (rhsType.getRank() == 2 && lhsType.getRank() == rank &&
        resultType.hasStaticShape()) {
      int64_t rows = resultType.getNumElements() / n;
      auto flatLhs = RankedTensorType::get({rows, k}, lhsType.getElementType());
      auto flatResult = RankedTensorType::get({rows, n}, elementType);
      Value flatLhsValue = reshapeTensor(rewriter, loc, lhs, flatLhs);
      if (panels && wantsPanels(rhs, rows, elementType)) {
        rewriter.replaceOp(
            op, reshapeTensor(rewriter, loc,
                              panelMatmul(rewriter, loc, flatLhsValue, rhs,
                                          flatResult),
                              resultType));
        return success();
      }
      Value flatInit = zeros(flatResult);
      Value product =
          linalg::MatmulOp::create(
              rewriter, loc, TypeRange{flatResult},
              ValueRange{flatLhsValue, rhs},
              ValueRange{flatInit})
              .getResult(0);
      rewriter.replaceOp(op, reshapeTensor(rewriter, loc, product, resultType));
      return success();
    }
    // Equal batch dimensions of any rank: one batch_matmul over their product.
    if (lhsType.getRank() == rank && rhsType.getRank() == rank &&
        lhsShape.drop_back(2) == rhsShape.drop_back(2) &&
        resultType.hasStaticShape()) {
      int64_t batches = resultType.getNumElements() / (m * n);
      Type lhsElement = lhsType.getElementType(),
           rhsElement = rhsType.getElementType();
      auto flatResult = RankedTensorType::get({batches, m, n}, elementType);
      Value flatInit = zeros(flatResult);
      Value product =
          linalg::BatchMatmulOp::create(
              rewriter, loc, TypeRange{flatResult},
              ValueRange{reshapeTensor(rewriter, loc, lhs,
                                       RankedTensorType::get({batches, m, k},
                                                             lhsElement)),
                         reshapeTensor(rewriter, loc, rhs,
                                       RankedTensorType::get({batches, k, n},
                                                             rhsElement))},
              ValueRange{flatInit})
              .getResult(0);
      rewriter.replaceOp(op, reshapeTensor(rewriter, loc, product, resultType));
      return success();
    }
    // Broadcast batch dimensions: a generic over (batch..., m, n, k).
    MLIRContext *ctx = op.getContext();
    ArrayRef<int64_t> batch = resultType.getShape().drop_back(2);
    auto operandMap = [&](RankedTensorType type, AffineExpr row,
                          AffineExpr col) {
      AffineMap batchMap =
          broadcastIndexingMap(ctx, type.getShape().drop_back(2), batch);
      SmallVector<AffineExpr> exprs(batchMap.getResults());
      exprs.push_back(row);
      exprs.push_back(col);
      return AffineMap::get(rank + 1, 0, exprs, ctx);
    };
    AffineExpr row = getAffineDimExpr(rank - 2, ctx),
               col = getAffineDimExpr(rank - 1, ctx),
               red = getAffineDimExpr(rank, ctx);
    SmallVector<AffineMap> maps = {
        operandMap(lhsType, row, red), operandMap(rhsType, red, col),
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    bool isFloat = isa<FloatType>(elementType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{lhs, rhs},
        ValueRange{zeros(resultType)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value product =
              isFloat ? Value(arith::MulFOp::create(b, l, args[0], args[1]))
                      : Value(arith::MulIOp::create(b, l, args[0], args[1]));
          Value sum =
              isFloat ? Value(arith::AddFOp::create(b, l, args[2], product))
                      : Value(arith::AddIOp::create(b, l, args[2], product));
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    SmallVector<Value> sizes;
    for (auto [d, from] : llvm::enumerate(op.getPerm()))
      if (resultType.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(rewriter, op.getLoc(),
                                              adaptor.getInput(), from));
    Value init = emptyTensor(rewriter, op.getLoc(), resultType, sizes);
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                       adaptor.getInput(), init,
                                                       op.getPerm())
                               .getResults());
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    if (op.getSizes().empty()) {
      rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                           adaptor.getInput(), resultType));
      return success();
    }
    // Extents computed at run time: the element counts must agree (checked
    // before the run), then the elements are viewed through 1-D.
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    Value have = elementCount(rewriter, loc, input);
    Value want = elementCount(rewriter, loc, op.getResult(), op.getSizes());
    assertExtent(rewriter, loc, want, have,
                 "Reshape: the shape computed at run time must hold as many "
                 "elements as the input");
    Value flat = input;
    if (inputType.getRank() == 0) {
      flat = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get({1}, inputType.getElementType()),
          input, ArrayRef<ReassociationIndices>{});
    } else if (inputType.getRank() > 1) {
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank()));
      flat = tensor::CollapseShapeOp::create(rewriter, loc, input,
                                             ArrayRef<ReassociationIndices>{all});
    }
    SmallVector<OpFoldResult> shape;
    for (int64_t d = 0, k = 0; d < resultType.getRank(); ++d)
      shape.push_back(resultType.isDynamicDim(d)
                          ? OpFoldResult(op.getSizes()[k++])
                          : OpFoldResult(rewriter.getIndexAttr(
                                resultType.getDimSize(d))));
    // (An expand_shape of several dynamic extents in one group is viewed
    // by int21-dynamic-expand-views after bufferization.) Into dynamic
    // extents, from a dynamic count.
    if (resultType.getRank() > 0 && !resultType.hasStaticShape() &&
        cast<RankedTensorType>(flat.getType()).hasStaticShape())
      flat = tensor::CastOp::create(
          rewriter, loc,
          RankedTensorType::get({ShapedType::kDynamic},
                                inputType.getElementType()),
          flat);
    SmallVector<ReassociationIndices> all;
    if (resultType.getRank() > 0)
      all.push_back(llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank())));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, resultType, flat,
                                                       all, shape);
    return success();
  }
};

struct IotaLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t dimension = op.getDimension();
    rewriter.replaceOp(
        op, parallelGeneric(
                rewriter, op.getLoc(), resultType, ValueRange(), {},
                [&](OpBuilder &b, Location loc, ValueRange) -> Value {
                  Value index = linalg::IndexOp::create(b, loc, dimension);
                  return arith::IndexCastOp::create(
                      b, loc, resultType.getElementType(), index);
                },
                op.getSizes()));
    return success();
  }
};

struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    // A dynamic extent of the input is read as the result's at its place.
    int64_t offset = resultType.getRank() - inputType.getRank();
    SmallVector<int64_t, 4> sizeIndex(resultType.getRank(), -1);
    for (int64_t d = 0, k = 0; d < resultType.getRank(); ++d)
      if (resultType.isDynamicDim(d))
        sizeIndex[d] = k++;
    for (int64_t i = 0; i < inputType.getRank(); ++i) {
      int64_t d = i + offset;
      if (!inputType.isDynamicDim(i) && !resultType.isDynamicDim(d))
        continue;
      if (!inputType.isDynamicDim(i) && inputType.getDimSize(i) == 1)
        continue;
      OpFoldResult extent =
          resultType.isDynamicDim(d)
              ? OpFoldResult(op.getSizes()[sizeIndex[d]])
              : OpFoldResult(rewriter.getIndexAttr(resultType.getDimSize(d)));
      Value actual =
          inputType.isDynamicDim(i)
              ? Value(tensor::DimOp::create(rewriter, loc, input, i))
              : Value(arith::ConstantIndexOp::create(rewriter, loc,
                                                     inputType.getDimSize(i)));
      assertExtent(rewriter, loc, actual, extent,
                   "Expand: input dimension " + Twine(i) +
                       " must match the shape's extent (int21 broadcasts "
                       "dynamic extents against static ones of 1)");
    }
    AffineMap map = broadcastIndexingMap(
        op.getContext(), inputType.getShape(), resultType.getShape());
    rewriter.replaceOp(
        op, parallelGeneric(
                rewriter, loc, resultType, input, map,
                [](OpBuilder &, Location, ValueRange args) { return args[0]; },
                op.getSizes()));
    return success();
  }
};

enum class ReduceKind { Sum, Mean, Max, Min, Prod };

/// The identity of a reduction: the value the accumulator starts from.
/// Integers are signed unless `isUnsigned`.
TypedAttr reductionInit(OpBuilder &b, ReduceKind kind, Type type,
                        bool isUnsigned) {
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    switch (kind) {
    case ReduceKind::Max:
      return b.getFloatAttr(f, APFloat::getInf(sem, /*Negative=*/true));
    case ReduceKind::Min:
      return b.getFloatAttr(f, APFloat::getInf(sem, /*Negative=*/false));
    case ReduceKind::Prod:
      return b.getFloatAttr(f, 1.0);
    default:
      return b.getFloatAttr(f, 0.0);
    }
  }
  unsigned width = type.getIntOrFloatBitWidth();
  switch (kind) {
  case ReduceKind::Max:
    return b.getIntegerAttr(type, isUnsigned ? APInt::getMinValue(width)
                                             : APInt::getSignedMinValue(width));
  case ReduceKind::Min:
    return b.getIntegerAttr(type, isUnsigned ? APInt::getMaxValue(width)
                                             : APInt::getSignedMaxValue(width));
  case ReduceKind::Prod:
    return b.getIntegerAttr(type, 1);
  default:
    return b.getIntegerAttr(type, 0);
  }
}

Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value acc,
              bool isUnsigned) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, acc);
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, x, acc))
                      : Value(arith::MaxSIOp::create(b, loc, x, acc));
  case ReduceKind::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, x, acc);
    return isUnsigned ? Value(arith::MinUIOp::create(b, loc, x, acc))
                      : Value(arith::MinSIOp::create(b, loc, x, acc));
  case ReduceKind::Prod:
    return isFloat ? Value(arith::MulFOp::create(b, loc, x, acc))
                   : Value(arith::MulIOp::create(b, loc, x, acc));
  default:
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, acc))
                   : Value(arith::AddIOp::create(b, loc, x, acc));
  }
}

Value reduce(OpBuilder &b, Location loc, ReduceKind kind, Value input,
             ArrayRef<int64_t> axes, bool isUnsigned = false);

/// A float sum, mean, max or min over the trailing dimensions of a static
/// tensor, at least 256 elements a row and a multiple of 16 (a global
/// pooling over HxW): the row viewed as [P/16, 16] and reduced over its
/// first dimension, then over the 16 lanes, so that the long loop adds
/// 16 independent lanes a step (vectors) where one accumulator added one
/// element after another; null otherwise.
static Value reduceRowsInLanes(OpBuilder &b, Location loc, ReduceKind kind,
                               Value input, ArrayRef<int64_t> axes) {
  constexpr int64_t kLanes = 16;
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  if (!isa<FloatType>(inputType.getElementType()) ||
      kind == ReduceKind::Prod || !inputType.hasStaticShape() ||
      axes.empty() || static_cast<int64_t>(axes.size()) >= rank)
    return {};
  SmallVector<int64_t> sorted(axes);
  llvm::sort(sorted);
  int64_t first = rank - static_cast<int64_t>(sorted.size());
  int64_t row = 1;
  for (auto [i, axis] : llvm::enumerate(sorted)) {
    if (axis != first + static_cast<int64_t>(i))
      return {};
    row *= inputType.getDimSize(axis);
  }
  if (row < 256 || row % kLanes != 0)
    return {};
  SmallVector<int64_t> shape(inputType.getShape().take_front(first));
  shape.push_back(row / kLanes);
  shape.push_back(kLanes);
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < first; ++d)
    groups.push_back({d});
  groups.push_back({});
  for (int64_t d = first; d < rank; ++d)
    groups.back().push_back(d);
  Type elementType = inputType.getElementType();
  SmallVector<int64_t> rowShape(inputType.getShape().take_front(first));
  rowShape.push_back(row);
  Value rows = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(rowShape, elementType), input, groups);
  SmallVector<ReassociationIndices> split;
  for (int64_t d = 0; d < first; ++d)
    split.push_back({d});
  split.push_back({first, first + 1});
  Value lanes = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, elementType), rows, split);
  // A mean sums here; its division stays with the caller.
  ReduceKind partialKind = kind == ReduceKind::Mean ? ReduceKind::Sum : kind;
  Value partial = reduce(b, loc, partialKind, lanes, {first});
  return reduce(b, loc, partialKind, partial, {first});
}

/// linalg.reduce of `input` over `axes`, without the reduced dimensions;
/// integer elements compare as unsigned when `isUnsigned`.
Value reduce(OpBuilder &b, Location loc, ReduceKind kind, Value input,
             ArrayRef<int64_t> axes, bool isUnsigned) {
  if (Value inLanes = reduceRowsInLanes(b, loc, kind, input, axes))
    return inLanes;
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape;
  SmallVector<Value> sizes;
  for (auto [d, size] : llvm::enumerate(inputType.getShape())) {
    if (llvm::is_contained(axes, static_cast<int64_t>(d)))
      continue;
    shape.push_back(size);
    if (ShapedType::isDynamic(size))
      sizes.push_back(tensor::DimOp::create(b, loc, input, d));
  }
  Type elementType = inputType.getElementType();
  auto type = RankedTensorType::get(shape, elementType);
  Value init = filledTensor(b, loc, type,
                            reductionInit(b, kind, elementType, isUnsigned),
                            sizes);
  return linalg::ReduceOp::create(
             b, loc, ValueRange{input}, ValueRange{init}, axes,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l, combine(nb, l, kind, args[0], args[1], isUnsigned));
             })
      .getResult(0);
}

template <typename OpTy, ReduceKind kind>
struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    bool isUnsigned = isUnsignedElementType(op.getInput().getType());
    Value reduced = reduce(rewriter, loc, kind, adaptor.getInput(),
                           op.getAxes(), isUnsigned);
    if constexpr (kind == ReduceKind::Mean) {
      int64_t count = 1;
      // The number of elements reduced, computed at run time where an
      // extent is dynamic.
      Value dynamicCount;
      for (int64_t axis : op.getAxes()) {
        if (!inputType.isDynamicDim(axis)) {
          count *= inputType.getDimSize(axis);
          continue;
        }
        Value dim = tensor::DimOp::create(rewriter, loc, adaptor.getInput(),
                                          axis);
        dynamicCount = dynamicCount
                           ? arith::MulIOp::create(rewriter, loc, dynamicCount,
                                                   dim)
                           : dim;
      }
      Type elementType = resultType.getElementType();
      Value runCount;
      if (dynamicCount) {
        Value total = arith::MulIOp::create(
            rewriter, loc, dynamicCount,
            arith::ConstantIndexOp::create(rewriter, loc, count));
        Value asInt = arith::IndexCastOp::create(
            rewriter, loc, rewriter.getI64Type(), total);
        if (isa<FloatType>(elementType))
          runCount = arith::SIToFPOp::create(rewriter, loc, elementType, asInt);
        else if (elementType.isInteger(64))
          runCount = asInt;
        else
          runCount = arith::TruncIOp::create(rewriter, loc, elementType, asInt);
      }
      auto reducedType = cast<RankedTensorType>(reduced.getType());
      reduced = broadcastingGeneric(
          rewriter, loc, reducedType, ValueRange{reduced},
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            if (isa<FloatType>(elementType)) {
              Value n = runCount ? runCount
                                 : arith::ConstantOp::create(
                                       b, l, b.getFloatAttr(elementType, count));
              return arith::DivFOp::create(b, l, args[0], n);
            }
            Value n = runCount ? runCount
                               : arith::ConstantOp::create(
                                     b, l, b.getIntegerAttr(elementType, count));
            if (isUnsigned)
              return arith::DivUIOp::create(b, l, args[0], n);
            return arith::DivSIOp::create(b, l, args[0], n);
          });
    }
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, reduced, resultType));
    return success();
  }
};

struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(signlessType(op.getType()));
    Value init = emptyTensor(
        rewriter, op.getLoc(), type,
        dynamicSizesOf(rewriter, op.getLoc(), adaptor.getInput()));
    rewriter.replaceOp(
        op, linalg::SoftmaxOp::create(rewriter, op.getLoc(), TypeRange{type},
                                      adaptor.getInput(), init, op.getAxis())
                .getResults());
    return success();
  }
};

/// log_softmax(x) = (x - max) - log(sum(exp(x - max))) along the axis.
struct LogSoftmaxLowering : OpConversionPattern<LogSoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LogSoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(signlessType(op.getType()));
    int64_t axis = op.getAxis();
    SmallVector<int64_t> keptShape(type.getShape());
    keptShape[axis] = 1;
    auto keptType = RankedTensorType::get(keptShape, type.getElementType());
    Value x = adaptor.getInput();
    Value max = reshapeTensor(rewriter, loc,
                              reduce(rewriter, loc, ReduceKind::Max, x, {axis}),
                              keptType);
    Value shifted = broadcastingGeneric(
        rewriter, loc, type, ValueRange{x, max},
        [](OpBuilder &b, Location l, ValueRange a) {
          return Value(arith::SubFOp::create(b, l, a[0], a[1]));
        });
    Value exps =
        broadcastingGeneric(rewriter, loc, type, ValueRange{shifted},
                            [](OpBuilder &b, Location l, ValueRange a) {
                              return Value(math::ExpOp::create(b, l, a[0]));
                            });
    Value sum = reshapeTensor(
        rewriter, loc, reduce(rewriter, loc, ReduceKind::Sum, exps, {axis}),
        keptType);
    Value result = broadcastingGeneric(
        rewriter, loc, type, ValueRange{shifted, sum},
        [](OpBuilder &b, Location l, ValueRange a) {
          Value log = math::LogOp::create(b, l, a[1]);
          return Value(arith::SubFOp::create(b, l, a[0], log));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

/// int21.einsum as one linalg.generic: the result's letters are the first
/// (parallel) loops, every other letter a reduction loop; an input reads
/// through the map of its letters (a repeated letter reads the diagonal, a
/// '1' index 0), and the body adds the product of the inputs.
struct EinsumLowering : OpConversionPattern<EinsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    std::string error;
    auto parsed = EinsumOp::parseEquation(op.getEquation(), error);
    if (failed(parsed))
      return rewriter.notifyMatchFailure(op, error);
    auto &[inputs, result] = *parsed;
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    Type elementType = resultType.getElementType();

    // Loop order: the result's letters, then the summed ones.
    std::string loops = result;
    for (const std::string &letters : inputs)
      for (char ch : letters)
        if (ch != '1' && loops.find(ch) == std::string::npos)
          loops.push_back(ch);
    auto dimOf = [&](char ch) {
      return getAffineDimExpr(loops.find(ch), ctx);
    };
    SmallVector<AffineMap> maps;
    for (const std::string &letters : inputs) {
      SmallVector<AffineExpr> exprs;
      for (char ch : letters)
        exprs.push_back(ch == '1' ? getAffineConstantExpr(0, ctx) : dimOf(ch));
      maps.push_back(AffineMap::get(loops.size(), 0, exprs, ctx));
    }
    SmallVector<AffineExpr> resultExprs;
    for (char ch : result)
      resultExprs.push_back(dimOf(ch));
    maps.push_back(AffineMap::get(loops.size(), 0, resultExprs, ctx));
    SmallVector<utils::IteratorType> iterators(loops.size(),
                                               utils::IteratorType::reduction);
    std::fill_n(iterators.begin(), result.size(),
                utils::IteratorType::parallel);

    Value init = filledTensor(rewriter, loc, resultType,
                              rewriter.getZeroAttr(elementType));
    bool isFloat = isa<FloatType>(elementType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, adaptor.getInputs(),
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value product = args.front();
          for (Value v : args.drop_front().drop_back())
            product = isFloat ? arith::MulFOp::create(b, l, product, v)
                              : arith::MulIOp::create(b, l, product, v)
                                    .getResult();
          Value sum = isFloat ? arith::AddFOp::create(b, l, args.back(), product)
                              : arith::AddIOp::create(b, l, args.back(), product)
                                    .getResult();
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

void lowering::populateStructuredLoweringPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns, bool panels) {
  patterns.add<MatMulLowering>(converter, patterns.getContext(), panels);
  patterns.add<ConstantLowering, EinsumLowering, TransposeLowering, IotaLowering,
               ReshapeLowering, ExpandLowering, SoftmaxLowering,
               LogSoftmaxLowering, ReduceLowering<ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<ReduceMaxOp, ReduceKind::Max>,
               ReduceLowering<ReduceMinOp, ReduceKind::Min>,
               ReduceLowering<ReduceProdOp, ReduceKind::Prod>>(
      converter, patterns.getContext());
}

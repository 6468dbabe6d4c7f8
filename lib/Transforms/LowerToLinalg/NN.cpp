//===- NN.cpp - convolution and pooling -----------------------------------===//
//
// 2-D convolutions and pools become the named NCHW linalg ops (after a
// tensor.pad); other ranks and transposed convolutions become
// linalg.generic. Biases initialise the accumulator. For CPU targets
// (`filterLanes`), convolutions with a constant weight take blocked forms
// whose vectors every lane fills: filters in blocks of 16 (one-group
// convolutions), channels in blocks of 16 (depthwise ones with 5x5 windows
// on narrow or strided rows), the weight's transpose in panels of 16
// filters (pointwise ones on small maps); pointwise ones of one image are
// matmuls.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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

/// 0 of `type`, float or integer.
TypedAttr zeroAttr(Type type) {
  if (isa<FloatType>(type))
    return floatAttr(type, 0.0);
  return IntegerAttr::get(type, 0);
}

/// The value no element of `type` is below: -inf for floats, the smallest
/// integer (0 when `isUnsigned`) for integers. Max pooling pads with it.
TypedAttr lowestAttr(Type type, bool isUnsigned) {
  if (isa<FloatType>(type))
    return infAttr(type, /*negative=*/true);
  unsigned width = type.getIntOrFloatBitWidth();
  return IntegerAttr::get(type, isUnsigned ? APInt::getZero(width)
                                           : APInt::getSignedMinValue(width));
}

/// acc + x * y on floats or integers (integers wrap).
Value multiplyAccumulate(OpBuilder &b, Location loc, Value acc, Value x,
                         Value y) {
  if (isa<FloatType>(acc.getType()))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y));
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, x, y));
}

SmallVector<AffineExpr> dims(MLIRContext *ctx, int64_t from, int64_t count);

/// Over (n, c, o..., k...), the input element a pooling window reads:
/// (n, c, o * stride + k * dilation...).
SmallVector<AffineExpr> windowInputExprs(MLIRContext *ctx, int64_t k,
                                         ArrayRef<int64_t> strides,
                                         ArrayRef<int64_t> dilations) {
  SmallVector<AffineExpr> exprs = dims(ctx, 0, 2);
  for (int64_t i = 0; i < k; ++i)
    exprs.push_back(getAffineDimExpr(2 + i, ctx) * strides[i] +
                    getAffineDimExpr(2 + k + i, ctx) * dilations[i]);
  return exprs;
}

/// `value` padded with `padValue` by `low`/`high` on its trailing dimensions
/// (the leading ones get none); `value` itself when nothing is padded.
Value padTrailing(OpBuilder &b, Location loc, Value value,
                  ArrayRef<int64_t> low, ArrayRef<OpFoldResult> high,
                  TypedAttr padValue) {
  auto isZero = [](OpFoldResult p) { return isConstantIntValue(p, 0); };
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, isZero))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  int64_t lead = type.getRank() - low.size();
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> lows(lead, b.getIndexAttr(0)),
      highs(lead, b.getIndexAttr(0));
  for (auto [i, lo, hi] : llvm::enumerate(low, high)) {
    std::optional<int64_t> staticHigh = getConstantIntValue(hi);
    int64_t &size = shape[lead + i];
    size = ShapedType::isDynamic(size) || !staticHigh
               ? ShapedType::kDynamic
               : size + lo + *staticHigh;
    lows.push_back(b.getIndexAttr(lo));
    highs.push_back(hi);
  }
  Value scalar = arith::ConstantOp::create(b, loc, padValue);
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value, lows,
      highs, scalar);
}

Value padTrailing(OpBuilder &b, Location loc, Value value,
                  ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                  TypedAttr padValue) {
  SmallVector<OpFoldResult> highs;
  for (int64_t h : high)
    highs.push_back(b.getIndexAttr(h));
  return padTrailing(b, loc, value, low, highs, padValue);
}

/// The extent of a window op's output along spatial dimension `dim` of
/// `input` (padded by `low` and `high`), computed at run time:
/// (D + low + high - (dilation * (kernel - 1) + 1)) / stride + 1, rounded
/// up with `ceil` (a last window that would start in the end padding
/// dropped, as ONNX's pools do).
Value windowExtent(OpBuilder &b, Location loc, Value input, int64_t dim,
                   int64_t kernel, int64_t stride, int64_t dilation,
                   int64_t low, int64_t high, bool ceil) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value size = tensor::DimOp::create(b, loc, input, dim);
  Value span = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, size, c(low + high)),
      c(dilation * (kernel - 1) + 1));
  Value steps = ceil ? Value(arith::CeilDivSIOp::create(b, loc, span, c(stride)))
                     : Value(arith::DivSIOp::create(b, loc, span, c(stride)));
  Value out = arith::AddIOp::create(b, loc, steps, c(1));
  if (!ceil)
    return out;
  Value lastStart = arith::MulIOp::create(
      b, loc, arith::SubIOp::create(b, loc, out, c(1)), c(stride));
  Value inPadding = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::sge, lastStart,
      arith::AddIOp::create(b, loc, size, c(low)));
  return arith::SelectOp::create(
      b, loc, inPadding, arith::SubIOp::create(b, loc, out, c(1)), out);
}

/// The dynamic extents of a window op's result [N, C, O...] over `input`
/// [N, C, D...]: N from the input, each dynamic O by windowExtent.
SmallVector<Value> windowResultSizes(OpBuilder &b, Location loc, Value input,
                                     RankedTensorType resultType,
                                     ArrayRef<int64_t> kernel,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> dilations,
                                     ArrayRef<int64_t> pads, bool ceil) {
  SmallVector<Value> sizes;
  int64_t k = resultType.getRank() - 2;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    if (d < 2) {
      sizes.push_back(tensor::DimOp::create(b, loc, input, d));
      continue;
    }
    int64_t i = d - 2;
    sizes.push_back(windowExtent(b, loc, input, d, kernel[i], strides[i],
                                 dilations[i], pads[i], pads[k + i], ceil));
  }
  return sizes;
}

SmallVector<AffineExpr> dims(MLIRContext *ctx, int64_t from, int64_t count) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < count; ++i)
    exprs.push_back(getAffineDimExpr(from + i, ctx));
  return exprs;
}

/// A tensor of `type` whose element at each point is `input` read through
/// `map`.
Value copyGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                  Value input, AffineMap map, ValueRange dynamicSizes = {}) {
  return parallelGeneric(
      b, loc, type, input, map,
      [](OpBuilder &, Location, ValueRange args) { return args[0]; },
      dynamicSizes);
}

/// The output accumulator of a convolution: the bias broadcast along the
/// channel dimensions (1, or 1 and 2 for channels split into [G, F / G]
/// with a bias of that shape), or zeros without one.
Value convInit(OpBuilder &b, Location loc, RankedTensorType type, Value bias,
               int64_t channelDims = 1, ValueRange dynamicSizes = {}) {
  if (!bias)
    return filledTensor(b, loc, type, zeroAttr(type.getElementType()),
                        dynamicSizes);
  return copyGeneric(b, loc, type, bias,
                     AffineMap::get(type.getRank(), 0,
                                    dims(b.getContext(), 1, channelDims),
                                    b.getContext()),
                     dynamicSizes);
}

/// An N-D convolution with groups as a linalg.generic, the spatial windows
/// o * stride + k * dilation. Grouped: loops (n, g, f, o..., c, k...), input
/// [N, G, C, D...], weight [G, F, C, K...], init [N, G, F, O...].
/// Depthwise (one filter per channel): loops (n, c, o..., k...), input
/// [N, C, D...], weight [C, K...], init [N, C, O...]; the channels lead,
/// like the NCHW output, so that the CPU template
/// (@cpu.depthwise_conv2d_nchw) tiles channels and rows of it and of its
/// epilogue alike.
Value genericWindowConv(OpBuilder &b, Location loc, Value input, Value weight,
                        Value init, ArrayRef<int64_t> strides,
                        ArrayRef<int64_t> dilations, bool depthwise) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  int64_t k = strides.size();
  // Leading parallel loops; the reductions over the channels of a group
  // (grouped only) and the window follow the spatial loops.
  int64_t lead = depthwise ? 2 : 3, channels = depthwise ? 0 : 1;
  int64_t numDims = lead + 2 * k + channels;
  SmallVector<AffineExpr> inputExprs, weightExprs, outputExprs;
  if (depthwise) {
    inputExprs = {d(0), d(1)};
    weightExprs = {d(1)};
    outputExprs = {d(0), d(1)};
  } else {
    AffineExpr c = d(lead + k);
    inputExprs = {d(0), d(1), c};
    weightExprs = {d(1), d(2), c};
    outputExprs = {d(0), d(1), d(2)};
  }
  for (int64_t i = 0; i < k; ++i) {
    AffineExpr o = d(lead + i), kk = d(lead + k + channels + i);
    inputExprs.push_back(o * strides[i] + kk * dilations[i]);
    weightExprs.push_back(kk);
    outputExprs.push_back(o);
  }
  SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, inputExprs, ctx),
                                 AffineMap::get(numDims, 0, weightExprs, ctx),
                                 AffineMap::get(numDims, 0, outputExprs, ctx)};
  SmallVector<IteratorType> iterators(lead + k, IteratorType::parallel);
  iterators.append(channels + k, IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{input, weight},
             ValueRange{init}, maps, iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l, multiplyAccumulate(nb, l, args[2], args[0], args[1]));
             })
      .getResult(0);
}

/// `value` with dimension `dim` (of size G * rest) split into [G, rest].
Value splitGroups(OpBuilder &b, Location loc, Value value, int64_t dim,
                  int64_t groups) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= groups;
  shape.insert(shape.begin() + dim, groups);
  return reshapeTensor(b, loc, value,
                       RankedTensorType::get(shape, type.getElementType()));
}

/// Whether every per-dimension attribute has `k` entries and `pads` 2k.
bool hasWindowSizes(int64_t k, ArrayRef<ArrayRef<int64_t>> perDim,
                    ArrayRef<int64_t> pads) {
  return k >= 1 && static_cast<int64_t>(pads.size()) == 2 * k &&
         llvm::all_of(perDim, [&](ArrayRef<int64_t> a) {
           return static_cast<int64_t>(a.size()) == k;
         });
}

/// The strides and dilations attributes of the named 2-D linalg ops.
SmallVector<NamedAttribute> windowAttrs(OpBuilder &b, ArrayRef<int64_t> strides,
                                        ArrayRef<int64_t> dilations) {
  return {b.getNamedAttr("strides", b.getI64TensorAttr(strides)),
          b.getNamedAttr("dilations", b.getI64TensorAttr(dilations))};
}

struct ConvLowering : OpConversionPattern<ConvOp> {
  ConvLowering(const TypeConverter &converter, MLIRContext *ctx,
               bool filterLanes)
      : OpConversionPattern(converter, ctx), filterLanes(filterLanes) {}

  /// Whether the forms with the filters along the vectors are wanted (CPU
  /// targets): the blocked convolution, the transposed pointwise product.
  bool filterLanes;

  /// A pointwise convolution (1x1 kernel, stride 1, no padding, one group)
  /// of one image is a matmul over the channels: weight [F, C] x input
  /// [C, H*W] -> [F, H*W], both reshapes views of the NCHW tensors, so it
  /// needs no im2col copy and gets the matmul templates, its bias the
  /// accumulator's initial value and its epilogue (activation, residual add)
  /// fused into the thread tiles once the reshape is moved past it (see
  /// int21-lower-to-linalg). On a 1x1 map, input [1, C] x transposed
  /// weight [C, F] instead. Null for any other convolution.
  static Value pointwiseConvAsMatmul(OpBuilder &b, Location loc, ConvOp op,
                                     OpAdaptor adaptor,
                                     RankedTensorType resultType,
                                     bool filterLanes) {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    // One image of static channels; its map may be of any size (a dynamic
    // model's generic code: the pixels, H*W, a dynamic extent), where the
    // channels are few (see pixelsOnDynamicMap). Or a dynamic batch of
    // images (filter lanes' targets: the CPU), the same product per image.
    bool dynamicMap = !inputType.hasStaticShape();
    bool dynamicBatch =
        inputType.getRank() == 4 && ShapedType::isDynamic(inputType.getDimSize(0));
    bool mapOfOne = inputType.getRank() == 4 && inputType.getDimSize(2) == 1 &&
                    inputType.getDimSize(3) == 1;
    if (inputType.getRank() != 4 || op.getGroup() != 1 ||
        ShapedType::isDynamic(inputType.getDimSize(1)) ||
        (dynamicMap && filterLanes && !mapOfOne &&
         !pixelsOnDynamicMap(inputType.getDimSize(1))) ||
        !weightType.hasStaticShape() ||
        (dynamicBatch ? !filterLanes : inputType.getDimSize(0) != 1) ||
        weightType.getDimSize(2) != 1 || weightType.getDimSize(3) != 1 ||
        llvm::any_of(op.getStrides(), [](int64_t s) { return s != 1; }) ||
        llvm::any_of(op.getPads(), [](int64_t p) { return p != 0; }) ||
        resultType.getShape().drop_front(2) !=
            inputType.getShape().drop_front(2))
      return {};
    int64_t channels = inputType.getDimSize(1),
            filters = weightType.getDimSize(0);
    bool dynamicPixels = ShapedType::isDynamic(inputType.getDimSize(2)) ||
                         ShapedType::isDynamic(inputType.getDimSize(3));
    int64_t pixels = dynamicPixels
                         ? ShapedType::kDynamic
                         : inputType.getDimSize(2) * inputType.getDimSize(3);
    Type elementType = resultType.getElementType();
    // The map's extents, H and W, which the expansion back to NCHW names
    // (two dynamic extents of one group: no shape to infer them from).
    SmallVector<OpFoldResult> outputShape =
        tensor::getMixedSizes(b, loc, adaptor.getInput());
    outputShape[1] = b.getIndexAttr(filters);
    Value weight = tensor::CollapseShapeOp::create(
        b, loc,
        RankedTensorType::get({filters, channels},
                              weightType.getElementType()),
        adaptor.getWeight(), ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
    // The bias broadcast along the filters' dimension `filterDim` of
    // `type` (or zeros), its dynamic extents `sizes`.
    auto initFor = [&](RankedTensorType type, unsigned filterDim,
                       ValueRange sizes) -> Value {
      return adaptor.getBias()
                 ? copyGeneric(b, loc, type, adaptor.getBias(),
                               AffineMap::get(type.getRank(), 0,
                                              getAffineDimExpr(filterDim,
                                                               b.getContext())),
                               sizes)
                 : filledTensor(b, loc, type, zeroAttr(elementType), sizes);
    };
    // lhs x rhs -> [rows, cols] from the bias broadcast along the filters'
    // dimension `filterDim` (or zeros), expanded back to NCHW.
    auto product = [&](Value lhs, Value rhs, int64_t rows, int64_t cols,
                       unsigned filterDim,
                       ArrayRef<ReassociationIndices> toNCHW) -> Value {
      auto type = RankedTensorType::get({rows, cols}, elementType);
      SmallVector<Value, 2> sizes;
      if (ShapedType::isDynamic(rows))
        sizes.push_back(tensor::DimOp::create(b, loc, lhs, 0));
      if (ShapedType::isDynamic(cols))
        sizes.push_back(tensor::DimOp::create(b, loc, rhs, 1));
      Value result =
          linalg::MatmulOp::create(b, loc, TypeRange{type},
                                   ValueRange{lhs, rhs},
                                   initFor(type, filterDim, sizes))
              .getResult(0);
      return tensor::ExpandShapeOp::create(b, loc, resultType, result, toNCHW,
                                           outputShape);
    };
    // The weight transposed, [C, F] (folded into a constant of its own by
    // int21-outline-weights).
    auto transposeWeight = [&]() -> Value {
      return transposeTensor(b, loc, weight, {1, 0});
    };
    if (mapOfOne) {
      // A 1x1 map (a squeeze-excite block's FC layers): [N, C] x [C, F], so
      // that the filters lie along the vectors where [F, C] x [C, 1] gave
      // them one lane; over a dynamic batch, a product of dynamic rows.
      int64_t batch = inputType.getDimSize(0);
      Value rows = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({batch, channels}, elementType),
          adaptor.getInput(), ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
      return product(rows, transposeWeight(), batch, filters, /*filterDim=*/1,
                     {{0}, {1, 2, 3}});
    }
    if (dynamicBatch) {
      // Images of a dynamic batch: [N, F, P] = weight [F, C] x input [N, C,
      // P], a linalg.batch_matmul whose weight's map drops the batch
      // (@cpu.batch_matmul: one image a thread tile, the register tiles and
      // remainders of the one-image product).
      Value images = tensor::CollapseShapeOp::create(
          b, loc,
          RankedTensorType::get({ShapedType::kDynamic, channels, pixels},
                                elementType),
          adaptor.getInput(), ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
      SmallVector<Value, 2> sizes = {tensor::DimOp::create(b, loc, images, 0)};
      if (dynamicPixels)
        sizes.push_back(tensor::DimOp::create(b, loc, images, 2));
      auto type = RankedTensorType::get({ShapedType::kDynamic, filters, pixels},
                                        elementType);
      MLIRContext *ctx = b.getContext();
      AffineExpr n = getAffineDimExpr(0, ctx), f = getAffineDimExpr(1, ctx),
                 p = getAffineDimExpr(2, ctx), c = getAffineDimExpr(3, ctx);
      auto maps = b.getAffineMapArrayAttr(
          {AffineMap::get(4, 0, {f, c}, ctx), AffineMap::get(4, 0, {n, c, p}, ctx),
           AffineMap::get(4, 0, {n, f, p}, ctx)});
      Value result =
          linalg::BatchMatmulOp::create(
              b, loc, TypeRange{type}, ValueRange{weight, images},
              initFor(type, /*filterDim=*/1, sizes),
              {b.getNamedAttr("indexing_maps", maps)})
              .getResult(0);
      return tensor::ExpandShapeOp::create(
          b, loc, resultType, result,
          ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}}, outputShape);
    }
    Value input = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({channels, pixels}, elementType),
        adaptor.getInput(), ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
    Operation *weightDef = adaptor.getWeight().getDefiningOp();
    bool constantWeight =
        weightDef && weightDef->hasTrait<::mlir::OpTrait::ConstantLike>() &&
        isa<FloatType>(elementType);
    bool panels = filterLanes && constantWeight && !dynamicMap &&
                  panelsOnSmallMap(pixels, filters, channels);
    if (dynamicMap ||
        (!panels && (!filterLanes || !filtersAlongLanes(pixels, filters))))
      return product(weight, input, filters, pixels, /*filterDim=*/0,
                     {{0, 1}, {2, 3}});
    // The pixels fill the vectors badly (a 7x7 map: 49 in 64 lanes) and the
    // filters fill them whole: the transposed product [P, F] = input^T [P, C]
    // x weight^T [C, F] (the input read through the matmul's map, the
    // weight's transpose a constant), transposed back to [F, P]. Its
    // vectors run along the filters; the transpose is fused into the
    // register tiles (see @cpu.matmul_transposed).
    MLIRContext *ctx = b.getContext();
    if (constantWeight)
      return transposedPanelProduct(b, loc, input, weight, adaptor.getBias(),
                                    resultType);
    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
               k = getAffineDimExpr(2, ctx);
    auto maps = b.getAffineMapArrayAttr(
        {AffineMap::get(3, 0, {k, m}, ctx), AffineMap::get(3, 0, {k, n}, ctx),
         AffineMap::get(3, 0, {m, n}, ctx)});
    auto type = RankedTensorType::get({pixels, filters}, elementType);
    Value init = convInit(b, loc, type, adaptor.getBias());
    Value productT =
        linalg::MatmulOp::create(
            b, loc, TypeRange{type},
            ValueRange{input, rowsApartInL1(b, loc, transposeWeight())},
            init,
            {b.getNamedAttr("indexing_maps", maps)})
            .getResult(0);
    Value back = transposeTensor(b, loc, productT, {1, 0});
    return tensor::ExpandShapeOp::create(
        b, loc, resultType, back, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  }

  /// The transposed product of a pointwise convolution with a constant
  /// weight, its weight^T in panels of 16 filters: [P, F/16, 16] = input^T
  /// [P, C] x panels [F/16, C, 16] (the weight [F, C] split into [F/16, 16,
  /// C] and transposed, folded into a constant by int21-outline-weights),
  /// a generic over (p, fb, fi, c) starting from the bias, transposed back
  /// to [F/16, 16, P], the NCHW result's view. A register tile reads its
  /// panel as consecutive vectors, where the rows of weight^T, F floats
  /// apart, fell into a quarter of the L1 sets at F = 1152 (see
  /// @cpu.matmul_panels_transposed).
  static Value transposedPanelProduct(OpBuilder &b, Location loc, Value input,
                                      Value weight, Value bias,
                                      RankedTensorType resultType) {
    Type element = resultType.getElementType();
    int64_t filters = cast<RankedTensorType>(weight.getType()).getDimSize(0),
            blocks = filters / 16,
            pixels = cast<RankedTensorType>(input.getType()).getDimSize(1);
    Value panels = columnPanels(b, loc, weight, /*transposed=*/true);
    if (bias)
      bias = splitGroups(b, loc, bias, 0, blocks);
    Value init =
        convInit(b, loc, RankedTensorType::get({pixels, blocks, 16}, element),
                 bias, /*channelDims=*/2);
    Value product =
        panelProduct(b, loc, input, /*lhsTransposed=*/true, panels, init);
    Value rows = reshapeTensor(
        b, loc, transposeTensor(b, loc, product, {1, 2, 0}),
        RankedTensorType::get({filters, pixels}, element));
    return tensor::ExpandShapeOp::create(
        b, loc, resultType, rows,
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  }

  /// `matrix` [K, N] as a view of [K, N + 16] (the padding a constant of its
  /// own once int21-outline-weights folds it) where its rows are a multiple
  /// of 2 KiB apart: a register tile reads a panel of such rows, which would
  /// fall into a few sets of a 48 KiB 12-way L1 and be evicted before the
  /// next tile reuses them (a pointwise convolution 512 -> 2048 on a 7x7
  /// map: 1.43 ms against 0.89 with rows of 2064).
  static Value rowsApartInL1(OpBuilder &b, Location loc, Value matrix) {
    auto type = cast<RankedTensorType>(matrix.getType());
    Type element = type.getElementType();
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    if (!element.isIntOrFloat() ||
        (cols * element.getIntOrFloatBitWidth() / 8) % 2048 != 0)
      return matrix;
    Value padded =
        padTrailing(b, loc, matrix, {0, 0}, ArrayRef<int64_t>{0, 16}, zeroAttr(element));
    return tensor::ExtractSliceOp::create(
        b, loc, type, padded,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(cols)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  }

  /// A 2-D convolution of one group whose filters fill whole vectors, with
  /// the weight in blocks of `lanes` (16; 8 for a dynamic convolution of 8k
  /// filters) filters, [F/16, C, KH, KW, 16] (folded into a constant by
  /// int21-outline-weights; each block contiguous, as in ONNX Runtime's
  /// OIhw16o), over the loops (n, fb, fi, oh, ow, c, kh, kw):
  /// output [N, F/16, 16, OH, OW] (a view of NCHW, collapsed back), input
  /// (n, c, oh * s + kh * d, ow * s + kw * d). @cpu.conv2d_filter_lanes
  /// runs its register tiles with the filters along the vectors, every lane
  /// used whatever the width of the output rows, each input element a
  /// broadcast, at any stride.
  static Value filterLanesConv(OpBuilder &b, Location loc, Value input,
                               Value weight, Value bias,
                               RankedTensorType initType,
                               ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> dilations,
                               ValueRange dynamicSizes, int64_t lanes) {
    auto weightType = cast<RankedTensorType>(weight.getType());
    ArrayRef<int64_t> w = weightType.getShape();
    ArrayRef<int64_t> o = initType.getShape();
    int64_t blocks = w[0] / lanes;
    Value blocked = transposeTensor(b, loc, splitGroups(b, loc, weight, 0, blocks),
                                    {0, 2, 3, 4, 1});
    SmallVector<ReassociationIndices> toNCHW = {{0}, {1, 2}, {3}, {4}};
    auto outType = RankedTensorType::get({o[0], blocks, lanes, o[2], o[3]},
                                         initType.getElementType());
    // The bias [F/16, 16] broadcast over the blocked output (or zeros).
    if (bias)
      bias = splitGroups(b, loc, bias, 0, blocks);
    // (The blocked output's dynamic extents, N, OH and OW, are the
    // result's.)
    Value out =
        convInit(b, loc, outType, bias, /*channelDims=*/2, dynamicSizes);
    MLIRContext *ctx = b.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineMap> maps = {
        AffineMap::get(8, 0,
                       {d(0), d(5), d(3) * strides[0] + d(6) * dilations[0],
                        d(4) * strides[1] + d(7) * dilations[1]},
                       ctx),
        AffineMap::get(8, 0, {d(1), d(5), d(6), d(7), d(2)}, ctx),
        AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx)};
    SmallVector<IteratorType> iterators(5, IteratorType::parallel);
    iterators.append(3, IteratorType::reduction);
    Value conv =
        linalg::GenericOp::create(
            b, loc, outType, ValueRange{input, blocked}, out, maps, iterators,
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              linalg::YieldOp::create(
                  nb, nloc,
                  multiplyAccumulate(nb, nloc, args[2], args[0], args[1]));
            })
            .getResult(0);
    return tensor::CollapseShapeOp::create(b, loc, initType, conv, toNCHW);
  }

  /// A 2-D depthwise convolution whose channels fill whole vectors, with
  /// the channels along them in blocks of `lanes`: the input transposed to
  /// [N, C/L, H, W, L] (from its NCHW view [N, C/L, L, H, W]; each thread
  /// tile transposes its own window) and padded, the weight [C/L, KH, KW, L]
  /// (folded into a constant by int21-outline-weights, as ONNX Runtime's
  /// NCHWc kernels hold it), over the loops (n, cb, ci, oh, ow, kh, kw):
  /// output [N, C/L, L, OH, OW] (a view of NCHW, collapsed back), input
  /// (n, cb, oh * s + kh * d, ow * s + kw * d, ci). Every lane does work
  /// whatever the width of the rows (7 of 8 lanes, or 49 of 64, when the
  /// vectors run along a row of 7) and the stride, which the row form reads
  /// with a shuffle (see @cpu.depthwise_channel_lanes). The batch and the
  /// maps may be dynamic (`dynamicSizes`: the result's dynamic extents, in
  /// order), the channels not.
  static Value channelLanesDepthwise(OpBuilder &b, Location loc, Value input,
                                     Value weight, Value bias,
                                     RankedTensorType resultType,
                                     ArrayRef<int64_t> pads,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> dilations,
                                     int64_t lanes, ValueRange dynamicSizes) {
    auto inputType = cast<RankedTensorType>(input.getType());
    Type element = inputType.getElementType();
    ArrayRef<int64_t> in = inputType.getShape();
    ArrayRef<int64_t> w = cast<RankedTensorType>(weight.getType()).getShape();
    ArrayRef<int64_t> o = resultType.getShape();
    int64_t blocks = in[1] / lanes;
    Value packed = transposeTensor(b, loc, splitGroups(b, loc, input, 1, blocks),
                                   {0, 1, 3, 4, 2});
    packed = padTrailing(b, loc, packed, {pads[0], pads[1], 0},
                         {pads[2], pads[3], 0}, zeroAttr(element));
    // The weight [C, 1, KH, KW] as [C/L, KH, KW, L].
    Value weightSplit = splitGroups(
        b, loc,
        reshapeTensor(b, loc, weight,
                      RankedTensorType::get({w[0], w[2], w[3]}, element)),
        0, blocks);
    Value blockedWeight = transposeTensor(b, loc, weightSplit, {0, 2, 3, 1});
    auto outType = RankedTensorType::get({o[0], blocks, lanes, o[2], o[3]},
                                         resultType.getElementType());
    if (bias)
      bias = splitGroups(b, loc, bias, 0, blocks);
    // (The blocked output's dynamic extents, N, OH and OW, are the
    // result's.)
    Value out =
        convInit(b, loc, outType, bias, /*channelDims=*/2, dynamicSizes);
    MLIRContext *ctx = b.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineMap> maps = {
        AffineMap::get(7, 0,
                       {d(0), d(1), d(3) * strides[0] + d(5) * dilations[0],
                        d(4) * strides[1] + d(6) * dilations[1], d(2)},
                       ctx),
        AffineMap::get(7, 0, {d(1), d(5), d(6), d(2)}, ctx),
        AffineMap::get(7, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx)};
    SmallVector<IteratorType> iterators(5, IteratorType::parallel);
    iterators.append(2, IteratorType::reduction);
    Value conv =
        linalg::GenericOp::create(
            b, loc, outType, ValueRange{packed, blockedWeight}, out, maps,
            iterators,
            [](OpBuilder &nb, Location nloc, ValueRange args) {
              linalg::YieldOp::create(
                  nb, nloc,
                  multiplyAccumulate(nb, nloc, args[2], args[0], args[1]));
            })
            .getResult(0);
    return tensor::CollapseShapeOp::create(
        b, loc, resultType, conv,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  }

  /// Whether a depthwise convolution runs with its channels along the
  /// vectors, in blocks of 16 (an AVX-512 vector of f32): where the row form
  /// (@cpu.depthwise_conv2d_nchw, vectors along the output row) wastes lanes
  /// (rows of 7 or 14 pixels in 16 lanes) or reads strided rows through
  /// shuffles, and the window is large enough (5x5 and up) to pay for
  /// transposing the input and the output of each tile. Measured per layer
  /// on a 2-core AVX-512 Xeon, 1 thread: 5x5 at 7x7, 1152 channels 0.185 ->
  /// 0.081 ms; at 14x14, 480 channels 0.184 -> 0.135; stride 2 to 7x7, 672
  /// channels 0.121 -> 0.077; stride 2 to 28x28, 144 channels 0.49 -> 0.33.
  /// Where it lost: 3x3 windows (72 channels at 56x56 0.106 -> 0.263, 480 at
  /// 14x14 0.074 -> 0.114), 5x5 at stride 1 on rows of 28 (240 channels
  /// 0.218 -> 0.288), blocks of 8 channels.
  static bool channelsAlongLanes(int64_t channels, ArrayRef<int64_t> window,
                                 int64_t outputWidth,
                                 ArrayRef<int64_t> strides) {
    bool strided = llvm::any_of(strides, [](int64_t s) { return s > 1; });
    return channels % 16 == 0 && window[0] * window[1] >= 25 &&
           (outputWidth < 16 || strided);
  }

  /// Whether a pointwise convolution of one image whose map only a run
  /// knows (the generic code of a dynamic model) runs as the pixels' product
  /// (its vectors along the pixels, the remainder of a row of register tiles
  /// one pixel at a time) rather than the filter-lanes convolution: with few
  /// channels, where a register tile's steps are few and each broadcast
  /// weight meets 16 pixels. Measured per layer (dynamic engines, 1 thread,
  /// 2-core AVX2 EPYC, ms, filter lanes -> pixels, static beside): 16 -> 96
  /// at 80x80 0.78 -> 0.40 (0.34), at 20x20 0.061 -> 0.029 (0.032), at 5x5
  /// 0.015 -> 0.015; 96 -> 24 at 80x80 0.87 -> 0.44 (0.38), at 5x5 0.008 ->
  /// 0.013. From 144 channels the pixels' form was no faster (144 -> 32 at
  /// 80x80 0.96 -> 0.94) and far slower on small maps, whose pixels fill no
  /// whole register tile (960 -> 320 at 5x5: 0.37 -> 1.60).
  static bool pixelsOnDynamicMap(int64_t channels) { return channels <= 96; }

  /// Whether a pointwise convolution's product runs with the filters along
  /// the vectors: when the pixels leave more than a tenth of their 16-lane
  /// vectors empty and the filters fill theirs (AVX-512 lanes of f32; a
  /// narrower target loses no more than the pixels' form does).
  static bool filtersAlongLanes(int64_t pixels, int64_t filters) {
    constexpr int64_t lanes = 16;
    int64_t padded = llvm::divideCeil(pixels, lanes) * lanes;
    return filters % lanes == 0 && pixels * 10 < padded * 9;
  }

  /// Whether a pointwise convolution with a constant weight whose pixels do
  /// fill their vectors still runs best transposed, the weight in panels of
  /// 16 filters (see transposedPanelProduct): on small maps (up to 16x16)
  /// with filters in pairs of panels and at least 192 channels, where a
  /// register tile of 12 pixels x 2 panels reads a contiguous panel and 12
  /// consecutive input elements a step, and the pixels' form reads 12 rows
  /// of the weight, a whole row of channels apart (4 KiB at 1024 channels:
  /// the same L1 set). 14x14 maps, 1 thread, pixels' form -> transposed:
  /// 512 -> 256 0.374 -> 0.320 ms, 960 -> 160 0.426 -> 0.365, 256 -> 512
  /// 0.356 -> 0.342, chains of 1024 <-> 256 11.7 -> 9.9; slower with fewer
  /// channels (672 -> 112 0.211 -> 0.257: 7 panels, one a tile; 112 -> 672
  /// 0.219 -> 0.234) and on 28x28 maps (chains of 512 <-> 128: 10.2 ->
  /// 12.6).
  static bool panelsOnSmallMap(int64_t pixels, int64_t filters,
                               int64_t channels) {
    return pixels <= 256 && filters % 32 == 0 && channels >= 192;
  }

  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    int64_t k = inputType.getRank() - 2;
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                      pads = op.getPads();
    int64_t group = op.getGroup();
    int64_t channels = inputType.getDimSize(1),
            filters = weightType.getDimSize(0);
    if (!hasWindowSizes(k, {strides, dilations}, pads) ||
        llvm::any_of(pads, [](int64_t p) { return p < 0; }))
      return rewriter.notifyMatchFailure(op, "unsupported strides or pads");
    if (group < 1 || channels % group || filters % group)
      return rewriter.notifyMatchFailure(op, "channels not divisible by group");

    Type elementType = resultType.getElementType();
    if (Value matmul = pointwiseConvAsMatmul(rewriter, loc, op, adaptor,
                                             resultType, filterLanes)) {
      rewriter.replaceOp(op, matmul);
      return success();
    }
    // Depthwise is its own generic; any other grouping, and 1-D or 3-D
    // convolutions of one group, the generic over split channels.
    bool depthwise = group > 1 && group == channels && filters == channels;
    if (!depthwise && (group > 1 || k != 2)) {
      rewriter.replaceOp(op, groupedConv(rewriter, loc, op, adaptor,
                                         resultType));
      return success();
    }
    Value weight = adaptor.getWeight();
    // (A weight that is no constant keeps its layout: its transpose would
    // be computed at every run.)
    Operation *weightDef = weight.getDefiningOp();
    bool constantWeight =
        weightType.hasStaticShape() && weightDef &&
        weightDef->hasTrait<::mlir::OpTrait::ConstantLike>();
    // Output rows of dynamic extents (the generic code of a dynamic model):
    // the channels along the vectors whatever the window, blocks of 8
    // channels where 16 do not divide them. (The row form there pads its
    // partial register tiles to whole ones, @cpu.depthwise_conv2d_nchw_dynamic:
    // on MobileNetV2 at 160x160 its 3x3 layers took 5.0 ms against 2.4 in
    // this form, 0.8 static, the copies into the padded tiles dominating on
    // the maps of 20 pixels and less.)
    bool dynamicRows = ShapedType::isDynamic(resultType.getDimSize(2)) ||
                       ShapedType::isDynamic(resultType.getDimSize(3));
    ArrayRef<int64_t> window = weightType.getShape().drop_front(2);
    int64_t channelLanes = channels % 16 == 0               ? 16
                           : dynamicRows && channels % 8 == 0 ? 8
                                                            : 0;
    bool lanesForm =
        dynamicRows || channelsAlongLanes(channels, window,
                                          resultType.getDimSize(3), strides);
    if (filterLanes && depthwise && k == 2 && constantWeight &&
        isa<FloatType>(elementType) && channelLanes && lanesForm) {
      rewriter.replaceOp(
          op, channelLanesDepthwise(
                  rewriter, loc, adaptor.getInput(), weight, adaptor.getBias(),
                  resultType, pads, strides, dilations, channelLanes,
                  windowResultSizes(rewriter, loc, adaptor.getInput(),
                                    resultType, window, strides, dilations,
                                    pads, /*ceil=*/false)));
      return success();
    }
    Value input =
        padTrailing(rewriter, loc, adaptor.getInput(), pads.take_front(k),
                    pads.drop_front(k), zeroAttr(elementType));
    SmallVector<Value> sizes = windowResultSizes(
        rewriter, loc, adaptor.getInput(), resultType,
        weightType.getShape().drop_front(2), strides, dilations, pads,
        /*ceil=*/false);
    // Blocks of 16 filters; on dynamic extents (no other schedule there
    // vectorizes a convolution) blocks of 8 where 16 do not divide them.
    int64_t lanes = filters % 16 == 0                                 ? 16
                    : !resultType.hasStaticShape() && filters % 8 == 0 ? 8
                                                                      : 0;
    if (filterLanes && !depthwise && lanes && isa<FloatType>(elementType) &&
        constantWeight) {
      rewriter.replaceOp(op, filterLanesConv(rewriter, loc, input, weight,
                                             adaptor.getBias(), resultType,
                                             strides, dilations, sizes,
                                             lanes));
      return success();
    }
    Value init = convInit(rewriter, loc, resultType, adaptor.getBias(),
                          /*channelDims=*/1, sizes);
    if (!depthwise) {
      rewriter.replaceOp(op, linalg::Conv2DNchwFchwOp::create(
                                 rewriter, loc, TypeRange{resultType},
                                 ValueRange{input, weight}, init,
                                 windowAttrs(rewriter, strides, dilations))
                             .getResults());
      return success();
    }
    // Depthwise: the weight [C, 1, K...] drops its unit dimension.
    SmallVector<int64_t> depthwiseShape = {filters};
    llvm::append_range(depthwiseShape, weightType.getShape().drop_front(2));
    weight = reshapeTensor(
        rewriter, loc, weight,
        RankedTensorType::get(depthwiseShape, weightType.getElementType()));
    rewriter.replaceOp(op, genericWindowConv(rewriter, loc, input, weight,
                                             init, strides, dilations,
                                             /*depthwise=*/true));
    return success();
  }

  /// A convolution of G groups (other than depthwise) as one generic
  /// over (n, g, f, o..., c, k...) with the channel dimensions split into
  /// [G, C / G]: the input is split before it is padded, and the bias
  /// broadcast into the split shape, so that every producer of the
  /// convolution is elementwise over its own iteration space (and fusable
  /// into its tiles); the result is collapsed back to [N, F, O...], a view
  /// (int21-lower-to-linalg moves it past the epilogue, see
  /// moveAnchorReshapesPastEpilogues).
  static Value groupedConv(OpBuilder &b, Location loc, ConvOp op,
                           OpAdaptor adaptor, RankedTensorType resultType) {
    int64_t group = op.getGroup();
    int64_t k = resultType.getRank() - 2;
    ArrayRef<int64_t> pads = op.getPads();
    Type elementType = resultType.getElementType();
    Value input = padTrailing(
        b, loc, splitGroups(b, loc, adaptor.getInput(), 1, group),
        pads.take_front(k), pads.drop_front(k), zeroAttr(elementType));
    Value weight = splitGroups(b, loc, adaptor.getWeight(), 0, group);
    SmallVector<int64_t> initShape(resultType.getShape());
    initShape[1] /= group;
    initShape.insert(initShape.begin() + 1, group);
    Value bias = adaptor.getBias();
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    SmallVector<Value> sizes = windowResultSizes(
        b, loc, adaptor.getInput(), resultType,
        weightType.getShape().drop_front(2), op.getStrides(),
        op.getDilations(), pads, /*ceil=*/false);
    Value init = convInit(
        b, loc, RankedTensorType::get(initShape, elementType),
        bias ? splitGroups(b, loc, bias, 0, group) : Value(), /*channelDims=*/2,
        sizes);
    Value conv = genericWindowConv(b, loc, input, weight, init, op.getStrides(),
                                   op.getDilations(), /*depthwise=*/false);
    return reshapeTensor(b, loc, conv, resultType);
  }
};

/// A transposed convolution is a stride-1 convolution of the input with
/// stride - 1 zeros inserted between elements, padded by
/// dilation * (K - 1) - pad (cropped where negative), with the kernel
/// flipped and its channel dimensions swapped.
struct ConvTransposeLowering : OpConversionPattern<ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    Type elementType = resultType.getElementType();
    int64_t k = inputType.getRank() - 2;
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                      pads = op.getPads(),
                      outputPadding = op.getOutputPadding();
    int64_t group = op.getGroup();
    int64_t channels = inputType.getDimSize(1);
    if (!hasWindowSizes(k, {strides, dilations, outputPadding}, pads) ||
        llvm::any_of(strides, [](int64_t s) { return s < 1; }))
      return rewriter.notifyMatchFailure(op, "unsupported strides or pads");
    if (group < 1 || channels % group || weightType.getDimSize(0) != channels)
      return rewriter.notifyMatchFailure(op, "channels not divisible by group");

    // Zero-insert and pad the input in one insert_slice into zeros.
    SmallVector<int64_t> paddedShape(inputType.getShape().take_front(2));
    SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0)), sizes,
        insertStrides(2, rewriter.getIndexAttr(1)),
        cropOffsets(2, rewriter.getIndexAttr(0)), cropSizes;
    SmallVector<int64_t> cropShape(paddedShape);
    bool crop = false;
    for (int64_t i = 0; i < k; ++i) {
      int64_t span = dilations[i] * (weightType.getDimSize(2 + i) - 1);
      int64_t low = span - pads[i];
      int64_t high = span - pads[k + i] + outputPadding[i];
      int64_t dilated = (inputType.getDimSize(2 + i) - 1) * strides[i] + 1;
      int64_t total =
          std::max<int64_t>(low, 0) + dilated + std::max<int64_t>(high, 0);
      paddedShape.push_back(total);
      offsets.push_back(rewriter.getIndexAttr(std::max<int64_t>(low, 0)));
      insertStrides.push_back(rewriter.getIndexAttr(strides[i]));
      int64_t cropLow = std::max<int64_t>(-low, 0);
      int64_t cropHigh = std::max<int64_t>(-high, 0);
      crop |= cropLow || cropHigh;
      cropOffsets.push_back(rewriter.getIndexAttr(cropLow));
      cropShape.push_back(total - cropLow - cropHigh);
    }
    for (int64_t size : inputType.getShape())
      sizes.push_back(rewriter.getIndexAttr(size));
    for (int64_t size : cropShape)
      cropSizes.push_back(rewriter.getIndexAttr(size));
    Value zeros = filledTensor(rewriter, loc,
                               RankedTensorType::get(paddedShape, elementType),
                               floatAttr(elementType, 0.0));
    Value input =
        tensor::InsertSliceOp::create(rewriter, loc, adaptor.getInput(), zeros,
                                      offsets, sizes, insertStrides);
    if (crop)
      input = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get(cropShape, elementType), input,
          cropOffsets, cropSizes,
          SmallVector<OpFoldResult>(k + 2, rewriter.getIndexAttr(1)));

    // Weight [G * C, F, K...] -> flipped [G, F, C, K...].
    int64_t groupChannels = channels / group;
    SmallVector<int64_t> flippedShape = {group, weightType.getDimSize(1),
                                         groupChannels};
    SmallVector<AffineExpr> weightExprs = {
        getAffineDimExpr(0, ctx) * groupChannels + getAffineDimExpr(2, ctx),
        getAffineDimExpr(1, ctx)};
    for (int64_t i = 0; i < k; ++i) {
      int64_t size = weightType.getDimSize(2 + i);
      flippedShape.push_back(size);
      weightExprs.push_back(size - 1 - getAffineDimExpr(3 + i, ctx));
    }
    Value weight = copyGeneric(
        rewriter, loc, RankedTensorType::get(flippedShape, elementType),
        adaptor.getWeight(), AffineMap::get(k + 3, 0, weightExprs, ctx));

    Value init = convInit(rewriter, loc, resultType, adaptor.getBias());
    Value conv = genericWindowConv(
        rewriter, loc, splitGroups(rewriter, loc, input, 1, group), weight,
        splitGroups(rewriter, loc, init, 1, group), SmallVector<int64_t>(k, 1),
        dilations, /*depthwise=*/false);
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, conv, resultType));
    return success();
  }
};

template <typename OpTy, bool isMax>
struct PoolLowering : OpConversionPattern<OpTy> {
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
    Type elementType = resultType.getElementType();
    int64_t k = inputType.getRank() - 2;
    ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(),
                      dilations = op.getDilations(), pads = op.getPads();
    if (!hasWindowSizes(k, {kernel, strides, dilations}, pads) ||
        llvm::any_of(pads, [](int64_t p) { return p < 0; }))
      return rewriter.notifyMatchFailure(op, "unsupported kernel or pads");

    // (An average on dynamic extents has no pads nor ceil_mode: the pass
    // refuses those before the conversion.)
    bool dynamic = !resultType.hasStaticShape();
    SmallVector<Value> sizes = windowResultSizes(
        rewriter, loc, adaptor.getInput(), resultType, kernel, strides,
        dilations, pads, op.getCeilMode());
    // Windows of ceil_mode that run past the padded input read extra
    // padding at the end.
    SmallVector<int64_t> low(pads.take_front(k));
    SmallVector<OpFoldResult> high;
    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    for (int64_t i = 0; i < k; ++i) {
      int64_t extent = dilations[i] * (kernel[i] - 1) + 1;
      if (!inputType.isDynamicDim(2 + i)) {
        int64_t padded = inputType.getDimSize(2 + i) + low[i] + pads[k + i];
        int64_t needed =
            (resultType.getDimSize(2 + i) - 1) * strides[i] + extent;
        high.push_back(rewriter.getIndexAttr(
            pads[k + i] + std::max<int64_t>(needed - padded, 0)));
        continue;
      }
      if (!op.getCeilMode()) {
        high.push_back(rewriter.getIndexAttr(pads[k + i]));
        continue;
      }
      // max(0, (out - 1) * stride + extent - (D + low + high)) more.
      unsigned at = 0;
      for (int64_t d = 0; d < 2 + i; ++d)
        at += resultType.isDynamicDim(d);
      Value out = sizes[at];
      Value needed = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc,
                                arith::SubIOp::create(rewriter, loc, out, c(1)),
                                c(strides[i])),
          c(extent));
      Value padded = arith::AddIOp::create(
          rewriter, loc,
          tensor::DimOp::create(rewriter, loc, adaptor.getInput(), 2 + i),
          c(low[i] + pads[k + i]));
      Value more = arith::MaxSIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, needed, padded),
          c(0));
      high.push_back(
          arith::AddIOp::create(rewriter, loc, more, c(pads[k + i]))
              .getResult());
    }
    bool isUnsigned = isUnsignedElementType(op.getType());
    TypedAttr padValue =
        isMax ? lowestAttr(elementType, isUnsigned) : zeroAttr(elementType);
    Value input =
        padTrailing(rewriter, loc, adaptor.getInput(), low, high, padValue);
    Value init = filledTensor(rewriter, loc, resultType, padValue, sizes);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, elementType);

    // (n, c, o..., k...): the window operand only gives k its range. The
    // form of a depthwise convolution (the window in place of the weight),
    // which the CPU template of depthwise convolutions schedules too.
    int64_t numDims = 2 + 2 * k;
    SmallVector<AffineExpr> inputExprs =
        windowInputExprs(ctx, k, strides, dilations);
    SmallVector<AffineMap> maps = {
        AffineMap::get(numDims, 0, inputExprs, ctx),
        AffineMap::get(numDims, 0, dims(ctx, 2 + k, k), ctx),
        AffineMap::get(numDims, 0, dims(ctx, 0, 2 + k), ctx)};
    SmallVector<IteratorType> iterators(2 + k, IteratorType::parallel);
    iterators.append(k, IteratorType::reduction);
    Value pooled =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, ValueRange{input, window},
            init, maps, iterators,
            [&](OpBuilder &nb, Location l, ValueRange args) {
              Value r;
              if (!isMax)
                r = arith::AddFOp::create(nb, l, args[0], args[2]);
              else if (isa<FloatType>(elementType))
                r = arith::MaximumFOp::create(nb, l, args[0], args[2]);
              else if (isUnsigned)
                r = arith::MaxUIOp::create(nb, l, args[0], args[2]);
              else
                r = arith::MaxSIOp::create(nb, l, args[0], args[2]);
              linalg::YieldOp::create(nb, l, r);
            })
            .getResult(0);
    if constexpr (!isMax)
      pooled = dynamic ? divideByWindow(rewriter, loc, op, pooled, sizes)
                       : divideByCount(rewriter, loc, op, pooled, inputType,
                                       low);
    rewriter.replaceOp(op, pooled);
    return success();
  }

  /// Divides window sums by the size of the window, which every window
  /// covers whole (no pads, no ceil_mode).
  Value divideByWindow(OpBuilder &b, Location loc, OpTy op, Value sums,
                       ValueRange sizes) const {
    auto resultType = cast<RankedTensorType>(sums.getType());
    Type elementType = resultType.getElementType();
    int64_t count = 1;
    for (int64_t k : op.getKernelShape())
      count *= k;
    return parallelGeneric(
        b, loc, resultType, ValueRange{sums},
        {b.getMultiDimIdentityMap(resultType.getRank())},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value n = arith::ConstantOp::create(
              nb, l, floatAttr(elementType, static_cast<double>(count)));
          return arith::DivFOp::create(nb, l, args[0], n);
        },
        sizes);
  }

  /// Divides window sums by the number of elements each window covers: the
  /// input plus its explicit pads with count_include_pad, the input alone
  /// otherwise; never the extra ceil_mode padding.
  Value divideByCount(OpBuilder &b, Location loc, OpTy op, Value sums,
                      RankedTensorType inputType, ArrayRef<int64_t> low) const {
    auto resultType = cast<RankedTensorType>(sums.getType());
    Type elementType = resultType.getElementType();
    int64_t k = low.size();
    ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(),
                      dilations = op.getDilations(), pads = op.getPads();
    bool includePad = op.getCountIncludePad();
    ArrayRef<int64_t> spatial = resultType.getShape().drop_front(2);
    SmallVector<SmallVector<int64_t>> perDim(k);
    for (int64_t i = 0; i < k; ++i) {
      int64_t size = inputType.getDimSize(2 + i);
      int64_t begin = includePad ? 0 : low[i];
      int64_t end = includePad ? size + pads[i] + pads[k + i] : low[i] + size;
      for (int64_t o = 0; o < spatial[i]; ++o) {
        int64_t count = 0;
        for (int64_t w = 0; w < kernel[i]; ++w) {
          int64_t at = o * strides[i] + w * dilations[i];
          count += at >= begin && at < end;
        }
        perDim[i].push_back(std::max<int64_t>(count, 1));
      }
    }
    // One divisor per output position, broadcast over N and C; a scalar
    // when every window has the same size.
    SmallVector<Attribute> counts;
    for (int64_t linear = 0, e = ShapedType::getNumElements(spatial);
         linear < e; ++linear) {
      int64_t rest = linear, count = 1;
      for (int64_t i = k - 1; i >= 0; --i) {
        count *= perDim[i][rest % spatial[i]];
        rest /= spatial[i];
      }
      counts.push_back(floatAttr(elementType, static_cast<double>(count)));
    }
    MLIRContext *ctx = b.getContext();
    int64_t rank = resultType.getRank();
    SmallVector<AffineExpr> exprs = dims(ctx, 2, k);
    if (llvm::all_equal(counts)) {
      counts.resize(1, floatAttr(elementType, 1.0));
      spatial = {};
      exprs.clear();
    }
    Value divisor = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get(spatial, elementType),
                               counts));
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                   AffineMap::get(rank, 0, exprs, ctx),
                                   b.getMultiDimIdentityMap(rank)};
    return linalg::GenericOp::create(
               b, loc, TypeRange{resultType}, ValueRange{sums, divisor},
               ValueRange{emptyTensor(b, loc, resultType)}, maps,
               SmallVector<IteratorType>(rank, IteratorType::parallel),
               [](OpBuilder &nb, Location l, ValueRange args) {
                 linalg::YieldOp::create(
                     nb, l,
                     Value(arith::DivFOp::create(nb, l, args[0], args[1])));
               })
        .getResult(0);
  }
};

/// The positions of the maxima of max pooling's windows: one generic over
/// (n, c, o..., k...) that carries the best value and its flattened position
/// in the input; an element in the padding is never taken, the first of
/// equal maxima is.
struct MaxPoolIndicesLowering : OpConversionPattern<MaxPoolIndicesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPoolIndicesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic extents");
    Type elementType = inputType.getElementType();
    bool isUnsigned = isUnsignedElementType(op.getInput().getType());
    int64_t k = inputType.getRank() - 2;
    ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(),
                      dilations = op.getDilations(), pads = op.getPads();
    if (!hasWindowSizes(k, {kernel, strides, dilations}, pads) ||
        llvm::any_of(pads, [](int64_t p) { return p < 0; }))
      return rewriter.notifyMatchFailure(op, "unsupported kernel or pads");
    // Padded so that every window reads inside; the padding is skipped by
    // position, not by value.
    SmallVector<int64_t> low(pads.take_front(k)), high;
    for (int64_t i = 0; i < k; ++i) {
      int64_t extent = dilations[i] * (kernel[i] - 1) + 1;
      int64_t padded = inputType.getDimSize(2 + i) + low[i] + pads[k + i];
      int64_t needed = (resultType.getDimSize(2 + i) - 1) * strides[i] + extent;
      high.push_back(pads[k + i] + std::max<int64_t>(needed - padded, 0));
    }
    TypedAttr lowest = lowestAttr(elementType, isUnsigned);
    Value input = padTrailing(rewriter, loc, adaptor.getInput(), low, high,
                              lowest);
    auto valueType = resultType.clone(elementType);
    Value best = filledTensor(rewriter, loc, valueType, lowest, {});
    Value none = filledTensor(rewriter, loc, resultType,
                              rewriter.getI64IntegerAttr(-1), {});
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, elementType);
    int64_t numDims = 2 + 2 * k;
    SmallVector<AffineExpr> inputExprs =
        windowInputExprs(ctx, k, strides, dilations);
    AffineMap out = AffineMap::get(numDims, 0, dims(ctx, 0, 2 + k), ctx);
    SmallVector<AffineMap> maps = {
        AffineMap::get(numDims, 0, inputExprs, ctx),
        AffineMap::get(numDims, 0, dims(ctx, 2 + k, k), ctx), out, out};
    SmallVector<IteratorType> iterators(2 + k, IteratorType::parallel);
    iterators.append(k, IteratorType::reduction);
    bool columnMajor = op.getStorageOrder();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, resultType},
        ValueRange{input, window}, ValueRange{best, none}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto index = [&](int64_t v) {
            return arith::ConstantIndexOp::create(b, l, v).getResult();
          };
          // The element's position in the input, and whether it is one.
          Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
          SmallVector<Value> at = {linalg::IndexOp::create(b, l, 0),
                                   linalg::IndexOp::create(b, l, 1)};
          for (int64_t i = 0; i < k; ++i) {
            Value o = linalg::IndexOp::create(b, l, 2 + i);
            Value w = linalg::IndexOp::create(b, l, 2 + k + i);
            Value p = arith::SubIOp::create(
                b, l,
                arith::AddIOp::create(
                    b, l, arith::MulIOp::create(b, l, o, index(strides[i])),
                    arith::MulIOp::create(b, l, w, index(dilations[i]))),
                index(low[i]));
            int64_t size = inputType.getDimSize(2 + i);
            inside = arith::AndIOp::create(
                b, l, inside,
                arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, p,
                                          index(0)),
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, p,
                                          index(size))));
            at.push_back(p);
          }
          // Row-major over (n, c, d...), or (n, c) then d... column-major.
          Value flat = at[0];
          flat = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, flat, index(inputType.getDimSize(1))),
              at[1]);
          Value spatial = index(0);
          for (int64_t j = 0; j < k; ++j) {
            int64_t i = columnMajor ? k - 1 - j : j;
            spatial = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, spatial,
                                      index(inputType.getDimSize(2 + i))),
                at[2 + i]);
          }
          int64_t area = 1;
          for (int64_t i = 0; i < k; ++i)
            area *= inputType.getDimSize(2 + i);
          flat = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, flat, index(area)), spatial);
          Value position =
              arith::IndexCastOp::create(b, l, b.getI64Type(), flat);
          Value greater;
          if (isa<FloatType>(elementType))
            greater = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                            args[0], args[2]);
          else
            greater = arith::CmpIOp::create(
                b, l,
                isUnsigned ? arith::CmpIPredicate::ugt
                           : arith::CmpIPredicate::sgt,
                args[0], args[2]);
          Value first = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::slt, args[3],
              arith::ConstantIntOp::create(b, l, b.getI64Type(), 0));
          Value take = arith::AndIOp::create(
              b, l, inside, arith::OrIOp::create(b, l, first, greater));
          linalg::YieldOp::create(
              b, l,
              ValueRange{
                  arith::SelectOp::create(b, l, take, args[0], args[2]),
                  arith::SelectOp::create(b, l, take, position, args[3])});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

} // namespace

void lowering::populateNNLoweringPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          bool filterLanes) {
  patterns.add<ConvLowering>(converter, patterns.getContext(), filterLanes);
  patterns.add<ConvTransposeLowering,
               PoolLowering<MaxPoolOp, true>, PoolLowering<AvgPoolOp, false>,
               MaxPoolIndicesLowering>(
      converter, patterns.getContext());
}

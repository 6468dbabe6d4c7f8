//===- Int21Folders.cpp - int21 folders and canonicalisation patterns -----===//
//
// Folding is meant for small shape arithmetic and the obvious identities:
// constants with more than kMaxFoldElements elements are never expanded here.
//
//===----------------------------------------------------------------------===//

#include "int21/Dialect/Int21/Int21Ops.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace int21;

static constexpr int64_t kMaxFoldElements = 4096;

/// `attr` as dense elements, if it is dense and small enough to fold over.
static DenseElementsAttr smallDense(Attribute attr) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense || (!dense.isSplat() && dense.getNumElements() > kMaxFoldElements))
    return {};
  return dense;
}

/// The linear index into an operand of shape `operand` that broadcasts to
/// element `linear` of a result of shape `result`.
static int64_t broadcastSource(ArrayRef<int64_t> result,
                               ArrayRef<int64_t> operand, int64_t linear) {
  int64_t source = 0, stride = 1;
  size_t offset = result.size() - operand.size();
  for (int64_t d = result.size() - 1; d >= 0; --d) {
    int64_t index = linear % result[d];
    linear /= result[d];
    if (d < static_cast<int64_t>(offset))
      continue;
    int64_t size = operand[d - offset];
    source += (size == 1 ? 0 : index) * stride;
    stride *= size;
  }
  return source;
}

/// Row-major multi-index of element `linear` of `shape`.
static SmallVector<int64_t> delinearize(int64_t linear,
                                        ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
  return index;
}

static int64_t linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [i, size] : llvm::zip(index, shape))
    linear = linear * size + i;
  return linear;
}

/// Builds the result of an elementwise fold: a splat when every input is a
/// splat, otherwise one value per result element. Inputs are read as T,
/// results built from R.
template <typename T, typename R = T, typename Fn>
static Attribute foldElementwise(ShapedType resultType,
                                 ArrayRef<DenseElementsAttr> inputs, Fn &&fn) {
  if (!resultType.hasStaticShape())
    return {};
  bool allSplat =
      llvm::all_of(inputs, [](DenseElementsAttr a) { return a.isSplat(); });
  int64_t count = allSplat ? 1 : resultType.getNumElements();
  if (count > kMaxFoldElements)
    return {};
  // A splat may stand for far more elements than we fold: read its one value.
  SmallVector<SmallVector<T>> values;
  for (DenseElementsAttr input : inputs)
    values.push_back(input.isSplat() ? SmallVector<T>{input.getSplatValue<T>()}
                                     : llvm::to_vector(input.getValues<T>()));
  SmallVector<R> results;
  results.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    SmallVector<T> args;
    for (auto [input, vals] : llvm::zip(inputs, values)) {
      auto shape = cast<ShapedType>(input.getType()).getShape();
      args.push_back(
          input.isSplat()
              ? vals.front()
              : vals[broadcastSource(resultType.getShape(), shape, i)]);
    }
    std::optional<R> r = fn(args);
    if (!r)
      return {};
    results.push_back(*r);
  }
  if (allSplat)
    return DenseElementsAttr::get(resultType, results.front());
  return DenseElementsAttr::get(resultType, results);
}

/// Folds a binary arithmetic op over small constants; `intFn` and `floatFn`
/// compute one element (returning nullopt to refuse, e.g. division by zero).
template <typename IntFn, typename FloatFn>
static Attribute foldBinaryArith(ShapedType resultType, Attribute lhs,
                                 Attribute rhs, IntFn &&intFn,
                                 FloatFn &&floatFn) {
  DenseElementsAttr l = smallDense(lhs), r = smallDense(rhs);
  if (!l || !r)
    return {};
  Type elementType = resultType.getElementType();
  if (isa<FloatType>(elementType))
    return foldElementwise<APFloat>(
        resultType, {l, r}, [&](ArrayRef<APFloat> a) -> std::optional<APFloat> {
          return floatFn(a[0], a[1]);
        });
  if (isa<IntegerType>(elementType)) {
    bool isUnsigned = elementType.isUnsignedInteger();
    return foldElementwise<APInt>(
        resultType, {l, r}, [&](ArrayRef<APInt> a) -> std::optional<APInt> {
          return intFn(a[0], a[1], isUnsigned);
        });
  }
  return {};
}

/// True when `attr` is a splat whose every element equals integer `value`
/// (for integers) or floating-point `value` (for floats).
static bool isSplatOf(Attribute attr, int64_t value) {
  auto dense = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!dense)
    return false;
  Type type = dense.getElementType();
  if (isa<FloatType>(type))
    return dense.getSplatValue<APFloat>().isExactlyValue(value);
  if (isa<IntegerType>(type))
    return dense.getSplatValue<APInt>().getSExtValue() == value;
  return false;
}

//===----------------------------------------------------------------------===//
// Constants and elementwise ops
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  Type elementType = getElementTypeOrSelf(getType());
  if (getLhs().getType() == getType()) {
    if (isa<IntegerType>(elementType) && isSplatOf(adaptor.getRhs(), 0))
      return getLhs();
    if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getRhs()))
      if (isa<FloatType>(elementType) &&
          splat.getSplatValue<APFloat>().isNegZero())
        return getLhs();
  }
  return foldBinaryArith(
      getType(), adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b, bool) -> std::optional<APInt> {
        return a + b;
      },
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (getLhs().getType() == getType() &&
      isa<IntegerType>(getElementTypeOrSelf(getType())) &&
      isSplatOf(adaptor.getRhs(), 0))
    return getLhs();
  return foldBinaryArith(
      getType(), adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b, bool) -> std::optional<APInt> {
        return a - b;
      },
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (getLhs().getType() == getType() && isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return foldBinaryArith(
      getType(), adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b, bool) -> std::optional<APInt> {
        return a * b;
      },
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (getLhs().getType() == getType() && isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return foldBinaryArith(
      getType(), adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b,
         bool isUnsigned) -> std::optional<APInt> {
        if (b.isZero())
          return std::nullopt;
        if (isUnsigned)
          return a.udiv(b);
        if (a.isMinSignedValue() && b.isAllOnes())
          return std::nullopt;
        return a.sdiv(b);
      },
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a / b;
      });
}

/// Converts one constant element from `from` to `to` with ONNX Cast rules.
/// Folds a unary arithmetic op over a small constant (shape arithmetic:
/// negated axes, absolute steps).
template <typename IntFn, typename FloatFn>
static Attribute foldUnaryArith(ShapedType resultType, Attribute input,
                                IntFn &&intFn, FloatFn &&floatFn) {
  DenseElementsAttr x = smallDense(input);
  if (!x)
    return {};
  Type elementType = resultType.getElementType();
  if (isa<FloatType>(elementType))
    return foldElementwise<APFloat>(
        resultType, {x}, [&](ArrayRef<APFloat> a) -> std::optional<APFloat> {
          return floatFn(a[0]);
        });
  if (isa<IntegerType>(elementType) && !elementType.isInteger(1)) {
    bool isUnsigned = elementType.isUnsignedInteger();
    return foldElementwise<APInt>(
        resultType, {x}, [&](ArrayRef<APInt> a) -> std::optional<APInt> {
          return intFn(a[0], isUnsigned);
        });
  }
  return {};
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldUnaryArith(
      cast<ShapedType>(getType()), adaptor.getInput(),
      [](const APInt &a, bool) -> std::optional<APInt> { return -a; },
      [](const APFloat &a) -> std::optional<APFloat> { return -a; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldUnaryArith(
      cast<ShapedType>(getType()), adaptor.getInput(),
      [](const APInt &a, bool isUnsigned) -> std::optional<APInt> {
        return isUnsigned ? a : a.abs();
      },
      [](const APFloat &a) -> std::optional<APFloat> { return abs(a); });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldBinaryArith(
      cast<ShapedType>(getType()), adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b, bool isUnsigned) -> std::optional<APInt> {
        return (isUnsigned ? a.ult(b) : a.slt(b)) ? b : a;
      },
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return maximum(a, b); // NaN propagates, as in ONNX Max.
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldBinaryArith(
      cast<ShapedType>(getType()), adaptor.getLhs(), adaptor.getRhs(),
      [](const APInt &a, const APInt &b, bool isUnsigned) -> std::optional<APInt> {
        return (isUnsigned ? b.ult(a) : b.slt(a)) ? b : a;
      },
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return minimum(a, b);
      });
}

static std::optional<Attribute> castElement(Attribute value, Type from,
                                            Type to) {
  if (auto f = dyn_cast<FloatAttr>(value)) {
    APFloat v = f.getValue();
    if (auto toFloat = dyn_cast<FloatType>(to)) {
      bool lost;
      v.convert(toFloat.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      return FloatAttr::get(to, v);
    }
    auto toInt = cast<IntegerType>(to);
    if (toInt.getWidth() == 1)
      return IntegerAttr::get(to, APInt(1, v.isZero() ? 0 : 1));
    APSInt result(toInt.getWidth(), toInt.isUnsigned());
    bool exact;
    if (v.convertToInteger(result, APFloat::rmTowardZero, &exact) &
        APFloat::opInvalidOp)
      return std::nullopt;
    return IntegerAttr::get(to, result);
  }
  auto i = cast<IntegerAttr>(value);
  APInt v = i.getValue();
  bool isUnsigned =
      from.isUnsignedInteger() || from.getIntOrFloatBitWidth() == 1;
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    APFloat result(toFloat.getFloatSemantics());
    result.convertFromAPInt(v, !isUnsigned, APFloat::rmNearestTiesToEven);
    return FloatAttr::get(to, result);
  }
  auto toInt = cast<IntegerType>(to);
  if (toInt.getWidth() == 1)
    return IntegerAttr::get(to, APInt(1, v.isZero() ? 0 : 1));
  return IntegerAttr::get(to, isUnsigned ? v.zextOrTrunc(toInt.getWidth())
                                         : v.sextOrTrunc(toInt.getWidth()));
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr input = smallDense(adaptor.getInput());
  auto resultType = cast<ShapedType>(getType());
  Type from = input ? input.getElementType() : Type();
  Type to = resultType.getElementType();
  if (!input || !isa<IntegerType, FloatType>(from) ||
      !isa<IntegerType, FloatType>(to))
    return {};
  SmallVector<Attribute> elements =
      input.isSplat() ? SmallVector<Attribute>{input.getSplatValue<Attribute>()}
                      : llvm::to_vector(input.getValues<Attribute>());
  SmallVector<Attribute> values;
  for (Attribute v : elements) {
    std::optional<Attribute> converted = castElement(v, from, to);
    if (!converted)
      return {};
    values.push_back(*converted);
  }
  // One value gives a splat of the result type.
  return DenseElementsAttr::get(resultType, values);
}

/// Folds a comparison of small constants; `holds` tells from the ordering
/// of the operands (negative, zero, positive) whether the result is true.
/// Unordered floats (NaN) compare false.
static Attribute foldCompare(ShapedType resultType, Attribute lhs,
                             Attribute rhs, function_ref<bool(int)> holds) {
  DenseElementsAttr l = smallDense(lhs), r = smallDense(rhs);
  if (!l || !r)
    return {};
  Type elementType = l.getElementType();
  auto toBit = [](bool b) { return APInt(1, b ? 1 : 0); };
  if (isa<FloatType>(elementType))
    return foldElementwise<APFloat, APInt>(
        resultType, {l, r}, [&](ArrayRef<APFloat> a) -> std::optional<APInt> {
          APFloat::cmpResult c = a[0].compare(a[1]);
          if (c == APFloat::cmpUnordered)
            return toBit(false);
          return toBit(holds(c == APFloat::cmpLessThan      ? -1
                             : c == APFloat::cmpGreaterThan ? 1
                                                            : 0));
        });
  if (isa<IntegerType>(elementType)) {
    bool isUnsigned =
        elementType.isUnsignedInteger() || elementType.isInteger(1);
    return foldElementwise<APInt, APInt>(
        resultType, {l, r}, [&](ArrayRef<APInt> a) -> std::optional<APInt> {
          int order = isUnsigned ? (a[0].ult(a[1]) ? -1
                                    : a[0] == a[1] ? 0
                                                   : 1)
                                 : (a[0].slt(a[1]) ? -1
                                    : a[0] == a[1] ? 0
                                                   : 1);
          return toBit(holds(order));
        });
  }
  return {};
}

OpFoldResult EqualOp::fold(FoldAdaptor adaptor) {
  return foldCompare(getType(), adaptor.getLhs(), adaptor.getRhs(),
                     [](int o) { return o == 0; });
}
OpFoldResult LessOp::fold(FoldAdaptor adaptor) {
  return foldCompare(getType(), adaptor.getLhs(), adaptor.getRhs(),
                     [](int o) { return o < 0; });
}
OpFoldResult LessEqualOp::fold(FoldAdaptor adaptor) {
  return foldCompare(getType(), adaptor.getLhs(), adaptor.getRhs(),
                     [](int o) { return o <= 0; });
}
OpFoldResult GreaterOp::fold(FoldAdaptor adaptor) {
  return foldCompare(getType(), adaptor.getLhs(), adaptor.getRhs(),
                     [](int o) { return o > 0; });
}
OpFoldResult GreaterEqualOp::fold(FoldAdaptor adaptor) {
  return foldCompare(getType(), adaptor.getLhs(), adaptor.getRhs(),
                     [](int o) { return o >= 0; });
}

/// Folds a logical op over small boolean constants.
static Attribute foldLogical(ShapedType resultType,
                             ArrayRef<Attribute> operands,
                             function_ref<bool(ArrayRef<bool>)> fn) {
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute a : operands) {
    DenseElementsAttr dense = smallDense(a);
    if (!dense)
      return {};
    inputs.push_back(dense);
  }
  return foldElementwise<APInt, APInt>(
      resultType, inputs, [&](ArrayRef<APInt> a) -> std::optional<APInt> {
        SmallVector<bool> bits;
        for (const APInt &v : a)
          bits.push_back(!v.isZero());
        return APInt(1, fn(bits) ? 1 : 0);
      });
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  return foldLogical(getType(), adaptor.getOperands(),
                     [](ArrayRef<bool> b) { return b[0] && b[1]; });
}
OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  return foldLogical(getType(), adaptor.getOperands(),
                     [](ArrayRef<bool> b) { return b[0] || b[1]; });
}
OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldLogical(getType(), adaptor.getOperands(),
                     [](ArrayRef<bool> b) { return b[0] != b[1]; });
}
OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  return foldLogical(cast<ShapedType>(getType()), adaptor.getOperands(),
                     [](ArrayRef<bool> b) { return !b[0]; });
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  // A constant condition that picks one side everywhere.
  if (auto cond =
          dyn_cast_if_present<SplatElementsAttr>(adaptor.getCondition())) {
    Value chosen = cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
    if (chosen.getType() == getType())
      return chosen;
  }
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute a : adaptor.getOperands()) {
    DenseElementsAttr dense = smallDense(a);
    if (!dense)
      return {};
    inputs.push_back(dense);
  }
  return foldElementwise<Attribute, Attribute>(
      cast<ShapedType>(getType()), inputs,
      [](ArrayRef<Attribute> a) -> std::optional<Attribute> {
        return cast<IntegerAttr>(a[0]).getValue().isZero() ? a[2] : a[1];
      });
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Rebuilds a small constant with element i of the result taken from element
/// `source(i)` of `input`.
static Attribute gatherElements(DenseElementsAttr input, ShapedType resultType,
                                function_ref<int64_t(int64_t)> source) {
  if (input.isSplat())
    return input.resizeSplat(resultType);
  if (resultType.getNumElements() > kMaxFoldElements)
    return {};
  auto values = llvm::to_vector(input.getValues<Attribute>());
  SmallVector<Attribute> result;
  result.reserve(resultType.getNumElements());
  for (int64_t i = 0; i < resultType.getNumElements(); ++i)
    result.push_back(values[source(i)]);
  return DenseElementsAttr::get(resultType, result);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto it) {
    return static_cast<int64_t>(it.index()) == it.value();
  });
  if (identity)
    return getInput();
  DenseElementsAttr input = smallDense(adaptor.getInput());
  if (!input)
    return {};
  auto resultType = cast<ShapedType>(getType());
  ArrayRef<int64_t> inShape = getInput().getType().getShape();
  return gatherElements(input, resultType, [&](int64_t i) {
    SmallVector<int64_t> outIndex = delinearize(i, resultType.getShape());
    SmallVector<int64_t> inIndex(perm.size());
    for (auto [d, p] : llvm::enumerate(perm))
      inIndex[p] = outIndex[d];
    return linearize(inIndex, inShape);
  });
}

namespace {
/// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<TransposeOp>();
    if (!producer)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(producer.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, producer.getInput(), perm);
    return success();
  }
};
} // namespace

namespace {
/// A convolution with a kernel of ones, no padding and strides reads only
/// the pixels at multiples of the strides: conv(slice(x, steps = strides))
/// with unit strides. Lowered, the pointwise convolution is then a matmul
/// over the slice's contiguous copy, where the strided form read one
/// element of a row a line (a downsampling 1x1 convolution of ResNet, 256
/// -> 512 channels at 56x56 -> 28x28, 1 thread: 2.55 -> 1.62 ms).
struct SubsampleOneByOneConv : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto weightType = dyn_cast<RankedTensorType>(op.getWeight().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!inputType || !weightType || !resultType ||
        !inputType.hasStaticShape() || !weightType.hasStaticShape() ||
        !resultType.hasStaticShape())
      return failure();
    ArrayRef<int64_t> strides = op.getStrides();
    size_t k = strides.size();
    if (inputType.getRank() != static_cast<int64_t>(k) + 2 ||
        weightType.getRank() != inputType.getRank() ||
        op.getPads().size() != 2 * k ||
        llvm::any_of(weightType.getShape().drop_front(2),
                     [](int64_t d) { return d != 1; }) ||
        llvm::any_of(op.getPads(), [](int64_t p) { return p != 0; }) ||
        llvm::all_of(strides, [](int64_t s) { return s == 1; }) ||
        llvm::any_of(strides, [](int64_t s) { return s < 1; }))
      return failure();
    SmallVector<int64_t> sizes = {inputType.getDimSize(0),
                                  inputType.getDimSize(1)};
    llvm::append_range(sizes, resultType.getShape().drop_front(2));
    for (auto [size, stride, extent] :
         llvm::zip(ArrayRef<int64_t>(sizes).drop_front(2), strides,
                   inputType.getShape().drop_front(2)))
      if (size < 1 || (size - 1) * stride >= extent)
        return failure();
    SmallVector<int64_t> starts(k + 2, 0), steps = {1, 1};
    llvm::append_range(steps, strides);
    Location loc = op.getLoc();
    auto sliceType = RankedTensorType::get(sizes, inputType.getElementType());
    Value slice = SliceOp::create(rewriter, loc, sliceType, op.getInput(),
                                  rewriter.getDenseI64ArrayAttr(starts),
                                  rewriter.getDenseI64ArrayAttr(sizes),
                                  rewriter.getDenseI64ArrayAttr(steps));
    SmallVector<int64_t> unit(k, 1);
    rewriter.replaceOpWithNewOp<ConvOp>(
        op, resultType, slice, op.getWeight(), op.getBias(),
        rewriter.getDenseI64ArrayAttr(unit), op.getPadsAttr(),
        op.getDilationsAttr(), op.getGroupAttr());
    return success();
  }
};
} // namespace

void ConvOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<SubsampleOneByOneConv>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  auto resultType = cast<ShapedType>(getType());
  // The same type is the same shape, unless two or more of its extents are
  // given by `sizes` (which may split the elements differently).
  if (getInput().getType() == resultType && getSizes().size() <= 1)
    return getInput();
  // Reshapes compose, except that a result whose extents come from its
  // input's cannot take them from an earlier input that sizes differ from.
  if (auto producer = getInput().getDefiningOp<ReshapeOp>();
      producer && (!getSizes().empty() || producer.getSizes().empty())) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(resultType);
  // A weight blob keeps its bytes; only its shape changes.
  if (auto blob =
          dyn_cast_if_present<DenseResourceElementsAttr>(adaptor.getInput()))
    return DenseResourceElementsAttr::get(resultType, blob.getRawHandle());
  return {};
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return splat.resizeSplat(cast<ShapedType>(getType()));
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute a : adaptor.getInputs()) {
    DenseElementsAttr dense = smallDense(a);
    if (!dense)
      return {};
    inputs.push_back(dense);
  }
  auto resultType = cast<ShapedType>(getType());
  if (resultType.getNumElements() > kMaxFoldElements)
    return {};
  int64_t axis = getAxis();
  SmallVector<Attribute> result;
  result.reserve(resultType.getNumElements());
  for (int64_t i = 0; i < resultType.getNumElements(); ++i) {
    SmallVector<int64_t> index = delinearize(i, resultType.getShape());
    for (DenseElementsAttr input : inputs) {
      ArrayRef<int64_t> shape = input.getType().getShape();
      if (index[axis] < shape[axis]) {
        result.push_back(
            input.isSplat()
                ? input.getSplatValue<Attribute>()
                : input.getValues<Attribute>()[linearize(index, shape)]);
        break;
      }
      index[axis] -= shape[axis];
    }
  }
  return DenseElementsAttr::get(resultType, result);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> inShape = getInput().getType().getShape();
  bool identity = true;
  for (auto [start, size, step, dim] :
       llvm::zip(getStarts(), getSizes(), getSteps(), inShape))
    identity &= start == 0 && step == 1 && size == dim;
  if (identity)
    return getInput();
  DenseElementsAttr input = smallDense(adaptor.getInput());
  if (!input)
    return {};
  auto resultType = cast<ShapedType>(getType());
  return gatherElements(input, resultType, [&](int64_t i) {
    SmallVector<int64_t> index = delinearize(i, resultType.getShape());
    for (auto [d, idx] : llvm::enumerate(index))
      idx = getStarts()[d] + idx * getSteps()[d];
    return linearize(index, inShape);
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr data = smallDense(adaptor.getData());
  DenseElementsAttr indices = smallDense(adaptor.getIndices());
  if (!data || !indices)
    return {};
  auto resultType = cast<ShapedType>(getType());
  ArrayRef<int64_t> dataShape = data.getType().getShape();
  ArrayRef<int64_t> indexShape = indices.getType().getShape();
  int64_t axis = getAxis(), dim = dataShape[axis];
  SmallVector<int64_t> indexValues;
  for (const APInt &v : indices.isSplat()
                            ? SmallVector<APInt>{indices.getSplatValue<APInt>()}
                            : llvm::to_vector(indices.getValues<APInt>())) {
    int64_t index = v.getSExtValue();
    if (index < -dim || index >= dim)
      return {}; // Out of bounds: leave the error to run time.
    indexValues.push_back(index < 0 ? index + dim : index);
  }
  return gatherElements(data, resultType, [&](int64_t i) {
    SmallVector<int64_t> out = delinearize(i, resultType.getShape());
    // out = data prefix, index position, data suffix.
    ArrayRef<int64_t> outRef(out);
    int64_t rankI = indexShape.size();
    int64_t position = indices.isSplat()
                           ? 0
                           : linearize(outRef.slice(axis, rankI), indexShape);
    SmallVector<int64_t> in(outRef.take_front(axis));
    in.push_back(indexValues[position]);
    llvm::append_range(in, outRef.drop_front(axis + rankI));
    return linearize(in, dataShape);
  });
}

//===----------------------------------------------------------------------===//
// FusionGroupOp
//===----------------------------------------------------------------------===//

namespace {
/// Drops results that nobody uses, so dead work inside the group can go too.
struct DropUnusedFusionResults : OpRewritePattern<FusionGroupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusionGroupOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<unsigned> kept;
    for (OpResult result : op->getResults())
      if (!result.use_empty())
        kept.push_back(result.getResultNumber());
    if (kept.size() == op->getNumResults() || kept.empty())
      return failure();
    YieldOp yield = op.getYield();
    SmallVector<Value> values;
    SmallVector<Type> types;
    for (unsigned i : kept) {
      values.push_back(yield.getValues()[i]);
      types.push_back(op->getResult(i).getType());
    }
    auto group = FusionGroupOp::create(rewriter, op.getLoc(), types,
                                       op.getScheduleAttr());
    rewriter.inlineRegionBefore(op.getBody(), group.getBody(),
                                group.getBody().end());
    rewriter.setInsertionPoint(yield);
    rewriter.replaceOpWithNewOp<YieldOp>(yield, values);
    for (auto [newIndex, oldIndex] : llvm::enumerate(kept))
      rewriter.replaceAllUsesWith(op->getResult(oldIndex),
                                  group->getResult(newIndex));
    rewriter.eraseOp(op);
    return success();
  }
};

/// A group whose body only yields values from above does no work.
struct FoldEmptyFusionGroup : OpRewritePattern<FusionGroupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusionGroupOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    if (&body.front() != body.getTerminator())
      return failure();
    rewriter.replaceOp(op, op.getYield().getValues());
    return success();
  }
};
} // namespace

void FusionGroupOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                MLIRContext *context) {
  results.add<DropUnusedFusionResults, FoldEmptyFusionGroup>(context);
}

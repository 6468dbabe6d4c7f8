//===- QuantizationOps.cpp - import of ONNX linear quantisation -----------===//
//
// The linear quantisation operators decompose onto arithmetic the dialect
// has: quantising is a division, a round half to even, the zero point added
// and a saturating cast; integer products (MatMulInteger, ConvInteger and
// the QLinear ops) widen their operands to i32, subtract the zero points and
// accumulate in i32 with int21.matmul / int21.conv, as ONNX defines them.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

/// `value` cast to `type` elements, itself when it has them already.
FailureOr<Value> castTo(NodeImporter &n, Value value, Type type) {
  if (getElementTypeOrSelf(value.getType()) == type)
    return value;
  return n.create<CastOp>(value, type);
}

/// A per-tensor or per-axis parameter (scale, zero point) shaped to
/// broadcast against a tensor of rank `rank`: a 1-D parameter of more than
/// one element lies along `axis` (in [-rank, rank)); anything else is used
/// as it is.
FailureOr<Value> alongAxis(NodeImporter &n, Value param, int64_t rank,
                           int64_t axis) {
  auto type = cast<RankedTensorType>(param.getType());
  if (type.getRank() != 1 || type.getDimSize(0) == 1)
    return param;
  FailureOr<int64_t> dim = n.normalizeAxis(axis, rank);
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(rank, 1);
  shape[*dim] = type.getDimSize(0);
  return n.reshape(param, shape);
}

/// The node's scale (input 1) and zero point (input 2, null when absent),
/// each along its `axis` attribute (default 1) for an input of rank `rank`.
FailureOr<std::pair<Value, Value>> scaleAndZeroPoint(NodeImporter &n,
                                                     int64_t rank) {
  int64_t axis = n.attrInt("axis", 1);
  FailureOr<Value> scale = alongAxis(n, n.input(1), rank, axis);
  if (failed(scale))
    return failure();
  Value zeroPoint;
  if (n.hasInput(2)) {
    FailureOr<Value> zp = alongAxis(n, n.input(2), rank, axis);
    if (failed(zp))
      return failure();
    zeroPoint = *zp;
  }
  return std::make_pair(*scale, zeroPoint);
}

/// Whether `type` is an integer element type the quantised ops produce.
bool isQuantizedType(Type type) {
  return type.isInteger(8) || type.isUnsignedInteger(8);
}

/// OpTy(value, zeroPoint cast to `floatType`) (an AddOp or a SubOp), or
/// `value` itself when there is no zero point.
template <typename OpTy>
FailureOr<Value> withZeroPoint(NodeImporter &n, FailureOr<Value> value,
                               Value zeroPoint, Type floatType) {
  if (failed(value) || !zeroPoint)
    return value;
  FailureOr<Value> zp = castTo(n, zeroPoint, floatType);
  if (failed(zp))
    return failure();
  return n.create<OpTy>(*value, *zp);
}

/// round(value) + zeroPoint (value float, zeroPoint null or any numeric
/// type), saturated to the range of `type` and cast to it.
FailureOr<Value> saturate(NodeImporter &n, Value value, Value zeroPoint,
                          Type type) {
  Type floatType = getElementTypeOrSelf(value.getType());
  FailureOr<Value> v = withZeroPoint<AddOp>(n, n.create<RoundOp>(value),
                                           zeroPoint, floatType);
  if (failed(v))
    return failure();
  unsigned width = type.getIntOrFloatBitWidth();
  bool isUnsigned = type.isUnsignedInteger();
  double lo = isUnsigned ? 0 : -std::ldexp(1.0, width - 1);
  double hi =
      isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  v = n.create<ClipOp>(*v, n.b.getF64FloatAttr(lo), n.b.getF64FloatAttr(hi));
  if (failed(v))
    return failure();
  return n.create<CastOp>(*v, type);
}

/// The element type a QuantizeLinear-like node produces: its zero point's,
/// uint8 without one.
FailureOr<Type> quantizedType(NodeImporter &n, unsigned zeroPointInput) {
  Type type = n.hasInput(zeroPointInput)
                  ? n.inputType(zeroPointInput).getElementType()
                  : n.b.getIntegerType(8, /*isSigned=*/false);
  if (!isQuantizedType(type))
    return n.emitError() << "quantising to " << type
                         << " is not supported (int8 or uint8)",
           failure();
  return type;
}

/// QuantizeLinear: saturate(round(x / scale) + zero_point), per tensor or
/// per `axis`.
LogicalResult importQuantizeLinear(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  if (!isa<FloatType>(x.getElementType()))
    return n.emitError() << "quantising " << x.getElementType()
                         << " elements is not supported (floats only)",
           failure();
  FailureOr<Type> type = quantizedType(n, 2);
  if (failed(type))
    return failure();
  FailureOr<std::pair<Value, Value>> params = scaleAndZeroPoint(n, x.getRank());
  if (failed(params))
    return failure();
  auto [rawScale, zeroPoint] = *params;
  FailureOr<Value> scale = castTo(n, rawScale, x.getElementType());
  if (failed(scale))
    return failure();
  FailureOr<Value> scaled = n.create<DivOp>(n.input(0), *scale);
  if (failed(scaled))
    return failure();
  return n.setResult(saturate(n, *scaled, zeroPoint, *type));
}

/// (x - zero_point) * scale in the scale's float type.
FailureOr<Value> dequantize(NodeImporter &n, Value x, Value scale,
                            Value zeroPoint) {
  Type floatType = getElementTypeOrSelf(scale.getType());
  FailureOr<Value> v =
      withZeroPoint<SubOp>(n, castTo(n, x, floatType), zeroPoint, floatType);
  if (failed(v))
    return failure();
  return n.create<MulOp>(*v, scale);
}

/// DequantizeLinear: (x - zero_point) * scale, per tensor or per `axis`.
LogicalResult importDequantizeLinear(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  if (!isa<IntegerType>(x.getElementType()) || x.getElementType().isInteger(1))
    return n.emitError() << "dequantising " << x.getElementType()
                         << " elements is not supported (integers only)",
           failure();
  if (!isa<FloatType>(n.inputType(1).getElementType()))
    return n.emitError() << "expects a float scale", failure();
  FailureOr<std::pair<Value, Value>> params = scaleAndZeroPoint(n, x.getRank());
  if (failed(params))
    return failure();
  return n.setResult(
      dequantize(n, n.input(0), params->first, params->second));
}

/// DynamicQuantizeLinear, as ONNX's function body: the range of x widened
/// to include 0 maps onto [0, 255]; outputs y (uint8), the scale and the
/// zero point.
LogicalResult importDynamicQuantizeLinear(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  Type floatType = x.getElementType();
  if (!isa<FloatType>(floatType))
    return n.emitError() << "quantising " << floatType
                         << " elements is not supported (floats only)",
           failure();
  auto allAxes = n.b.getDenseI64ArrayAttr(
      llvm::to_vector(llvm::seq<int64_t>(0, x.getRank())));
  auto noKeep = n.b.getBoolAttr(false);
  Value zero = n.splat(floatType, 0), qmax = n.splat(floatType, 255);
  FailureOr<Value> lo = n.create<ReduceMinOp>(n.input(0), allAxes, noKeep);
  FailureOr<Value> hi = n.create<ReduceMaxOp>(n.input(0), allAxes, noKeep);
  if (failed(lo) || failed(hi))
    return failure();
  lo = n.create<MinOp>(*lo, zero);
  hi = n.create<MaxOp>(*hi, zero);
  if (failed(lo) || failed(hi))
    return failure();
  FailureOr<Value> range = n.create<SubOp>(*hi, *lo);
  if (failed(range))
    return failure();
  FailureOr<Value> scale = n.create<DivOp>(*range, qmax);
  if (failed(scale))
    return failure();
  FailureOr<Value> zeroPoint = n.create<DivOp>(*lo, *scale);
  if (failed(zeroPoint))
    return failure();
  zeroPoint = n.create<SubOp>(zero, *zeroPoint);
  if (failed(zeroPoint))
    return failure();
  zeroPoint = n.create<ClipOp>(*zeroPoint, n.b.getF64FloatAttr(0),
                               n.b.getF64FloatAttr(255));
  if (failed(zeroPoint))
    return failure();
  zeroPoint = n.create<RoundOp>(*zeroPoint);
  if (failed(zeroPoint))
    return failure();
  Type u8 = n.b.getIntegerType(8, /*isSigned=*/false);
  FailureOr<Value> scaled = n.create<DivOp>(n.input(0), *scale);
  if (failed(scaled))
    return failure();
  FailureOr<Value> y = saturate(n, *scaled, *zeroPoint, u8);
  if (failed(y))
    return failure();
  n.setOutput(0, *y);
  n.setOutput(1, *scale);
  if (n.numOutputs() > 2) {
    FailureOr<Value> zp = n.create<CastOp>(*zeroPoint, u8);
    if (failed(zp))
      return failure();
    n.setOutput(2, *zp);
  }
  return success();
}

/// `x` widened to i32 minus its zero point (null: none). `zeroPointAxis`
/// places a 1-D zero point of more than one element (per row, per output
/// channel); without it the zero point broadcasts as it is.
FailureOr<Value> widenAndCenter(NodeImporter &n, Value x, Value zeroPoint,
                                std::optional<int64_t> zeroPointAxis) {
  auto type = cast<RankedTensorType>(x.getType());
  if (!isQuantizedType(type.getElementType()))
    return n.emitError() << type.getElementType()
                         << " operands are not supported (int8 or uint8)",
           failure();
  Type i32 = n.b.getI32Type();
  FailureOr<Value> wide = castTo(n, x, i32);
  if (failed(wide) || !zeroPoint)
    return wide;
  FailureOr<Value> zp = zeroPoint;
  if (zeroPointAxis)
    zp = alongAxis(n, zeroPoint, type.getRank(), *zeroPointAxis);
  if (failed(zp))
    return failure();
  zp = castTo(n, *zp, i32);
  if (failed(zp))
    return failure();
  return n.create<SubOp>(*wide, *zp);
}

/// The axis of A's rows, in A and in the product, for a per-row parameter
/// of a matmul (none for 1-D A, which has one row).
std::optional<int64_t> rowAxis(Value a) {
  if (cast<RankedTensorType>(a.getType()).getRank() < 2)
    return std::nullopt;
  return -2;
}

/// (a - a_zero_point) x (b - b_zero_point) in i32; b's zero point is per
/// column, which broadcasts as it is.
FailureOr<Value> integerMatMul(NodeImporter &n, Value a, Value aZeroPoint,
                               Value b, Value bZeroPoint) {
  FailureOr<Value> lhs = widenAndCenter(n, a, aZeroPoint, rowAxis(a));
  FailureOr<Value> rhs = widenAndCenter(n, b, bZeroPoint, std::nullopt);
  if (failed(lhs) || failed(rhs))
    return failure();
  return buildMatMul(n, *lhs, *rhs);
}

/// conv(x - x_zero_point, w - w_zero_point) in i32; w's zero point is per
/// output channel.
FailureOr<Value> integerConv(NodeImporter &n, Value x, Value xZeroPoint,
                             Value w, Value wZeroPoint, Value bias) {
  FailureOr<Value> input = widenAndCenter(n, x, xZeroPoint, std::nullopt);
  FailureOr<Value> weight = widenAndCenter(n, w, wZeroPoint, 0);
  if (failed(input) || failed(weight))
    return failure();
  if (bias && getElementTypeOrSelf(bias.getType()) != n.b.getI32Type())
    return n.emitError() << "expects an int32 bias", failure();
  return buildConv(n, *input, *weight, bias);
}

LogicalResult importMatMulInteger(NodeImporter &n) {
  return n.setResult(
      integerMatMul(n, n.input(0), n.input(2), n.input(1), n.input(3)));
}

LogicalResult importConvInteger(NodeImporter &n) {
  return n.setResult(
      integerConv(n, n.input(0), n.input(2), n.input(1), n.input(3), Value()));
}

/// The QLinear epilogue: the i32 `accumulator` times
/// aScale * bScale / yScale, saturated to the output zero point's type.
/// `aScaleAxis` and `bScaleAxis` place 1-D scales of more than one element
/// in the accumulator (none: as they are).
LogicalResult requantize(NodeImporter &n, Value accumulator, Value aScale,
                         std::optional<int64_t> aScaleAxis, Value bScale,
                         std::optional<int64_t> bScaleAxis,
                         unsigned yScaleInput, unsigned yZeroPointInput) {
  FailureOr<Type> type = quantizedType(n, yZeroPointInput);
  if (failed(type))
    return failure();
  Type floatType = getElementTypeOrSelf(aScale.getType());
  if (!isa<FloatType>(floatType))
    return n.emitError() << "expects float scales", failure();
  int64_t rank = cast<RankedTensorType>(accumulator.getType()).getRank();
  FailureOr<Value> a = aScale, b = bScale;
  if (aScaleAxis)
    a = alongAxis(n, aScale, rank, *aScaleAxis);
  if (bScaleAxis)
    b = alongAxis(n, bScale, rank, *bScaleAxis);
  if (failed(a) || failed(b))
    return failure();
  b = castTo(n, *b, floatType);
  FailureOr<Value> y = castTo(n, n.input(yScaleInput), floatType);
  if (failed(b) || failed(y))
    return failure();
  FailureOr<Value> scale = n.create<MulOp>(*a, *b);
  if (failed(scale))
    return failure();
  scale = n.create<DivOp>(*scale, *y);
  if (failed(scale))
    return failure();
  FailureOr<Value> real = castTo(n, accumulator, floatType);
  if (failed(real))
    return failure();
  real = n.create<MulOp>(*real, *scale);
  if (failed(real))
    return failure();
  return n.setResult(saturate(n, *real, n.input(yZeroPointInput), *type));
}

/// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point,
/// y_scale, y_zero_point).
LogicalResult importQLinearMatMul(NodeImporter &n) {
  FailureOr<Value> acc =
      integerMatMul(n, n.input(0), n.input(2), n.input(3), n.input(5));
  if (failed(acc))
    return failure();
  return requantize(n, *acc, n.input(1), rowAxis(n.input(0)), n.input(4),
                    std::nullopt, 6, 7);
}

/// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
/// y_zero_point, B): the i32 bias joins the accumulator.
LogicalResult importQLinearConv(NodeImporter &n) {
  FailureOr<Value> acc = integerConv(n, n.input(0), n.input(2), n.input(3),
                                     n.input(5), n.input(8));
  if (failed(acc))
    return failure();
  // w_scale is per output channel: dimension 1 of the result.
  return requantize(n, *acc, n.input(1), std::nullopt, n.input(4), 1, 6, 7);
}

} // namespace

void int21::onnx_import::registerQuantizationOps(OpImportTable &t) {
  t["QuantizeLinear"] = {importQuantizeLinear, 10};
  t["DequantizeLinear"] = {importDequantizeLinear, 10};
  t["DynamicQuantizeLinear"] = {importDynamicQuantizeLinear, 11};
  t["MatMulInteger"] = {importMatMulInteger, 10};
  t["ConvInteger"] = {importConvInteger, 10};
  t["QLinearMatMul"] = {importQLinearMatMul, 10};
  t["QLinearConv"] = {importQLinearConv, 10};
}

//===- ElementwiseOps.cpp - import of ONNX elementwise operators ----------===//
//
// One table maps every ONNX unary and binary operator to its int21 op; only
// operators with attributes or composite semantics get a handler of their own.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

#include "mlir/IR/Matchers.h"

#include <cfloat>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

template <typename OpTy> LogicalResult importUnary(NodeImporter &n) {
  return n.setResult(n.create<OpTy>(n.input(0)));
}

/// Add, Sub, Mul and Div of shapes computed from dynamic extents (the shape
/// arithmetic exporters write, such as batch * heads): `index` arithmetic in
/// the program, folded where both sides are constants. A scalar or
/// one-element side broadcasts.
bool isExtentArithmetic(NodeImporter &n) {
  StringRef op = n.opType();
  return (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") &&
         (n.symbolicInput(0) || n.symbolicInput(1)) && n.isExtentsInput(0) &&
         n.isExtentsInput(1);
}

LogicalResult importExtentArithmetic(NodeImporter &n) {
  StringRef op = n.opType();
  FailureOr<SmallVector<SymbolicExtent>> lhs = n.extentsOf(0, "A");
  if (failed(lhs))
    return failure();
  FailureOr<SmallVector<SymbolicExtent>> rhs = n.extentsOf(1, "B");
  if (failed(rhs))
    return failure();
  size_t size = std::max(lhs->size(), rhs->size());
  if ((lhs->size() != size && lhs->size() != 1) ||
      (rhs->size() != size && rhs->size() != 1))
    return n.emitError() << "shapes of " << lhs->size() << " and "
                         << rhs->size() << " elements do not broadcast",
           failure();
  SmallVector<SymbolicExtent> result;
  for (size_t i = 0; i < size; ++i) {
    const SymbolicExtent &a = (*lhs)[lhs->size() == 1 ? 0 : i];
    const SymbolicExtent &b = (*rhs)[rhs->size() == 1 ? 0 : i];
    if (op == "Div" && b.isConstant() && b.constant == 0)
      return n.emitError() << "divides a shape by 0", failure();
    if (a.isConstant() && b.isConstant()) {
      int64_t v = op == "Add"   ? a.constant + b.constant
                  : op == "Sub" ? a.constant - b.constant
                  : op == "Mul" ? a.constant * b.constant
                                : a.constant / b.constant;
      result.push_back({v, Value(), 0, Value()});
      continue;
    }
    Value x = n.extentValue(a), y = n.extentValue(b);
    Value v = op == "Add"   ? Value(arith::AddIOp::create(n.b, n.loc, x, y))
              : op == "Sub" ? Value(arith::SubIOp::create(n.b, n.loc, x, y))
              : op == "Mul" ? Value(arith::MulIOp::create(n.b, n.loc, x, y))
                            : Value(arith::DivSIOp::create(n.b, n.loc, x, y));
    result.push_back({0, Value(), 0, v});
  }
  int64_t rank = std::max(n.inputType(0).getRank(), n.inputType(1).getRank());
  n.setSymbolicOutput(0, std::move(result), rank);
  return success();
}

template <typename OpTy> LogicalResult importBinary(NodeImporter &n) {
  if (isExtentArithmetic(n))
    return importExtentArithmetic(n);
  // Anything else computes with a symbolic shape as data.
  return n.setResult(n.create<OpTy>(n.dataInput(0), n.dataInput(1)));
}

/// Sum, Min, Max (and Mean): a left fold of the binary op over all inputs.
template <typename OpTy> FailureOr<Value> foldVariadic(NodeImporter &n) {
  if (n.numInputs() == 0)
    return n.emitError() << "expects at least one input", failure();
  Value acc = n.input(0);
  for (unsigned i = 1; i < n.numInputs(); ++i) {
    FailureOr<Value> next = n.create<OpTy>(acc, n.input(i));
    if (failed(next))
      return failure();
    acc = *next;
  }
  return acc;
}

template <typename OpTy> LogicalResult importVariadic(NodeImporter &n) {
  FailureOr<Value> result = foldVariadic<OpTy>(n);
  if (failed(result))
    return failure();
  n.setOutput(0, *result);
  return success();
}

LogicalResult importMean(NodeImporter &n) {
  FailureOr<Value> sum = foldVariadic<AddOp>(n);
  if (failed(sum))
    return failure();
  Type elementType = getElementTypeOrSelf(sum->getType());
  return n.setResult(
      n.create<DivOp>(*sum, n.splat(elementType, n.numInputs())));
}

LogicalResult importPow(NodeImporter &n) {
  Value base = n.input(0), exponent = n.input(1);
  Type elementType = getElementTypeOrSelf(base.getType());
  if (getElementTypeOrSelf(exponent.getType()) != elementType) {
    FailureOr<Value> cast = n.create<CastOp>(exponent, elementType);
    if (failed(cast))
      return failure();
    exponent = *cast;
  }
  return n.setResult(n.create<PowOp>(base, exponent));
}

LogicalResult importMod(NodeImporter &n) {
  Type elementType = getElementTypeOrSelf(n.input(0).getType());
  bool fmod = n.attrInt("fmod", 0) != 0;
  // int21.mod follows the divisor's sign for integers and C fmod for floats,
  // which are ONNX's fmod=0 and fmod=1 respectively. ONNX requires fmod=1
  // for floats.
  if (isa<FloatType>(elementType) && !fmod)
    return n.emitError() << "fmod=0 on " << elementType
                         << " elements is not supported (ONNX requires fmod=1 "
                            "for floats)",
           failure();
  if (isa<FloatType>(elementType) || !fmod || elementType.isUnsignedInteger())
    return importBinary<ModOp>(n);
  // Integer fmod takes the dividend's sign: x - trunc(x / y) * y, and
  // int21.div truncates.
  Value x = n.input(0), y = n.input(1);
  FailureOr<Value> quotient = n.create<DivOp>(x, y);
  if (failed(quotient))
    return failure();
  FailureOr<Value> multiple = n.create<MulOp>(*quotient, y);
  if (failed(multiple))
    return failure();
  return n.setResult(n.create<SubOp>(x, *multiple));
}

/// BitShift: LEFT or RIGHT, on (unsigned) integers.
LogicalResult importBitShift(NodeImporter &n) {
  std::string direction = n.attrString("direction", "");
  if (direction == "LEFT")
    return importBinary<ShiftLeftOp>(n);
  if (direction == "RIGHT")
    return importBinary<ShiftRightOp>(n);
  return n.emitError() << "direction '" << direction
                       << "' is not supported (LEFT or RIGHT)",
         failure();
}

/// Fails, naming the op and the type, unless input 0 has float elements.
LogicalResult expectFloatInput(NodeImporter &n) {
  Type elementType = n.inputType(0).getElementType();
  if (isa<FloatType>(elementType))
    return success();
  return n.emitError() << elementType
                       << " elements are not supported (floats only)",
         failure();
}

/// IsNaN(x) = !(x == x): only NaN is unequal to itself.
LogicalResult importIsNaN(NodeImporter &n) {
  if (failed(expectFloatInput(n)))
    return failure();
  FailureOr<Value> same = n.create<EqualOp>(n.input(0), n.input(0));
  if (failed(same))
    return failure();
  return n.setResult(n.create<NotOp>(*same));
}

/// IsInf: x == +inf and/or x == -inf (|x| == inf for both).
LogicalResult importIsInf(NodeImporter &n) {
  if (failed(expectFloatInput(n)))
    return failure();
  RankedTensorType x = n.inputType(0);
  bool positive = n.attrInt("detect_positive", 1) != 0;
  bool negative = n.attrInt("detect_negative", 1) != 0;
  if (!positive && !negative)
    return n.setResult(n.splat(n.b.getI1Type(), 0, x.getShape()));
  Value value = n.input(0);
  if (positive && negative) {
    FailureOr<Value> abs = n.create<AbsOp>(value);
    if (failed(abs))
      return failure();
    value = *abs;
  }
  double inf = std::numeric_limits<double>::infinity();
  return n.setResult(n.create<EqualOp>(
      value, n.splat(x.getElementType(), negative && !positive ? -inf : inf)));
}

/// Selu(x) = gamma * Elu(x, alpha).
LogicalResult importSelu(NodeImporter &n) {
  FailureOr<Value> elu = n.create<EluOp>(
      n.input(0),
      n.b.getF32FloatAttr(n.attrFloat("alpha", 1.67326319217681884765625f)));
  if (failed(elu))
    return failure();
  float gamma = n.attrFloat("gamma", 1.05070102214813232421875f);
  return n.setResult(
      n.create<MulOp>(*elu, n.splat(n.inputType(0).getElementType(), gamma)));
}

/// Celu(x) = alpha * Elu(x / alpha, 1), ONNX's function body.
LogicalResult importCelu(NodeImporter &n) {
  float alpha = n.attrFloat("alpha", 1.0f);
  if (alpha == 0.0f)
    return n.emitError() << "alpha must not be 0", failure();
  Type elementType = n.inputType(0).getElementType();
  Value x = n.input(0);
  if (alpha != 1.0f) {
    FailureOr<Value> scaled = n.create<DivOp>(x, n.splat(elementType, alpha));
    if (failed(scaled))
      return failure();
    x = *scaled;
  }
  FailureOr<Value> elu = n.create<EluOp>(x, n.b.getF32FloatAttr(1.0f));
  if (failed(elu) || alpha == 1.0f)
    return n.setResult(elu);
  return n.setResult(n.create<MulOp>(*elu, n.splat(elementType, alpha)));
}

/// Softsign(x) = x / (1 + |x|).
LogicalResult importSoftsign(NodeImporter &n) {
  FailureOr<Value> abs = n.create<AbsOp>(n.input(0));
  if (failed(abs))
    return failure();
  Type elementType = n.inputType(0).getElementType();
  FailureOr<Value> denominator =
      n.create<AddOp>(*abs, n.splat(elementType, 1.0));
  if (failed(denominator))
    return failure();
  return n.setResult(n.create<DivOp>(n.input(0), *denominator));
}

/// ThresholdedRelu(x) = x > alpha ? x : 0.
LogicalResult importThresholdedRelu(NodeImporter &n) {
  Type elementType = n.inputType(0).getElementType();
  FailureOr<Value> above = n.create<GreaterOp>(
      n.input(0), n.splat(elementType, n.attrFloat("alpha", 1.0f)));
  if (failed(above))
    return failure();
  return n.setResult(
      n.create<WhereOp>(*above, n.input(0), n.splat(elementType, 0)));
}

/// Shrink(x) = x + bias where x < -lambd, x - bias where x > lambd, 0
/// elsewhere. On integers the thresholds become the integers that give the
/// same comparisons (ceil(-lambd), floor(lambd)).
LogicalResult importShrink(NodeImporter &n) {
  Value x = n.input(0);
  Type elementType = n.inputType(0).getElementType();
  double lambd = n.attrFloat("lambd", 0.5f), bias = n.attrFloat("bias", 0.0f);
  double low = -lambd, high = lambd;
  bool isFloat = isa<FloatType>(elementType);
  if (!isFloat) {
    low = std::ceil(low);
    high = std::floor(high);
  }
  bool isUnsigned = elementType.isUnsignedInteger();
  if (isUnsigned && high < 0)
    return n.emitError() << "lambd < 0 on " << elementType
                         << " elements is not supported",
           failure();
  Value zero = n.splat(elementType, 0);
  Value biasValue = n.splat(elementType, bias);
  FailureOr<Value> above = n.create<GreaterOp>(x, n.splat(elementType, high));
  FailureOr<Value> minus = n.create<SubOp>(x, biasValue);
  if (failed(above) || failed(minus))
    return failure();
  FailureOr<Value> result = n.create<WhereOp>(*above, *minus, zero);
  // Unsigned elements are never below a threshold of 0 or less.
  if (failed(result) || (isUnsigned && low <= 0))
    return n.setResult(result);
  FailureOr<Value> below = n.create<LessOp>(x, n.splat(elementType, low));
  FailureOr<Value> plus = n.create<AddOp>(x, biasValue);
  if (failed(below) || failed(plus))
    return failure();
  return n.setResult(n.create<WhereOp>(*below, *plus, *result));
}

LogicalResult importLeakyRelu(NodeImporter &n) {
  return n.setResult(n.create<LeakyReluOp>(
      n.input(0), n.b.getF32FloatAttr(n.attrFloat("alpha", 0.01f))));
}

LogicalResult importElu(NodeImporter &n) {
  return n.setResult(n.create<EluOp>(
      n.input(0), n.b.getF32FloatAttr(n.attrFloat("alpha", 1.0f))));
}

LogicalResult importHardSigmoid(NodeImporter &n) {
  return n.setResult(n.create<HardSigmoidOp>(
      n.input(0), n.b.getF32FloatAttr(n.attrFloat("alpha", 0.2f)),
      n.b.getF32FloatAttr(n.attrFloat("beta", 0.5f))));
}

/// PRelu(x, slope) = x < 0 ? slope * x : x, with slope broadcast to x. A
/// 1-D slope that does not broadcast is one value per channel (dimension 1),
/// as PRelu before opset 7 defined it.
LogicalResult importPRelu(NodeImporter &n) {
  Value x = n.input(0), slope = n.input(1);
  RankedTensorType xType = n.inputType(0), slopeType = n.inputType(1);
  if (failed(broadcastShapes(xType.getShape(), slopeType.getShape())) &&
      slopeType.getRank() == 1 && xType.getRank() >= 2 &&
      slopeType.getDimSize(0) == xType.getDimSize(1)) {
    SmallVector<int64_t> perChannel(xType.getRank() - 1, 1);
    perChannel[0] = slopeType.getDimSize(0);
    FailureOr<Value> reshaped = n.reshape(slope, perChannel);
    if (failed(reshaped))
      return failure();
    slope = *reshaped;
  }
  Type elementType = getElementTypeOrSelf(x.getType());
  FailureOr<Value> negative = n.create<LessOp>(x, n.splat(elementType, 0));
  if (failed(negative))
    return failure();
  FailureOr<Value> scaled = n.create<MulOp>(x, slope);
  if (failed(scaled))
    return failure();
  return n.setResult(n.create<WhereOp>(*negative, *scaled, x));
}

/// Clip 6 has min/max attributes; Clip 11+ has optional constant inputs.
LogicalResult importClip(NodeImporter &n) {
  FloatAttr minAttr, maxAttr;
  if (n.sinceVersion < 11) {
    float lo = n.attrFloat("min", -FLT_MAX), hi = n.attrFloat("max", FLT_MAX);
    if (lo != -FLT_MAX)
      minAttr = n.b.getF64FloatAttr(lo);
    if (hi != FLT_MAX)
      maxAttr = n.b.getF64FloatAttr(hi);
  } else {
    // Constant bounds become attributes; bounds computed at run time clamp
    // with max/min (ONNX: min(max(x, lo), hi), so hi wins when lo > hi).
    Value result = n.input(0);
    for (unsigned i : {1u, 2u}) {
      if (!n.hasInput(i))
        continue;
      StringRef what = i == 1 ? "min" : "max";
      if (matchPattern(n.input(i), m_Constant())) {
        FailureOr<double> bound = n.constantScalar(i, what);
        if (failed(bound))
          return failure();
        (i == 1 ? minAttr : maxAttr) = n.b.getF64FloatAttr(*bound);
        continue;
      }
      if (n.inputType(i).getRank() != 0 &&
          n.inputType(i).getNumElements() != 1)
        return n.emitError() << "input '" << what << "' must be a scalar",
               failure();
      if (minAttr || maxAttr) {
        FailureOr<Value> clipped = n.create<ClipOp>(result, minAttr, maxAttr);
        if (failed(clipped))
          return failure();
        result = *clipped;
        minAttr = maxAttr = {};
      }
      FailureOr<Value> bound = n.reshape(n.input(i), {});
      if (failed(bound))
        return failure();
      FailureOr<Value> bounded = i == 1 ? n.create<MaxOp>(result, *bound)
                                        : n.create<MinOp>(result, *bound);
      if (failed(bounded))
        return failure();
      result = *bounded;
    }
    if (!minAttr && !maxAttr && result != n.input(0)) {
      n.setOutput(0, result);
      return success();
    }
    return n.setResult(n.create<ClipOp>(result, minAttr, maxAttr));
  }
  return n.setResult(n.create<ClipOp>(n.input(0), minAttr, maxAttr));
}

LogicalResult importCast(NodeImporter &n) {
  // A symbolic shape stays one through a cast to int64.
  if (const SmallVector<SymbolicExtent> *extents = n.symbolicInput(0);
      extents && n.opType() == "Cast" &&
      n.attrInt("to", 0) == onnx::TensorProto::INT64) {
    n.setSymbolicOutput(0, *extents, n.inputType(0).getRank());
    return success();
  }
  Type to;
  if (n.opType() == "CastLike") {
    to = getElementTypeOrSelf(n.input(1).getType());
  } else {
    int64_t dataType = n.attrInt("to", 0);
    to = convertElementType(dataType, n.ctx);
    if (!to)
      return n.emitError() << "casting to " << onnxTypeName(dataType)
                           << " is not supported",
             failure();
  }
  return n.setResult(n.create<CastOp>(n.dataInput(0), to));
}

} // namespace

void int21::onnx_import::registerElementwiseOps(OpImportTable &t) {
  t["Abs"] = {importUnary<AbsOp>};
  t["Neg"] = {importUnary<NegOp>};
  t["Sign"] = {importUnary<SignOp>, 9};
  t["Relu"] = {importUnary<ReluOp>};
  t["Exp"] = {importUnary<ExpOp>};
  t["Log"] = {importUnary<LogOp>};
  t["Sqrt"] = {importUnary<SqrtOp>};
  t["Reciprocal"] = {importUnary<ReciprocalOp>};
  t["Erf"] = {importUnary<ErfOp>, 9};
  t["Tanh"] = {importUnary<TanhOp>};
  t["Sigmoid"] = {importUnary<SigmoidOp>};
  t["Sin"] = {importUnary<SinOp>};
  t["Cos"] = {importUnary<CosOp>};
  t["Tan"] = {importUnary<TanOp>, 7};
  t["Asin"] = {importUnary<AsinOp>, 7};
  t["Acos"] = {importUnary<AcosOp>, 7};
  t["Atan"] = {importUnary<AtanOp>, 7};
  t["Sinh"] = {importUnary<SinhOp>, 9};
  t["Cosh"] = {importUnary<CoshOp>, 9};
  t["Asinh"] = {importUnary<AsinhOp>, 9};
  t["Acosh"] = {importUnary<AcoshOp>, 9};
  t["Atanh"] = {importUnary<AtanhOp>, 9};
  t["IsNaN"] = {importIsNaN, 9};
  t["IsInf"] = {importIsInf, 10};
  t["Ceil"] = {importUnary<CeilOp>};
  t["Floor"] = {importUnary<FloorOp>};
  t["Round"] = {importUnary<RoundOp>, 11};
  t["Softplus"] = {importUnary<SoftplusOp>};
  t["HardSwish"] = {importUnary<HardSwishOp>, 14};
  t["Not"] = {importUnary<NotOp>};
  t["LeakyRelu"] = {importLeakyRelu};
  t["Elu"] = {importElu};
  t["HardSigmoid"] = {importHardSigmoid};
  t["PRelu"] = {importPRelu};
  t["Selu"] = {importSelu};
  t["Celu"] = {importCelu, 12};
  t["Softsign"] = {importSoftsign};
  t["Shrink"] = {importShrink, 9};
  t["ThresholdedRelu"] = {importThresholdedRelu, 10};
  t["Clip"] = {importClip};
  t["Cast"] = {importCast};
  t["CastLike"] = {importCast, 15};

  t["Add"] = {importBinary<AddOp>};
  t["Sub"] = {importBinary<SubOp>};
  t["Mul"] = {importBinary<MulOp>};
  t["Div"] = {importBinary<DivOp>};
  t["Pow"] = {importPow};
  t["Mod"] = {importMod, 10};
  t["BitShift"] = {importBitShift, 11};
  t["And"] = {importBinary<AndOp>};
  t["Or"] = {importBinary<OrOp>};
  t["Xor"] = {importBinary<XorOp>};
  t["Equal"] = {importBinary<EqualOp>};
  t["Less"] = {importBinary<LessOp>};
  t["LessOrEqual"] = {importBinary<LessEqualOp>, 12};
  t["Greater"] = {importBinary<GreaterOp>};
  t["GreaterOrEqual"] = {importBinary<GreaterEqualOp>, 12};
  t["Where"] = {[](NodeImporter &n) -> LogicalResult {
                  FailureOr<Value> r =
                      n.create<WhereOp>(n.input(0), n.input(1), n.input(2));
                  if (failed(r))
                    return failure();
                  n.setOutput(0, *r);
                  return success();
                },
                9};

  t["Sum"] = {importVariadic<AddOp>};
  t["Min"] = {importVariadic<MinOp>};
  t["Max"] = {importVariadic<MaxOp>};
  t["Mean"] = {importMean};
  // Shape-preserving or broadcasting: their types come from the int21 ops'
  // inference, which knows dynamic extents.
  allowDynamicShapes(
      t, {"Abs",   "Neg",        "Sign",  "Relu",       "Exp",
          "Log",   "Sqrt",       "Reciprocal", "Erf",   "Tanh",
          "Sigmoid", "Sin",      "Cos",   "Tan",        "Asin",
          "Acos",  "Atan",       "Sinh",  "Cosh",       "Asinh",
          "Acosh", "Atanh",      "IsNaN", "Ceil",       "Floor",
          "Round", "Softplus",   "HardSwish", "Not",    "LeakyRelu",
          "Elu",   "HardSigmoid", "Selu", "Celu",       "Softsign",
          "Shrink", "ThresholdedRelu", "Clip", "Cast",  "CastLike",
          "Add",   "Sub",        "Mul",   "Div",        "Pow",
          "Mod",   "BitShift",   "And",   "Or",         "Xor",
          "Equal", "Less",       "LessOrEqual", "Greater",
          "GreaterOrEqual", "Where", "Sum", "Min",      "Max",
          "Mean"});
  allowSymbolicShapes(t, {"Cast", "Add", "Sub", "Mul", "Div"});
}

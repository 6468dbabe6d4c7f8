//===- ElementwiseOps.cpp - import of ONNX elementwise operators ----------===//
//
// One table maps every ONNX unary and binary operator to its int21 op; only
// operators with attributes or composite semantics get a handler of their own.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

#include "mlir/IR/Matchers.h"

#include <cfloat>

using namespace mlir;
using namespace mlir::int21;
using namespace mlir::int21::onnx_import;

namespace {

template <typename OpTy> LogicalResult importUnary(NodeImporter &n) {
  return n.setResult(n.create<OpTy>(n.input(0)));
}

template <typename OpTy> LogicalResult importBinary(NodeImporter &n) {
  return n.setResult(n.create<OpTy>(n.input(0), n.input(1)));
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
  // which are ONNX's fmod=0 and fmod=1 respectively.
  if (isa<FloatType>(elementType) != fmod)
    return n.emitError() << "fmod=" << fmod << " on " << elementType
                         << " elements is not supported",
           failure();
  return importBinary<ModOp>(n);
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
  return n.setResult(n.create<CastOp>(n.input(0), to));
}

} // namespace

void mlir::int21::onnx_import::registerElementwiseOps(OpImportTable &t) {
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
  t["Clip"] = {importClip};
  t["Cast"] = {importCast};
  t["CastLike"] = {importCast, 15};

  t["Add"] = {importBinary<AddOp>};
  t["Sub"] = {importBinary<SubOp>};
  t["Mul"] = {importBinary<MulOp>};
  t["Div"] = {importBinary<DivOp>};
  t["Pow"] = {importPow};
  t["Mod"] = {importMod, 10};
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
}

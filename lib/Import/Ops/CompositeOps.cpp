//===- CompositeOps.cpp - ONNX functions imported as int21 compositions --===//
//
// Operators that ONNX defines as functions of simpler ones and that have no
// better kernel of their own: InstanceNormalization,
// MeanVarianceNormalization and LRN decompose into reductions, slices and
// elementwise ops; the window generators (Hann, Hamming, Blackman) depend
// only on a constant size and become constants.
//
//===----------------------------------------------------------------------===//

#include "Composer.h"

#include <cmath>

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

/// InstanceNormalization: per (n, c), normalise over the spatial axes, then
/// scale and shift per channel.
LogicalResult importInstanceNorm(NodeImporter &n) {
  RankedTensorType type = n.inputType(0);
  if (failed(n.requireRankAtLeast(type, 3, "input", "[N, C, D...]")))
    return failure();
  int64_t rank = type.getRank();
  int64_t channels = type.getDimSize(1);
  for (unsigned i : {1u, 2u})
    if (n.inputType(i).getRank() != 1 ||
        n.inputType(i).getDimSize(0) != channels)
      return n.emitError() << (i == 1 ? "scale" : "B") << " must be ["
                           << channels << "], one per channel",
             failure();
  Type elementType = type.getElementType();
  SmallVector<int64_t> spatial = llvm::to_vector(llvm::seq<int64_t>(2, rank));
  SmallVector<int64_t> perChannel(rank - 1, 1);
  perChannel[0] = channels;
  Composer c(n);
  Value x = n.input(0);
  Value mean = c.reduceMean(x, spatial);
  Value centered = c.op<SubOp>(x, mean);
  Value variance = c.reduceMean(c.op<MulOp>(centered, centered), spatial);
  Value epsilon = n.splat(elementType, n.attrFloat("epsilon", 1e-5f));
  Value invStdDev = c.op<RsqrtOp>(c.op<AddOp>(variance, epsilon));
  Value normalized = c.op<MulOp>(centered, invStdDev);
  Value scaled = c.op<MulOp>(normalized, c.reshape(n.input(1), perChannel));
  return c.setResult(c.op<AddOp>(scaled, c.reshape(n.input(2), perChannel)));
}

/// MeanVarianceNormalization: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9)
/// over `axes`, as the ONNX function body computes it.
LogicalResult importMeanVarianceNorm(NodeImporter &n) {
  RankedTensorType type = n.inputType(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  for (int64_t axis : n.attrInts("axes", {0, 2, 3})) {
    FailureOr<int64_t> a = n.normalizeAxis(axis, rank, "axes");
    if (failed(a))
      return failure();
    axes.push_back(*a);
  }
  llvm::sort(axes);
  axes.erase(llvm::unique(axes), axes.end());
  Composer c(n);
  Value x = n.input(0);
  Value mean = c.reduceMean(x, axes);
  Value meanOfSquares = c.reduceMean(c.op<MulOp>(x, x), axes);
  Value variance = c.op<SubOp>(meanOfSquares, c.op<MulOp>(mean, mean));
  Value stdDev = c.op<SqrtOp>(variance);
  Value denominator =
      c.op<AddOp>(stdDev, n.splat(type.getElementType(), 1e-9));
  return c.setResult(c.op<DivOp>(c.op<SubOp>(x, mean), denominator));
}

/// LRN: x / (bias + alpha / size * sum of squares over `size` neighbouring
/// channels)^beta. The window sum adds `size` shifted slices of the squares,
/// zero-padded along the channels.
LogicalResult importLRN(NodeImporter &n) {
  RankedTensorType type = n.inputType(0);
  if (failed(n.requireRankAtLeast(type, 3, "input", "[N, C, D...]")))
    return failure();
  int64_t rank = type.getRank();
  int64_t size = n.attrInt("size", 0);
  if (size < 1)
    return n.emitError() << "size must be positive, got " << size, failure();
  double alpha = n.attrFloat("alpha", 1e-4f), beta = n.attrFloat("beta", 0.75f),
         bias = n.attrFloat("bias", 1.0f);
  Type elementType = type.getElementType();
  int64_t before = (size - 1) / 2, after = size - 1 - before;

  Composer c(n);
  Value x = n.input(0);
  Value squares = c.op<MulOp>(x, x);
  SmallVector<int64_t> pads(2 * rank, 0);
  pads[1] = before;
  pads[rank + 1] = after;
  Value padded = c.op<PadOp>(squares, n.b.getDenseI64ArrayAttr(pads),
                             PadModeAttr::get(n.ctx, PadMode::Constant),
                             n.b.getF64FloatAttr(0.0));
  Value sum;
  for (int64_t k = 0; k < size && !c.hasFailed(); ++k) {
    Value window = c.slice(padded, 1, k, type.getDimSize(1));
    sum = sum ? c.op<AddOp>(sum, window) : window;
  }
  Value scaled = c.op<MulOp>(sum, n.splat(elementType, alpha / size));
  Value base = c.op<AddOp>(scaled, n.splat(elementType, bias));
  Value denominator = c.op<PowOp>(base, n.splat(elementType, beta));
  return c.setResult(c.op<DivOp>(x, denominator));
}

/// HannWindow, HammingWindow and BlackmanWindow: a constant of `size`
/// elements (size must be a constant), in `output_datatype`.
/// A window of a size given as data: its positions i (int21.iota of the
/// size read at run time), the phase 2 pi i / N (N the size, or the size - 1
/// for a symmetric window; 0 where N is not positive), then the window's
/// cosine terms, in f32.
LogicalResult importRuntimeWindow(NodeImporter &n, Type elementType,
                                  bool periodic) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type f32 = b.getF32Type();
  Value size = n.scalarValue(0);
  if (!size.getType().isInteger(64))
    size = arith::ExtSIOp::create(b, loc, b.getI64Type(), size);
  Value count = n.nonNegative(
      arith::IndexCastOp::create(b, loc, b.getIndexType(), size));
  FailureOr<Value> sizeTensor = n.scalarInput(0, "size");
  if (failed(sizeTensor))
    return failure();
  FailureOr<Value> denominator = n.create<CastOp>(*sizeTensor, f32);
  if (failed(denominator))
    return failure();
  if (!periodic)
    denominator = n.create<SubOp>(*denominator, n.splat(f32, 1));
  FailureOr<Value> positive =
      failed(denominator) ? denominator
                          : n.create<GreaterOp>(*denominator, n.splat(f32, 0));
  FailureOr<Value> step =
      failed(denominator) ? denominator
                          : n.create<DivOp>(n.splat(f32, 2 * M_PI), *denominator);
  if (failed(positive) || failed(step))
    return failure();
  step = n.create<WhereOp>(*positive, *step, n.splat(f32, 0));
  FailureOr<Value> positions = n.create<CastOp>(n.positions(1, 0, count), f32);
  if (failed(step) || failed(positions))
    return failure();
  FailureOr<Value> phase = n.create<MulOp>(*positions, *step);
  if (failed(phase))
    return failure();
  // a0 - a1 cos(phase) (+ a2 cos(2 phase)).
  StringRef kind = n.opType();
  double a0 = kind == "HannWindow"      ? 0.5
              : kind == "HammingWindow" ? 25.0 / 46.0
                                        : 0.42;
  double a1 = kind == "HannWindow"      ? 0.5
              : kind == "HammingWindow" ? 1 - 25.0 / 46.0
                                        : 0.5;
  FailureOr<Value> first = n.create<CosOp>(*phase);
  if (failed(first))
    return failure();
  first = n.create<MulOp>(*first, n.splat(f32, a1));
  if (failed(first))
    return failure();
  FailureOr<Value> window = n.create<SubOp>(n.splat(f32, a0), *first);
  if (failed(window))
    return failure();
  if (kind == "BlackmanWindow") {
    FailureOr<Value> twice = n.create<MulOp>(*phase, n.splat(f32, 2));
    if (failed(twice))
      return failure();
    FailureOr<Value> second = n.create<CosOp>(*twice);
    if (failed(second))
      return failure();
    second = n.create<MulOp>(*second, n.splat(f32, 0.08));
    if (failed(second))
      return failure();
    window = n.create<AddOp>(*window, *second);
    if (failed(window))
      return failure();
  }
  if (elementType != f32)
    window = n.create<CastOp>(*window, elementType);
  return n.setResult(window);
}

/// The windows' element type (output_datatype), or failure.
FailureOr<Type> windowElementType(NodeImporter &n) {
  int64_t dataType = n.attrInt("output_datatype", 1);
  Type elementType = convertElementType(dataType, n.ctx);
  if (!elementType || elementType.isInteger(1))
    return n.emitError() << "output_datatype " << onnxTypeName(dataType)
                         << " is not supported",
           failure();
  return elementType;
}

LogicalResult importWindow(NodeImporter &n) {
  if (n.isRuntimeInput(0)) {
    FailureOr<Type> elementType = windowElementType(n);
    if (failed(elementType))
      return failure();
    return importRuntimeWindow(n, *elementType, n.attrInt("periodic", 1) != 0);
  }
  FailureOr<double> sizeValue = n.constantScalar(0, "size");
  if (failed(sizeValue))
    return failure();
  int64_t size = static_cast<int64_t>(*sizeValue);
  if (size < 0 || size > (int64_t(1) << 24))
    return n.emitError() << "size must be in [0, 2^24], got " << size,
           failure();
  FailureOr<Type> windowType = windowElementType(n);
  if (failed(windowType))
    return failure();
  Type elementType = *windowType;
  bool periodic = n.attrInt("periodic", 1) != 0;
  double denominator = periodic ? size : size - 1;
  StringRef kind = n.opType();
  SmallVector<double> values;
  for (int64_t i = 0; i < size; ++i) {
    double phase = denominator > 0 ? 2 * M_PI * i / denominator : 0;
    double v;
    if (kind == "HannWindow")
      v = 0.5 - 0.5 * std::cos(phase);
    else if (kind == "HammingWindow")
      v = 25.0 / 46.0 - (1 - 25.0 / 46.0) * std::cos(phase);
    else
      v = 0.42 - 0.5 * std::cos(phase) + 0.08 * std::cos(2 * phase);
    values.push_back(v);
  }
  auto type = RankedTensorType::get({size}, elementType);
  SmallVector<Attribute> elements;
  for (double v : values) {
    if (auto f = dyn_cast<FloatType>(elementType))
      elements.push_back(FloatAttr::get(f, v));
    else
      elements.push_back(IntegerAttr::get(elementType, static_cast<int64_t>(v)));
  }
  n.setOutput(0, n.constant(DenseElementsAttr::get(type, elements)));
  return success();
}

} // namespace

void int21::onnx_import::registerCompositeOps(OpImportTable &t) {
  t["InstanceNormalization"] = {importInstanceNorm};
  t["MeanVarianceNormalization"] = {importMeanVarianceNorm, 9};
  t["LRN"] = {importLRN};
  t["HannWindow"] = {importWindow, 17};
  t["HammingWindow"] = {importWindow, 17};
  t["BlackmanWindow"] = {importWindow, 17};
}

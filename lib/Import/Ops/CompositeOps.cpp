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
LogicalResult importWindow(NodeImporter &n) {
  FailureOr<double> sizeValue = n.constantScalar(0, "size");
  if (failed(sizeValue))
    return failure();
  int64_t size = static_cast<int64_t>(*sizeValue);
  if (size < 0 || size > (int64_t(1) << 24))
    return n.emitError() << "size must be in [0, 2^24], got " << size,
           failure();
  int64_t dataType = n.attrInt("output_datatype", 1);
  Type elementType = convertElementType(dataType, n.ctx);
  if (!elementType || elementType.isInteger(1))
    return n.emitError() << "output_datatype " << onnxTypeName(dataType)
                         << " is not supported",
           failure();
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

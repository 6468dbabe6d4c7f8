//===- NNOps.cpp - import of ONNX convolution, pooling, GEMM, norms -------===//

#include "../NodeImporter.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

/// Window attributes of a convolution or pooling node, resolved: explicit
/// pads for every auto_pad mode.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

/// Reads kernel_shape (defaulting to `defaultKernel`), strides, dilations
/// and pads/auto_pad for `k` spatial dimensions of sizes `spatial`.
FailureOr<Window> resolveWindow(NodeImporter &n, ArrayRef<int64_t> spatial,
                                ArrayRef<int64_t> defaultKernel) {
  int64_t k = spatial.size();
  Window w;
  w.kernel = n.attrInts("kernel_shape", defaultKernel);
  w.strides = n.attrInts("strides", SmallVector<int64_t>(k, 1));
  w.dilations = n.attrInts("dilations", SmallVector<int64_t>(k, 1));
  if (static_cast<int64_t>(w.kernel.size()) != k ||
      static_cast<int64_t>(w.strides.size()) != k ||
      static_cast<int64_t>(w.dilations.size()) != k)
    return n.emitError() << "kernel_shape, strides and dilations need " << k
                         << " entries for " << k << " spatial dimensions",
           failure();
  if (llvm::any_of(w.strides, [](int64_t s) { return s <= 0; }))
    return n.emitError() << "strides must be positive", failure();
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    w.pads = n.attrInts("pads", SmallVector<int64_t>(2 * k, 0));
    if (static_cast<int64_t>(w.pads.size()) != 2 * k)
      return n.emitError() << "pads needs " << 2 * k << " entries, got "
                           << w.pads.size(),
             failure();
  } else if (autoPad == "VALID") {
    w.pads.assign(2 * k, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    if (llvm::any_of(spatial, ShapedType::isDynamic))
      return n.emitError() << "auto_pad " << autoPad
                           << " on a dynamic spatial dimension is not "
                              "supported: give the input a static shape "
                              "(--input-shape)",
             failure();
    w.pads.assign(2 * k, 0);
    for (int64_t i = 0; i < k; ++i) {
      int64_t out = llvm::divideCeil(spatial[i], w.strides[i]);
      int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[i] + extent - spatial[i]);
      int64_t small = total / 2, large = total - total / 2;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[i + k] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else {
    return n.emitError() << "unknown auto_pad '" << autoPad << "'", failure();
  }
  return w;
}

} // namespace

FailureOr<Value> int21::onnx_import::buildConv(NodeImporter &n,
                                                     Value input, Value weight,
                                                     Value bias) {
  auto x = cast<RankedTensorType>(input.getType());
  auto w = cast<RankedTensorType>(weight.getType());
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return n.emitError() << "expects input and weight of one rank, 3 or more",
           failure();
  FailureOr<Window> window =
      resolveWindow(n, x.getShape().drop_front(2), w.getShape().drop_front(2));
  if (failed(window))
    return failure();
  if (ArrayRef<int64_t>(window->kernel) != w.getShape().drop_front(2))
    return n.emitError() << "kernel_shape does not match the weight's shape "
                         << w,
           failure();
  return n.create<ConvOp>(input, weight, bias,
                          n.b.getDenseI64ArrayAttr(window->strides),
                          n.b.getDenseI64ArrayAttr(window->pads),
                          n.b.getDenseI64ArrayAttr(window->dilations),
                          n.b.getI64IntegerAttr(n.attrInt("group", 1)));
}

namespace {

LogicalResult importConv(NodeImporter &n) {
  return n.setResult(buildConv(n, n.input(0), n.input(1), n.input(2)));
}

LogicalResult importConvTranspose(NodeImporter &n) {
  RankedTensorType x = n.inputType(0), w = n.inputType(1);
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return n.emitError() << "expects input and weight of one rank, 3 or more",
           failure();
  int64_t k = x.getRank() - 2;
  ArrayRef<int64_t> spatial = x.getShape().drop_front(2);
  SmallVector<int64_t> kernel =
      n.attrInts("kernel_shape", w.getShape().drop_front(2));
  SmallVector<int64_t> strides =
      n.attrInts("strides", SmallVector<int64_t>(k, 1));
  SmallVector<int64_t> dilations =
      n.attrInts("dilations", SmallVector<int64_t>(k, 1));
  SmallVector<int64_t> outputPadding =
      n.attrInts("output_padding", SmallVector<int64_t>(k, 0));
  if (static_cast<int64_t>(kernel.size()) != k ||
      static_cast<int64_t>(strides.size()) != k ||
      static_cast<int64_t>(dilations.size()) != k ||
      static_cast<int64_t>(outputPadding.size()) != k)
    return n.emitError() << "kernel_shape, strides, dilations and "
                            "output_padding need "
                         << k << " entries",
           failure();
  SmallVector<int64_t> outputShape = n.attrInts("output_shape");
  if (static_cast<int64_t>(outputShape.size()) == k + 2)
    outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  SmallVector<int64_t> pads(2 * k, 0);
  if (autoPad == "NOTSET" && outputShape.empty()) {
    pads = n.attrInts("pads", pads);
    if (static_cast<int64_t>(pads.size()) != 2 * k)
      return n.emitError() << "pads needs " << 2 * k << " entries", failure();
  } else if (autoPad != "VALID" || !outputShape.empty()) {
    if (outputShape.empty())
      for (int64_t i = 0; i < k; ++i)
        outputShape.push_back(spatial[i] * strides[i]);
    if (static_cast<int64_t>(outputShape.size()) != k)
      return n.emitError() << "output_shape needs " << k << " entries",
             failure();
    for (int64_t i = 0; i < k; ++i) {
      int64_t full = strides[i] * (spatial[i] - 1) + outputPadding[i] +
                     (kernel[i] - 1) * dilations[i] + 1;
      int64_t total = full - outputShape[i];
      if (total < 0) {
        // The requested output is larger: extend it at the end.
        outputPadding[i] -= total;
        continue;
      }
      int64_t small = total / 2, large = total - total / 2;
      bool upper = autoPad != "SAME_LOWER";
      pads[i] = upper ? small : large;
      pads[i + k] = upper ? large : small;
    }
  }
  return n.setResult(n.create<ConvTransposeOp>(
      n.input(0), n.input(1), n.input(2), n.b.getDenseI64ArrayAttr(strides),
      n.b.getDenseI64ArrayAttr(pads), n.b.getDenseI64ArrayAttr(dilations),
      n.b.getDenseI64ArrayAttr(outputPadding),
      n.b.getI64IntegerAttr(n.attrInt("group", 1))));
}

/// The mean of `x` over `axes` and its (biased) variance, the reduced
/// dimensions kept as 1.
FailureOr<std::pair<Value, Value>> meanAndVariance(NodeImporter &n, Value x,
                                                   DenseI64ArrayAttr axes) {
  BoolAttr keep = n.b.getBoolAttr(true);
  FailureOr<Value> mean = n.create<ReduceMeanOp>(x, axes, keep);
  if (failed(mean))
    return failure();
  FailureOr<Value> centred = n.create<SubOp>(x, *mean);
  if (failed(centred))
    return failure();
  FailureOr<Value> squares = n.create<MulOp>(*centred, *centred);
  if (failed(squares))
    return failure();
  FailureOr<Value> variance = n.create<ReduceMeanOp>(*squares, axes, keep);
  if (failed(variance))
    return failure();
  return std::make_pair(*mean, *variance);
}

/// BatchNormalization in training mode (opset 14 on): normalised with the
/// batch's own mean and (biased) variance over every axis but the channels,
/// and the running statistics updated with them:
/// running = given * momentum + batch * (1 - momentum).
LogicalResult importTrainingBatchNorm(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  if (x.getRank() < 2)
    return n.emitError() << "expects an input of rank 2 or more", failure();
  if (!x.hasStaticShape())
    return n.emitError() << "training mode on dynamic extents is not "
                            "supported: give the inputs static shapes with "
                            "--input-shape",
           failure();
  Type type = x.getElementType();
  int64_t channels = x.getDimSize(1);
  SmallVector<int64_t> axes{0};
  for (int64_t d = 2; d < x.getRank(); ++d)
    axes.push_back(d);
  FailureOr<std::pair<Value, Value>> stats =
      meanAndVariance(n, n.input(0), n.b.getDenseI64ArrayAttr(axes));
  if (failed(stats))
    return failure();
  FailureOr<Value> meanC = n.reshape(stats->first, {channels});
  FailureOr<Value> varC = n.reshape(stats->second, {channels});
  if (failed(meanC) || failed(varC))
    return failure();
  FailureOr<Value> y = n.create<BatchNormOp>(
      n.input(0), n.input(1), n.input(2), *meanC, *varC,
      n.b.getF32FloatAttr(n.attrFloat("epsilon", 1e-5f)));
  if (failed(y))
    return failure();
  n.setOutput(0, *y);
  double momentum = n.attrFloat("momentum", 0.9f);
  for (unsigned i = 1; i < 3; ++i) {
    if (!n.outputUsed(i))
      continue;
    Value given = n.input(i + 2);
    Value batch = i == 1 ? *meanC : *varC;
    Type statType = cast<RankedTensorType>(given.getType()).getElementType();
    if (statType != type) {
      FailureOr<Value> cast = n.create<CastOp>(batch, statType);
      if (failed(cast))
        return failure();
      batch = *cast;
    }
    FailureOr<Value> old = n.create<MulOp>(given, n.splat(statType, momentum));
    FailureOr<Value> fresh =
        n.create<MulOp>(batch, n.splat(statType, 1 - momentum));
    if (failed(old) || failed(fresh))
      return failure();
    FailureOr<Value> running = n.create<AddOp>(*old, *fresh);
    if (failed(running))
      return failure();
    n.setOutput(i, *running);
  }
  return success();
}

LogicalResult importBatchNorm(NodeImporter &n) {
  if (n.attrInt("training_mode", 0) != 0)
    return importTrainingBatchNorm(n);
  if (failed(n.onlyFirstOutputs(1, "running statistics are for training")))
    return failure();
  return n.setResult(n.create<BatchNormOp>(
      n.input(0), n.input(1), n.input(2), n.input(3), n.input(4),
      n.b.getF32FloatAttr(n.attrFloat("epsilon", 1e-5f))));
}

template <typename OpTy> LogicalResult importPool(NodeImporter &n) {
  bool indices = std::is_same_v<OpTy, MaxPoolOp> && n.outputUsed(1);
  if (!indices &&
      failed(n.onlyFirstOutputs(1, "pooling indices are not computed")))
    return failure();
  RankedTensorType x = n.inputType(0);
  if (x.getRank() < 3)
    return n.emitError() << "expects an input of rank 3 or more", failure();
  if (!n.hasAttr("kernel_shape"))
    return n.emitError() << "missing attribute kernel_shape", failure();
  FailureOr<Window> w = resolveWindow(n, x.getShape().drop_front(2), {});
  if (failed(w))
    return failure();
  Builder &b = n.b;
  if (indices) {
    if (!x.hasStaticShape())
      return n.emitError() << "indices on dynamic extents are not supported: "
                              "give the inputs static shapes with "
                              "--input-shape",
             failure();
    FailureOr<Value> positions = n.create<MaxPoolIndicesOp>(
        n.input(0), b.getDenseI64ArrayAttr(w->kernel),
        b.getDenseI64ArrayAttr(w->strides), b.getDenseI64ArrayAttr(w->pads),
        b.getDenseI64ArrayAttr(w->dilations),
        b.getBoolAttr(n.attrInt("ceil_mode", 0)),
        b.getBoolAttr(n.attrInt("storage_order", 0)));
    if (failed(positions))
      return failure();
    n.setOutput(1, *positions);
  }
  FailureOr<Value> r;
  if constexpr (std::is_same_v<OpTy, AvgPoolOp>)
    r = n.create<AvgPoolOp>(n.input(0), b.getDenseI64ArrayAttr(w->kernel),
                            b.getDenseI64ArrayAttr(w->strides),
                            b.getDenseI64ArrayAttr(w->pads),
                            b.getDenseI64ArrayAttr(w->dilations),
                            b.getBoolAttr(n.attrInt("ceil_mode", 0)),
                            b.getBoolAttr(n.attrInt("count_include_pad", 0)));
  else
    r = n.create<MaxPoolOp>(n.input(0), b.getDenseI64ArrayAttr(w->kernel),
                            b.getDenseI64ArrayAttr(w->strides),
                            b.getDenseI64ArrayAttr(w->pads),
                            b.getDenseI64ArrayAttr(w->dilations),
                            b.getBoolAttr(n.attrInt("ceil_mode", 0)));
  if (failed(r))
    return failure();
  n.setOutput(0, *r);
  return success();
}

/// GlobalAveragePool / GlobalMaxPool: a reduction over the spatial axes.
template <typename ReduceOpTy> LogicalResult importGlobalPool(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  if (x.getRank() < 3)
    return n.emitError() << "expects an input of rank 3 or more", failure();
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(2, x.getRank()));
  return n.setResult(n.create<ReduceOpTy>(
      n.input(0), n.b.getDenseI64ArrayAttr(axes), n.b.getBoolAttr(true)));
}

FailureOr<Value> transpose2D(NodeImporter &n, Value v) {
  return n.create<TransposeOp>(v, n.b.getDenseI64ArrayAttr({1, 0}));
}

/// Gemm: alpha * A' B' + beta * C, as transposes, a matmul and epilogues.
LogicalResult importGemm(NodeImporter &n) {
  Value a = n.input(0), b = n.input(1);
  if (n.inputType(0).getRank() != 2 || n.inputType(1).getRank() != 2)
    return n.emitError() << "expects 2-D A and B", failure();
  if (n.attrInt("transA", 0)) {
    FailureOr<Value> t = transpose2D(n, a);
    if (failed(t))
      return failure();
    a = *t;
  }
  if (n.attrInt("transB", 0)) {
    FailureOr<Value> t = transpose2D(n, b);
    if (failed(t))
      return failure();
    b = *t;
  }
  FailureOr<Value> y = n.create<MatMulOp>(a, b);
  if (failed(y))
    return failure();
  Type elementType = getElementTypeOrSelf(y->getType());
  float alpha = n.attrFloat("alpha", 1.0f), beta = n.attrFloat("beta", 1.0f);
  if (alpha != 1.0f) {
    y = n.create<MulOp>(*y, n.splat(elementType, alpha));
    if (failed(y))
      return failure();
  }
  if (n.hasInput(2) && beta != 0.0f) {
    Value c = n.input(2);
    if (beta != 1.0f) {
      FailureOr<Value> scaled = n.create<MulOp>(c, n.splat(elementType, beta));
      if (failed(scaled))
        return failure();
      c = *scaled;
    }
    y = n.create<AddOp>(*y, c);
    if (failed(y))
      return failure();
  }
  n.setOutput(0, *y);
  return success();
}

} // namespace

FailureOr<Value> int21::onnx_import::buildMatMul(NodeImporter &n, Value a,
                                                       Value b) {
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(b.getType());
  if (aType.getRank() == 0 || bType.getRank() == 0)
    return n.emitError() << "expects operands of rank 1 or more", failure();
  bool vecA = aType.getRank() == 1, vecB = bType.getRank() == 1;
  if (vecA) {
    FailureOr<Value> r = n.reshape(a, {1, aType.getDimSize(0)});
    if (failed(r))
      return failure();
    a = *r;
  }
  if (vecB) {
    FailureOr<Value> r = n.reshape(b, {bType.getDimSize(0), 1});
    if (failed(r))
      return failure();
    b = *r;
  }
  FailureOr<Value> y = n.create<MatMulOp>(a, b);
  if (failed(y))
    return failure();
  if (vecA || vecB) {
    SmallVector<int64_t> shape(cast<RankedTensorType>(y->getType()).getShape());
    if (vecB)
      shape.erase(shape.end() - 1);
    if (vecA)
      shape.erase(shape.end() - (vecB ? 1 : 2));
    y = n.reshape(*y, shape);
  }
  return y;
}

namespace {

LogicalResult importMatMul(NodeImporter &n) {
  return n.setResult(buildMatMul(n, n.input(0), n.input(1)));
}

/// Softmax and LogSoftmax. Before opset 13 the input is coerced to 2-D at
/// `axis` (default 1); from 13 on the op works along `axis` (default -1).
template <typename OpTy> LogicalResult importSoftmax(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  int64_t rank = x.getRank();
  bool coerce = n.sinceVersion < 13;
  FailureOr<int64_t> axis = n.normalizeAxis(n.attrInt("axis", coerce ? 1 : -1),
                                            std::max<int64_t>(rank, 1));
  if (failed(axis))
    return failure();
  Value input = n.input(0);
  if (coerce && *axis != rank - 1) {
    FailureOr<Value> flat = n.flattenAt(input, *axis);
    if (failed(flat))
      return failure();
    FailureOr<Value> r = n.create<OpTy>(*flat, n.b.getI64IntegerAttr(1));
    if (failed(r))
      return failure();
    r = n.reshape(*r, x.getShape());
    if (failed(r))
      return failure();
    n.setOutput(0, *r);
    return success();
  }
  return n.setResult(n.create<OpTy>(input, n.b.getI64IntegerAttr(*axis)));
}

/// LayerNormalization; its optional Mean and InvStdDev outputs (shaped like
/// the input with the normalised dimensions kept as 1) are computed with
/// reductions when something reads them.
LogicalResult importLayerNorm(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  FailureOr<int64_t> axis = n.normalizeAxis(n.attrInt("axis", -1), x.getRank());
  if (failed(axis))
    return failure();
  float epsilon = n.attrFloat("epsilon", 1e-5f);
  if (failed(n.setResult(n.create<LayerNormOp>(
          n.input(0), n.input(1), n.input(2), n.b.getI64IntegerAttr(*axis),
          n.b.getF32FloatAttr(epsilon)))))
    return failure();
  if (!n.outputUsed(1) && !n.outputUsed(2))
    return success();
  auto axes = n.b.getDenseI64ArrayAttr(
      llvm::to_vector(llvm::seq<int64_t>(*axis, x.getRank())));
  FailureOr<std::pair<Value, Value>> stats =
      meanAndVariance(n, n.input(0), axes);
  if (failed(stats))
    return failure();
  n.setOutput(1, stats->first);
  FailureOr<Value> shifted = n.create<AddOp>(
      stats->second, n.splat(x.getElementType(), epsilon));
  if (failed(shifted))
    return failure();
  FailureOr<Value> invStdDev = n.create<RsqrtOp>(*shifted);
  if (failed(invStdDev))
    return failure();
  n.setOutput(2, *invStdDev);
  return success();
}

} // namespace

void int21::onnx_import::registerNNOps(OpImportTable &t) {
  t["Conv"] = {importConv};
  t["ConvTranspose"] = {importConvTranspose};
  t["BatchNormalization"] = {importBatchNorm};
  t["MaxPool"] = {importPool<MaxPoolOp>};
  t["AveragePool"] = {importPool<AvgPoolOp>};
  t["GlobalAveragePool"] = {importGlobalPool<ReduceMeanOp>};
  t["GlobalMaxPool"] = {importGlobalPool<ReduceMaxOp>};
  t["Gemm"] = {importGemm};
  t["MatMul"] = {importMatMul};
  t["Softmax"] = {importSoftmax<SoftmaxOp>};
  t["LogSoftmax"] = {importSoftmax<LogSoftmaxOp>};
  t["LayerNormalization"] = {importLayerNorm, 17};
  // Windows over dynamic spatial extents take explicit pads (auto_pad SAME
  // on a dynamic extent is refused by resolveWindow).
  allowDynamicShapes(t, {"Conv", "BatchNormalization", "MaxPool",
                         "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
                         "Gemm", "MatMul", "Softmax", "LogSoftmax",
                         "LayerNormalization"});
}

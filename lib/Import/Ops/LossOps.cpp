//===- LossOps.cpp - import of ONNX loss operators -----------------------===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss are ONNX functions;
// they decompose here into int21 ops. The class each target selects is a
// one-hot mask (target == class index), so picking `input[n, target[n]]`
// and its weight are masked sums over the class axis: no gather, and a
// target equal to ignore_index (or outside [0, C)) selects nothing.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

/// The loss of every element and how it is reduced.
struct LossParts {
  /// -input[n, target[n, d...], d...] * weight[target], [N, d...].
  Value loss;
  /// weight[target] (1 without weights), 0 where ignored, [N, d...].
  Value weight;
};

/// Builds the unreduced NLL loss of log-probabilities `input` [N, C, d...]
/// for class indices `target` [N, d...] with optional `weight` [C].
FailureOr<LossParts> buildNLL(NodeImporter &n, Value input, Value target,
                              Value weight) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto targetType = cast<RankedTensorType>(target.getType());
  if (failed(n.requireRankAtLeast(inputType, 2, "input", "[N, C, ...]")))
    return failure();
  int64_t rank = inputType.getRank();
  if (!isa<FloatType>(inputType.getElementType()))
    return n.emitError() << "input must hold floats, not "
                         << inputType.getElementType(),
           failure();
  if (!isa<IntegerType>(targetType.getElementType()))
    return n.emitError() << "target must hold integers, not "
                         << targetType.getElementType(),
           failure();
  SmallVector<int64_t> expected = {inputType.getDimSize(0)};
  llvm::append_range(expected, inputType.getShape().drop_front(2));
  if (targetType.getShape() != ArrayRef<int64_t>(expected))
    return n.emitError() << "target shape must be the input's without the "
                         << "class dimension",
           failure();
  int64_t classes = inputType.getDimSize(1);
  Type floatType = inputType.getElementType();
  Type indexType = targetType.getElementType();

  // target as [N, 1, d...] against the class indices as [1, C, 1...].
  SmallVector<int64_t> targetShape(expected);
  targetShape.insert(targetShape.begin() + 1, 1);
  FailureOr<Value> t = n.reshape(target, targetShape);
  if (failed(t))
    return failure();
  SmallVector<int64_t> classShape(rank, 1);
  classShape[1] = classes;
  Value classIds = n.positions(rank, 1, classes, indexType);
  FailureOr<Value> mask = n.create<EqualOp>(*t, classIds);
  if (failed(mask))
    return failure();
  if (n.hasAttr("ignore_index")) {
    Value ignored = n.splat(indexType, n.attrInt("ignore_index", 0));
    FailureOr<Value> isIgnored = n.create<EqualOp>(*t, ignored);
    if (failed(isIgnored))
      return failure();
    FailureOr<Value> kept = n.create<NotOp>(*isIgnored);
    if (failed(kept))
      return failure();
    mask = n.create<AndOp>(*mask, *kept);
    if (failed(mask))
      return failure();
  }
  FailureOr<Value> selected = n.create<CastOp>(*mask, floatType);
  if (failed(selected))
    return failure();

  auto sumClasses = [&](Value v) {
    return n.create<ReduceSumOp>(v, n.b.getDenseI64ArrayAttr({1}),
                                 n.b.getBoolAttr(false));
  };
  FailureOr<Value> weighted = *selected;
  if (weight) {
    auto weightType = cast<RankedTensorType>(weight.getType());
    if (weightType.getRank() != 1 || weightType.getDimSize(0) != classes)
      return n.emitError() << "weight must be [" << classes << "], one per "
                           << "class",
             failure();
    FailureOr<Value> w = n.reshape(weight, classShape);
    if (failed(w))
      return failure();
    weighted = n.create<MulOp>(*selected, *w);
    if (failed(weighted))
      return failure();
  }
  FailureOr<Value> weightOfTarget = sumClasses(*weighted);
  if (failed(weightOfTarget))
    return failure();
  FailureOr<Value> products = n.create<MulOp>(input, *weighted);
  if (failed(products))
    return failure();
  FailureOr<Value> picked = sumClasses(*products);
  if (failed(picked))
    return failure();
  FailureOr<Value> loss = n.create<NegOp>(*picked);
  if (failed(loss))
    return failure();
  return LossParts{*loss, *weightOfTarget};
}

/// Applies the `reduction` attribute: none, sum, or mean (the sum divided by
/// the sum of the selected weights, as ONNX defines it).
FailureOr<Value> reduceLoss(NodeImporter &n, const LossParts &parts) {
  std::string reduction = n.attrString("reduction", "mean");
  if (reduction == "none")
    return parts.loss;
  if (reduction != "sum" && reduction != "mean")
    return n.emitError() << "reduction '" << reduction << "' is not supported "
                         << "(none, sum or mean)",
           failure();
  auto sumAll = [&](Value v) {
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    return n.create<ReduceSumOp>(
        v, n.b.getDenseI64ArrayAttr(llvm::to_vector(llvm::seq<int64_t>(rank))),
        n.b.getBoolAttr(false));
  };
  FailureOr<Value> total = sumAll(parts.loss);
  if (failed(total) || reduction == "sum")
    return total;
  FailureOr<Value> totalWeight = sumAll(parts.weight);
  if (failed(totalWeight))
    return failure();
  return n.create<DivOp>(*total, *totalWeight);
}

LogicalResult importNegativeLogLikelihoodLoss(NodeImporter &n) {
  FailureOr<LossParts> parts = buildNLL(
      n, n.input(0), n.input(1), n.hasInput(2) ? n.input(2) : Value());
  if (failed(parts))
    return failure();
  return n.setResult(reduceLoss(n, *parts));
}

/// log_prob = LogSoftmax(scores, axis 1), then the NLL loss of log_prob.
LogicalResult importSoftmaxCrossEntropyLoss(NodeImporter &n) {
  RankedTensorType scoresType = n.inputType(0);
  if (failed(n.requireRankAtLeast(scoresType, 2, "scores", "[N, C, ...]")))
    return failure();
  FailureOr<Value> logProb =
      n.create<LogSoftmaxOp>(n.input(0), n.b.getI64IntegerAttr(1));
  if (failed(logProb))
    return failure();
  FailureOr<LossParts> parts = buildNLL(
      n, *logProb, n.input(1), n.hasInput(2) ? n.input(2) : Value());
  if (failed(parts))
    return failure();
  FailureOr<Value> loss = reduceLoss(n, *parts);
  if (failed(loss))
    return failure();
  n.setOutput(0, *loss);
  if (n.numOutputs() > 1)
    n.setOutput(1, *logProb);
  return success();
}

} // namespace

void int21::onnx_import::registerLossOps(OpImportTable &t) {
  t["NegativeLogLikelihoodLoss"] = {importNegativeLogLikelihoodLoss, 12};
  t["SoftmaxCrossEntropyLoss"] = {importSoftmaxCrossEntropyLoss, 12};
}

//===- IndexingOps.cpp - import of ONNX gathers, scatters and their kin ---===//
//
// GatherElements, GatherND, ScatterElements (and the deprecated Scatter) and
// ScatterND map onto their int21 ops; ReverseSequence is a GatherElements
// with computed indices, MaxUnpool a ScatterElements into zeros.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

#include <limits>

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

FailureOr<ScatterReductionAttr> readReduction(NodeImporter &n) {
  std::string name = n.attrString("reduction", "none");
  std::optional<ScatterReduction> reduction = symbolizeScatterReduction(name);
  if (!reduction)
    return n.emitError() << "reduction '" << name << "' is not supported",
           failure();
  return ScatterReductionAttr::get(n.ctx, *reduction);
}

LogicalResult importGatherElements(NodeImporter &n) {
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.attrInt("axis", 0), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  if (failed(n.boundIndices(1, n.inputType(0).getDimSize(*axis))))
    return failure();
  return n.setResult(n.create<GatherElementsOp>(n.input(0), n.input(1),
                                                n.b.getI64IntegerAttr(*axis)));
}

/// ScatterElements, and Scatter (its deprecated name, without reduction).
LogicalResult importScatterElements(NodeImporter &n) {
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.attrInt("axis", 0), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  FailureOr<ScatterReductionAttr> reduction = readReduction(n);
  if (failed(reduction))
    return failure();
  return n.setResult(
      n.create<ScatterElementsOp>(n.input(0), n.input(1), n.input(2),
                                  n.b.getI64IntegerAttr(*axis), *reduction));
}

LogicalResult importGatherND(NodeImporter &n) {
  return n.setResult(
      n.create<GatherNDOp>(n.input(0), n.input(1),
                           n.b.getI64IntegerAttr(n.attrInt("batch_dims", 0))));
}

LogicalResult importScatterND(NodeImporter &n) {
  FailureOr<ScatterReductionAttr> reduction = readReduction(n);
  if (failed(reduction))
    return failure();
  return n.setResult(
      n.create<ScatterNDOp>(n.input(0), n.input(1), n.input(2), *reduction));
}

/// Reverses the first sequence_lens[b] elements of every batch entry b along
/// the time axis: a GatherElements along it with the indices
/// t < len[b] ? len[b] - 1 - t : t.
LogicalResult importReverseSequence(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  int64_t rank = x.getRank();
  int64_t timeAxis = n.attrInt("time_axis", 0);
  int64_t batchAxis = n.attrInt("batch_axis", 1);
  if (rank < 2 ||
      !((timeAxis == 0 && batchAxis == 1) || (timeAxis == 1 && batchAxis == 0)))
    return n.emitError() << "expects an input of rank 2 or more and time_axis, "
                            "batch_axis of 0, 1 or 1, 0",
           failure();
  RankedTensorType lensType = n.inputType(1);
  int64_t steps = x.getDimSize(timeAxis), batch = x.getDimSize(batchAxis);
  if (lensType.getRank() != 1 || lensType.getDimSize(0) != batch)
    return n.emitError() << "expects sequence_lens of shape [" << batch
                         << "], got " << lensType,
           failure();
  Type i64 = n.b.getI64Type();
  // t along the time axis, len along the batch axis, both broadcastable to
  // the [time, batch] plane (in the input's order) padded with 1s.
  SmallVector<int64_t> timeShape(rank, 1), batchShape(rank, 1);
  timeShape[timeAxis] = steps;
  batchShape[batchAxis] = batch;
  SmallVector<int64_t> steps64 = llvm::to_vector(llvm::seq<int64_t>(0, steps));
  Value t = n.constant(DenseElementsAttr::get(
      RankedTensorType::get(timeShape, i64), ArrayRef<int64_t>(steps64)));
  FailureOr<Value> lens = n.input(1);
  if (lensType.getElementType() != i64)
    lens = n.create<CastOp>(*lens, i64);
  if (succeeded(lens))
    lens = n.reshape(*lens, batchShape);
  if (failed(lens))
    return failure();
  FailureOr<Value> inside = n.create<LessOp>(t, *lens);
  FailureOr<Value> last = n.create<SubOp>(*lens, n.splat(i64, 1));
  if (failed(inside) || failed(last))
    return failure();
  FailureOr<Value> reversed = n.create<SubOp>(*last, t);
  if (failed(reversed))
    return failure();
  FailureOr<Value> indices = n.create<WhereOp>(*inside, *reversed, t);
  if (failed(indices))
    return failure();
  indices =
      n.create<ExpandOp>(RankedTensorType::get(x.getShape(), i64), *indices);
  if (failed(indices))
    return failure();
  return n.setResult(n.create<GatherElementsOp>(
      n.input(0), *indices, n.b.getI64IntegerAttr(timeAxis)));
}

/// Y is zeros with X[i] stored at flat position I[i] (MaxPool's indices
/// count over the whole tensor): a ScatterElements of the flattened tensors.
LogicalResult importMaxUnpool(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  RankedTensorType indicesType = n.inputType(1);
  int64_t rank = x.getRank(), k = rank - 2;
  if (rank < 3)
    return n.emitError() << "expects an input of rank 3 or more (N, C, "
                            "spatial...)",
           failure();
  if (indicesType.getShape() != x.getShape())
    return n.emitError() << "expects indices of the input's shape " << x
                         << ", got " << indicesType,
           failure();
  SmallVector<int64_t> kernel = n.attrInts("kernel_shape");
  SmallVector<int64_t> strides =
      n.attrInts("strides", SmallVector<int64_t>(k, 1));
  SmallVector<int64_t> pads =
      n.attrInts("pads", SmallVector<int64_t>(2 * k, 0));
  if (static_cast<int64_t>(kernel.size()) != k ||
      static_cast<int64_t>(strides.size()) != k ||
      static_cast<int64_t>(pads.size()) != 2 * k)
    return n.emitError() << "expects " << k << " kernel_shape and strides and "
                         << 2 * k << " pads",
           failure();
  SmallVector<int64_t> shape = {x.getDimSize(0), x.getDimSize(1)};
  for (int64_t i = 0; i < k; ++i)
    shape.push_back((x.getDimSize(i + 2) - 1) * strides[i] - pads[i] -
                    pads[i + k] + kernel[i]);
  FailureOr<int64_t> total = checkedNumElements(shape);
  if (failed(total) || llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
    return n.emitError() << "computes an empty or absurd output shape",
           failure();
  // A given output_shape pads (or crops) the result at the end of every
  // dimension; the indices stay those of the computed shape, as in ONNX
  // Runtime.
  SmallVector<int64_t> resize;
  if (n.hasInput(2)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(2, "output_shape");
    if (failed(given))
      return failure();
    if (static_cast<int64_t>(given->size()) != rank ||
        llvm::any_of(*given, [](int64_t d) { return d <= 0; }))
      return n.emitError() << "expects output_shape of " << rank
                           << " positive entries",
             failure();
    if (ArrayRef<int64_t>(*given) != ArrayRef<int64_t>(shape)) {
      resize.assign(rank, 0);
      for (int64_t d = 0; d < rank; ++d)
        resize.push_back((*given)[d] - shape[d]);
    }
  }
  FailureOr<Value> values = n.reshape(n.input(0), {x.getNumElements()});
  FailureOr<Value> indices = n.reshape(n.input(1), {x.getNumElements()});
  if (failed(values) || failed(indices))
    return failure();
  FailureOr<Value> flat = n.create<ScatterElementsOp>(
      n.splat(x.getElementType(), 0, {*total}), *indices, *values,
      n.b.getI64IntegerAttr(0),
      ScatterReductionAttr::get(n.ctx, ScatterReduction::None));
  if (failed(flat))
    return failure();
  FailureOr<Value> y = n.reshape(*flat, shape);
  if (succeeded(y) && !resize.empty())
    y = n.create<PadOp>(*y, n.b.getDenseI64ArrayAttr(resize),
                        PadModeAttr::get(n.ctx, PadMode::Constant),
                        n.b.getF64FloatAttr(0));
  return n.setResult(y);
}

/// NonZero: a rank x n tensor of the nonzero elements' positions, n known
/// during the run only.
LogicalResult importNonZero(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  auto type = RankedTensorType::get(
      {std::max<int64_t>(x.getRank(), 1), ShapedType::kDynamic},
      n.b.getI64Type());
  return n.setResult(n.create<NonZeroOp>(type, n.input(0)));
}

/// Compress: the slices of the input along `axis` (of the flattened input
/// without one) where the condition holds, a gather at the positions of
/// the condition's nonzero elements. A condition shorter than the axis
/// selects among the first slices only, as in ONNX; a longer one must be
/// false beyond the axis (its positions there are clamped).
LogicalResult importCompress(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  RankedTensorType condition = n.inputType(1);
  if (condition.getRank() != 1)
    return n.emitError() << "input 'condition' must have rank 1, got "
                         << condition,
           failure();
  Value data = n.input(0);
  int64_t axis = 0;
  if (n.hasAttr("axis")) {
    FailureOr<int64_t> given = n.normalizeAxis(n.attrInt("axis", 0),
                                               x.getRank());
    if (failed(given))
      return failure();
    axis = *given;
  } else {
    if (!x.hasStaticShape())
      return n.emitError() << "Compress without an axis flattens the input, "
                              "which needs a static shape, got "
                           << x,
             failure();
    FailureOr<Value> flat = n.reshape(data, {x.getNumElements()});
    if (failed(flat))
      return failure();
    data = *flat;
  }
  auto positionsType = RankedTensorType::get({1, ShapedType::kDynamic},
                                             n.b.getI64Type());
  FailureOr<Value> positions = n.create<NonZeroOp>(positionsType, n.input(1));
  if (failed(positions))
    return failure();
  FailureOr<Value> indices = n.create<ReshapeOp>(
      RankedTensorType::get({ShapedType::kDynamic}, n.b.getI64Type()),
      *positions);
  if (failed(indices))
    return failure();
  return n.setResult(
      n.create<GatherOp>(data, *indices, n.b.getI64IntegerAttr(axis)));
}

/// Unique: the input as rows along the axis (the axis first, the other
/// dimensions flattened; each element a row without an axis), their
/// distinct rows, then the values back in the input's layout.
LogicalResult importUnique(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  if (!x.hasStaticShape())
    return n.emitError() << "Unique needs an input of static shape, got " << x,
           failure();
  int64_t rank = x.getRank();
  bool hasAxis = n.hasAttr("axis");
  int64_t axis = 0;
  if (hasAxis) {
    FailureOr<int64_t> given = n.normalizeAxis(n.attrInt("axis", 0), rank);
    if (failed(given))
      return failure();
    axis = *given;
  }
  Value rows;
  SmallVector<int64_t> perm, rest;
  if (!hasAxis) {
    FailureOr<Value> flat = n.reshape(n.input(0), {x.getNumElements(), 1});
    if (failed(flat))
      return failure();
    rows = *flat;
  } else {
    perm.push_back(axis);
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis) {
        perm.push_back(d);
        rest.push_back(x.getDimSize(d));
      }
    FailureOr<Value> moved =
        n.create<TransposeOp>(n.input(0), n.b.getDenseI64ArrayAttr(perm));
    if (failed(moved))
      return failure();
    int64_t size = 1;
    for (int64_t d : rest)
      size *= d;
    FailureOr<Value> matrix = n.reshape(*moved, {x.getDimSize(axis), size});
    if (failed(matrix))
      return failure();
    rows = *matrix;
  }
  int64_t dyn = ShapedType::kDynamic;
  FailureOr<UniqueOp> unique = n.createMultiResult<UniqueOp>(
      4, rows, n.b.getBoolAttr(n.attrInt("sorted", 1) != 0));
  if (failed(unique))
    return failure();
  // The values in the input's layout: u rows of the other dimensions, the
  // axis back in its place.
  Value values = unique->getValues();
  SmallVector<int64_t> shape = {dyn};
  if (hasAxis)
    llvm::append_range(shape, rest);
  FailureOr<Value> reshaped = n.create<ReshapeOp>(
      RankedTensorType::get(shape, x.getElementType()), values);
  if (failed(reshaped))
    return failure();
  values = *reshaped;
  if (hasAxis && axis != 0) {
    SmallVector<int64_t> inverse(rank);
    for (int64_t d = 0; d < rank; ++d)
      inverse[perm[d]] = d;
    FailureOr<Value> back =
        n.create<TransposeOp>(values, n.b.getDenseI64ArrayAttr(inverse));
    if (failed(back))
      return failure();
    values = *back;
  }
  n.setOutput(0, values);
  n.setOutput(1, unique->getIndices());
  n.setOutput(2, unique->getInverse());
  n.setOutput(3, unique->getCounts());
  return success();
}

/// NonMaxSuppression: the limits as scalars read during the run (none
/// selected without max_output_boxes_per_class, no score threshold without
/// one).
LogicalResult importNonMaxSuppression(NodeImporter &n) {
  RankedTensorType boxes = n.inputType(0);
  if (!boxes.hasStaticShape() || !n.inputType(1).hasStaticShape())
    return n.emitError() << "NonMaxSuppression needs boxes and scores of "
                            "static shapes, got "
                         << boxes << " and " << n.inputType(1),
           failure();
  Type element = boxes.getElementType();
  auto scalar = [&](unsigned i, StringRef what, Type type,
                    double absent) -> FailureOr<Value> {
    if (!n.hasInput(i))
      return n.splat(type, absent);
    return n.scalarInput(i, what);
  };
  FailureOr<Value> maxOutput =
      scalar(2, "max_output_boxes_per_class", n.b.getI64Type(), 0);
  FailureOr<Value> iou = scalar(3, "iou_threshold", element, 0);
  FailureOr<Value> score = scalar(4, "score_threshold", element,
                                  -std::numeric_limits<double>::infinity());
  if (failed(maxOutput) || failed(iou) || failed(score))
    return failure();
  auto type = RankedTensorType::get({ShapedType::kDynamic, 3},
                                    n.b.getI64Type());
  return n.setResult(n.create<NonMaxSuppressionOp>(
      type, n.input(0), n.input(1), *maxOutput, *iou, *score,
      n.b.getBoolAttr(n.attrInt("center_point_box", 0) != 0)));
}

} // namespace

void int21::onnx_import::registerIndexingOps(OpImportTable &t) {
  t["NonMaxSuppression"] = {importNonMaxSuppression, 10};
  t["Unique"] = {importUnique, 11};
  t["NonZero"] = {importNonZero, 9};
  t["Compress"] = {importCompress, 9};
  t["GatherElements"] = {importGatherElements, 11};
  t["ScatterElements"] = {importScatterElements, 11};
  t["Scatter"] = {importScatterElements, 9};
  t["GatherND"] = {importGatherND, 11};
  t["ScatterND"] = {importScatterND, 11};
  t["ReverseSequence"] = {importReverseSequence, 10};
  t["MaxUnpool"] = {importMaxUnpool, 9};
  allowDynamicShapes(t, {"NonZero", "Compress", "GatherND"});
}

//===- MaskOps.cpp - import of ONNX operators that select by position -----===//
//
// Trilu, EyeLike, OneHot and Hardmax keep or set elements by their position
// (above a diagonal, at an index): each becomes a comparison with constant
// positions and a select or a cast, so no dialect op of their own is needed.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

/// The offset j - i from the main diagonal of every element (i, j) of a
/// rows x cols matrix, as i64: the difference of two position vectors, so
/// that a large matrix needs no large constant (a small one folds to one).
/// The matrix is the last two dimensions of `x`; extents known at run time
/// only give positions the program computes (int21.iota).
FailureOr<Value> diagonalOffsets(NodeImporter &n, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  auto along = [&](int64_t axis, int64_t dim) {
    return type.isDynamicDim(dim) ? n.positions(2, axis, n.extentOf(x, dim))
                                  : n.positions(2, axis, type.getDimSize(dim));
  };
  // Built one after the other: as arguments of one call, the compiler would
  // choose their order, and with it the order of the ops in the IR.
  Value columns = along(1, rank - 1);
  Value rowPositions = along(0, rank - 2);
  return n.create<SubOp>(columns, rowPositions);
}

/// Trilu keeps the elements of the last two dimensions on and above (upper)
/// or on and below (lower) diagonal k, where j - i = k, and zeroes the rest:
/// a select with a mask of the last two dimensions, which broadcasts.
LogicalResult importTrilu(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  int64_t rank = x.getRank();
  if (rank < 2)
    return n.emitError() << "expects an input of rank 2 or more, got rank "
                         << rank,
           failure();
  bool upper = n.attrInt("upper", 1) != 0;
  FailureOr<Value> offsets = diagonalOffsets(n, n.input(0));
  if (failed(offsets))
    return failure();
  // k is a constant, or a value the engine reads at run time (a graph
  // input, or computed): the mask compares with it either way.
  Value diagonal = n.splat(n.b.getI64Type(), 0);
  if (n.hasInput(1)) {
    RankedTensorType kType = n.inputType(1);
    if (!kType || !kType.hasStaticShape() || kType.getNumElements() != 1 ||
        !kType.getElementType().isInteger(64))
      return n.emitError() << "input 'k' must hold one int64", failure();
    FailureOr<Value> k = n.reshape(n.dataInput(1), {});
    if (failed(k))
      return failure();
    diagonal = *k;
  }
  FailureOr<Value> mask = upper ? n.create<GreaterEqualOp>(*offsets, diagonal)
                                : n.create<LessEqualOp>(*offsets, diagonal);
  if (failed(mask))
    return failure();
  return n.setResult(
      n.create<WhereOp>(*mask, n.input(0), n.splat(x.getElementType(), 0)));
}

/// EyeLike: ones on diagonal k and zeros elsewhere, in the input's shape,
/// of type `dtype` (default: the input's); a constant unless large.
LogicalResult importEyeLike(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  if (x.getRank() != 2)
    return n.emitError() << "expects a 2-D input, got rank " << x.getRank(),
           failure();
  Type elementType = x.getElementType();
  if (n.hasAttr("dtype")) {
    int64_t dataType = n.attrInt("dtype", 0);
    elementType = convertElementType(dataType, n.ctx);
    if (!elementType)
      return n.emitError() << "dtype " << onnxTypeName(dataType)
                           << " is not supported",
             failure();
  }
  FailureOr<Value> offsets = diagonalOffsets(n, n.input(0));
  if (failed(offsets))
    return failure();
  FailureOr<Value> mask =
      n.create<EqualOp>(*offsets, n.splat(n.b.getI64Type(), n.attrInt("k", 0)));
  if (failed(mask))
    return failure();
  return n.setResult(n.create<CastOp>(*mask, elementType));
}

/// OneHot: output[..., d, ...] (d inserted at `axis`) is values[1] where
/// d == indices[...] (negative indices count from depth) and values[0]
/// elsewhere; out-of-range indices give all values[0].
LogicalResult importOneHot(NodeImporter &n) {
  RankedTensorType indicesType = n.inputType(0);
  // The depth: a constant, or an input of the model read at run time (the
  // extent along `axis` then computed; a non-positive depth gives none).
  Type i64 = n.b.getI64Type();
  int64_t depth = ShapedType::kDynamic;
  Value depthExtent, depthTensor;
  if (n.isRuntimeInput(1)) {
    FailureOr<Value> scalar = n.scalarInput(1, "depth");
    if (failed(scalar))
      return failure();
    // A non-integer depth is cast to int64 (ONNX).
    if (getElementTypeOrSelf(scalar->getType()) != i64)
      scalar = n.create<CastOp>(*scalar, i64);
    if (failed(scalar))
      return failure();
    depthTensor = *scalar;
    Value element = n.scalarValue(1);
    if (isa<FloatType>(element.getType()))
      element = arith::FPToSIOp::create(n.b, n.loc, i64, element);
    else if (!element.getType().isInteger(64))
      element = arith::ExtSIOp::create(n.b, n.loc, i64, element);
    depthExtent = n.nonNegative(
        arith::IndexCastOp::create(n.b, n.loc, n.b.getIndexType(), element));
  } else {
    FailureOr<double> depthValue = n.constantScalar(1, "depth");
    if (failed(depthValue))
      return failure();
    depth = static_cast<int64_t>(*depthValue);
    if (depth <= 0 || depth > (int64_t(1) << 32))
      return n.emitError() << "depth must be positive, got " << *depthValue,
             failure();
  }
  RankedTensorType valuesType = n.inputType(2);
  if (!valuesType || valuesType.getNumElements() != 2)
    return n.emitError() << "input 'values' must hold two elements "
                            "(off, on)",
           failure();
  int64_t rank = indicesType.getRank() + 1;
  FailureOr<int64_t> axis = n.normalizeAxis(n.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();

  // Indices as i64 (floats truncate, as ONNX's cast does), wrapped once.
  FailureOr<Value> indices = n.input(0);
  if (indicesType.getElementType() != i64)
    indices = n.create<CastOp>(*indices, i64);
  if (failed(indices))
    return failure();
  FailureOr<Value> negative = n.create<LessOp>(*indices, n.splat(i64, 0));
  FailureOr<Value> wrapped = n.create<AddOp>(
      *indices, depthTensor ? depthTensor : n.splat(i64, depth));
  if (failed(negative) || failed(wrapped))
    return failure();
  indices = n.create<WhereOp>(*negative, *wrapped, *indices);
  if (failed(indices))
    return failure();
  SmallVector<int64_t> shape(indicesType.getShape());
  shape.insert(shape.begin() + *axis, 1);
  indices = n.reshape(*indices, shape);
  if (failed(indices))
    return failure();
  Value positions = depthExtent ? n.positions(rank, *axis, depthExtent)
                               : n.positions(rank, *axis, depth);
  FailureOr<Value> hot = n.create<EqualOp>(*indices, positions);
  if (failed(hot))
    return failure();

  // values[0] and values[1] as scalars.
  FailureOr<Value> flat = n.reshape(n.input(2), {2});
  if (failed(flat))
    return failure();
  SmallVector<Value, 2> offOn;
  for (int64_t i = 0; i < 2; ++i) {
    FailureOr<Value> one = n.create<SliceOp>(
        *flat, n.b.getDenseI64ArrayAttr({i}), n.b.getDenseI64ArrayAttr({1}),
        n.b.getDenseI64ArrayAttr({1}));
    if (failed(one))
      return failure();
    FailureOr<Value> scalar = n.reshape(*one, {});
    if (failed(scalar))
      return failure();
    offOn.push_back(*scalar);
  }
  return n.setResult(n.create<WhereOp>(*hot, offOn[1], offOn[0]));
}

/// Hardmax: 1 at the first maximum along `axis`, 0 elsewhere. Before opset
/// 13 the input is coerced to 2-D at `axis` (default 1) first.
LogicalResult importHardmax(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  int64_t rank = x.getRank();
  if (rank == 0)
    return n.emitError() << "expects an input of rank 1 or more", failure();
  bool coerce = n.sinceVersion < 13;
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.attrInt("axis", coerce ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  Value input = n.input(0);
  if (coerce) {
    FailureOr<Value> flat = n.flattenAt(input, *axis);
    if (failed(flat))
      return failure();
    input = *flat;
    axis = 1;
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  FailureOr<Value> argmax =
      n.create<ArgMaxOp>(input, n.b.getI64IntegerAttr(*axis),
                         n.b.getBoolAttr(true), n.b.getBoolAttr(false));
  if (failed(argmax))
    return failure();
  FailureOr<Value> hot =
      n.create<EqualOp>(*argmax, n.positions(inputType.getRank(), *axis,
                                           inputType.getDimSize(*axis)));
  if (failed(hot))
    return failure();
  FailureOr<Value> result = n.create<CastOp>(*hot, x.getElementType());
  if (failed(result))
    return failure();
  return n.setResult(n.reshape(*result, x.getShape()));
}

} // namespace

void int21::onnx_import::registerMaskOps(OpImportTable &t) {
  t["Trilu"] = {importTrilu, 14};
  t["EyeLike"] = {importEyeLike, 9};
  t["OneHot"] = {importOneHot, 9};
  t["Hardmax"] = {importHardmax};
  allowDynamicShapes(t, {"Trilu"});
}

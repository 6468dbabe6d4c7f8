//===- TensorOps.cpp - import of ONNX shape, data movement, constants -----===//
//
// Shape-computing operators (Shape, ConstantOfShape, Range, ...) produce
// constants at import, since every shape is static; the int21 folders then
// fold the arithmetic PyTorch builds on them (Shape -> Gather -> Concat ->
// Reshape), so shape inputs of later nodes are constants again.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

#include "mlir/IR/Matchers.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

DenseElementsAttr i64Vector(NodeImporter &n, ArrayRef<int64_t> values,
                            bool scalar = false) {
  auto type = RankedTensorType::get(
      scalar ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{(int64_t)values.size()},
      n.b.getI64Type());
  return DenseElementsAttr::get(type, values);
}

/// Identity, of a tensor or of a sequence or an optional (which the import
/// keeps as its elements: itself).
LogicalResult importIdentity(NodeImporter &n) {
  if (const SequenceValue *seq = n.sequenceInput(0)) {
    n.setSequenceOutput(0, *seq);
    return success();
  }
  n.setOutput(0, n.input(0));
  return success();
}

/// Dropout at inference passes its input through; its mask is all true.
LogicalResult importDropout(NodeImporter &n) {
  // Training mode, on or read at run time: random numbers drop elements.
  if (n.hasInput(2)) {
    ElementsAttr fixed;
    if (!matchPattern(n.input(2), m_Constant(&fixed)))
      return importTrainingDropout(n);
    FailureOr<double> training = n.constantScalar(2, "training_mode");
    if (failed(training))
      return failure();
    if (*training != 0)
      return importTrainingDropout(n);
  }
  n.setOutput(0, n.input(0));
  // The mask is all ones: bool from Dropout-10, the input's type before.
  RankedTensorType x = n.inputType(0);
  Type maskType = n.sinceVersion < 10 ? x.getElementType() : n.b.getI1Type();
  if (n.outputUsed(1))
    n.setOutput(1, n.splat(maskType, 1, x.getShape()));
  return success();
}

LogicalResult importConstant(NodeImporter &n) {
  if (const onnx::TensorProto *tensor = n.attrTensor("value")) {
    FailureOr<ElementsAttr> attr = n.tensorValue(*tensor);
    if (failed(attr))
      return failure();
    n.setOutput(0, n.constant(*attr));
    return success();
  }
  Builder &b = n.b;
  if (n.hasAttr("value_float")) {
    n.setOutput(0, n.splat(b.getF32Type(), n.attrFloat("value_float", 0)));
    return success();
  }
  if (n.hasAttr("value_int")) {
    n.setOutput(0, n.constant(i64Vector(n, {n.attrInt("value_int", 0)}, true)));
    return success();
  }
  if (n.hasAttr("value_ints")) {
    n.setOutput(0, n.constant(i64Vector(n, n.attrInts("value_ints"))));
    return success();
  }
  for (const onnx::AttributeProto &attr : n.node.attribute()) {
    if (attr.name() == "value_floats") {
      SmallVector<float> values(attr.floats().begin(), attr.floats().end());
      auto type =
          RankedTensorType::get({(int64_t)values.size()}, b.getF32Type());
      n.setOutput(
          0, n.constant(DenseElementsAttr::get(type, ArrayRef<float>(values))));
      return success();
    }
  }
  return n.emitError() << "only tensor, float and integer constants are "
                          "supported (not sparse or string ones)",
         failure();
}

LogicalResult importConstantOfShape(NodeImporter &n) {
  Attribute element = n.b.getF32FloatAttr(0);
  if (const onnx::TensorProto *tensor = n.attrTensor("value")) {
    FailureOr<ElementsAttr> attr = n.tensorValue(*tensor);
    if (failed(attr))
      return failure();
    DenseElementsAttr dense = toDense(*attr);
    if (!dense || dense.getNumElements() != 1)
      return n.emitError() << "value must hold exactly one element", failure();
    element = *dense.getValues<Attribute>().begin();
  }
  Type elementType = cast<TypedAttr>(element).getType();
  // A shape computed from dynamic extents, or given as data: the value
  // broadcast to extents the program computes.
  if (n.symbolicInput(0) || n.isRuntimeInput(0)) {
    FailureOr<SmallVector<SymbolicExtent>> extents = n.extentsOf(0, "shape");
    if (failed(extents))
      return failure();
    SmallVector<int64_t> shape;
    SmallVector<Value> sizes;
    for (const SymbolicExtent &e : *extents) {
      auto source = e.source ? cast<RankedTensorType>(e.source.getType())
                             : RankedTensorType();
      if (e.isConstant() || (source && !source.isDynamicDim(e.dim))) {
        int64_t extent = e.isConstant() ? e.constant : source.getDimSize(e.dim);
        if (extent < 0)
          return n.emitError() << "the shape has a negative dimension",
                 failure();
        shape.push_back(extent);
        continue;
      }
      shape.push_back(ShapedType::kDynamic);
      sizes.push_back(e.fromData ? n.nonNegative(n.extentValue(e))
                                 : n.extentValue(e));
    }
    Value scalar = n.constant(
        SplatElementsAttr::get(RankedTensorType::get({}, elementType), element));
    n.setOutput(0, ExpandOp::create(n.b, n.loc,
                                    RankedTensorType::get(shape, elementType),
                                    scalar, sizes));
    return success();
  }
  FailureOr<SmallVector<int64_t>> shape = n.constantInts(0, "shape");
  if (failed(shape))
    return failure();
  if (failed(checkedNumElements(*shape)))
    return n.emitError() << "the shape has a negative or absurd dimension",
           failure();
  auto type = RankedTensorType::get(*shape, elementType);
  n.setOutput(0, n.constant(SplatElementsAttr::get(type, element)));
  return success();
}

/// Range of parameters given as data: max(ceil((limit - start) / delta), 0)
/// elements, start + i * delta, computed at run time (positions cast to the
/// type, times delta, plus start).
LogicalResult importRuntimeRange(NodeImporter &n) {
  Type elementType = n.inputType(0).getElementType();
  for (unsigned i = 0; i < 3; ++i)
    if (!n.inputType(i) || n.inputType(i).getNumElements() != 1 ||
        n.inputType(i).getElementType() != elementType)
      return n.emitError() << "start, limit and delta must be scalars of one "
                              "type",
             failure();
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Value start = n.scalarValue(0), limit = n.scalarValue(1),
        delta = n.scalarValue(2);
  Value count;
  if (isa<FloatType>(elementType)) {
    // ceil: the quotient truncated, plus one where that fell below it.
    Value span = arith::SubFOp::create(b, loc, limit, start);
    Value quotient = arith::DivFOp::create(b, loc, span, delta);
    Value truncated =
        arith::FPToSIOp::create(b, loc, b.getI64Type(), quotient);
    Value back = arith::SIToFPOp::create(b, loc, elementType, truncated);
    Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                        back, quotient);
    count = arith::AddIOp::create(
        b, loc, truncated,
        arith::ExtUIOp::create(b, loc, b.getI64Type(), below));
  } else {
    // (A delta of 0, which ONNX calls invalid, gives no elements.)
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
    Value one = arith::ConstantOp::create(b, loc,
                                          b.getIntegerAttr(elementType, 1));
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, delta, zero);
    Value safe = arith::SelectOp::create(b, loc, isZero, one, delta);
    Value span = arith::SubIOp::create(b, loc, limit, start);
    Value steps = arith::CeilDivSIOp::create(b, loc, span, safe);
    steps = arith::SelectOp::create(b, loc, isZero, zero, steps);
    count = elementType.isInteger(64)
                ? steps
                : Value(arith::ExtSIOp::create(b, loc, b.getI64Type(), steps));
  }
  Value size = n.nonNegative(
      arith::IndexCastOp::create(b, loc, b.getIndexType(), count));
  Value positions = n.positions(1, 0, size);
  FailureOr<Value> values = n.create<CastOp>(positions, elementType);
  FailureOr<Value> startScalar = n.scalarInput(0, "start");
  FailureOr<Value> deltaScalar = n.scalarInput(2, "delta");
  if (failed(values) || failed(startScalar) || failed(deltaScalar))
    return failure();
  values = n.create<MulOp>(*values, *deltaScalar);
  if (failed(values))
    return failure();
  return n.setResult(n.create<AddOp>(*startScalar, *values));
}

LogicalResult importRange(NodeImporter &n) {
  if (n.isRuntimeInput(0) || n.isRuntimeInput(1) || n.isRuntimeInput(2) ||
      n.symbolicInput(0) || n.symbolicInput(1) || n.symbolicInput(2))
    return importRuntimeRange(n);
  FailureOr<double> start = n.constantScalar(0, "start");
  FailureOr<double> limit = n.constantScalar(1, "limit");
  FailureOr<double> delta = n.constantScalar(2, "delta");
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  if (*delta == 0)
    return n.emitError() << "delta must not be 0", failure();
  double count = std::ceil((*limit - *start) / *delta);
  int64_t size = count > 0 ? static_cast<int64_t>(count) : 0;
  if (size > (int64_t(1) << 32))
    return n.emitError() << "the range has an absurd number of elements",
           failure();
  Type elementType = n.inputType(0).getElementType();
  auto type = RankedTensorType::get({size}, elementType);
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < size; ++i) {
    double v = *start + i * *delta;
    if (isa<FloatType>(elementType))
      values.push_back(FloatAttr::get(elementType, v));
    else
      values.push_back(IntegerAttr::get(elementType, static_cast<int64_t>(v)));
  }
  n.setOutput(0, n.constant(DenseElementsAttr::get(type, values)));
  return success();
}

LogicalResult importShape(NodeImporter &n) {
  ArrayRef<int64_t> shape = n.inputType(0).getShape();
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(n.attrInt("start", 0));
  int64_t end = clampIndex(n.attrInt("end", rank));
  SmallVector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(shape[i]);
  // The extents of a dynamic tensor are known at run time only: kept
  // symbolic, for the shape arithmetic that ends in a Reshape.
  if (llvm::any_of(dims, ShapedType::isDynamic)) {
    SmallVector<SymbolicExtent> extents;
    for (int64_t i = start; i < end; ++i)
      extents.push_back(ShapedType::isDynamic(shape[i])
                            ? SymbolicExtent{0, n.input(0), i, Value()}
                            : SymbolicExtent{shape[i], Value(), 0, Value()});
    n.setSymbolicOutput(0, std::move(extents));
    return success();
  }
  n.setOutput(0, n.constant(i64Vector(n, dims)));
  return success();
}

LogicalResult importSize(NodeImporter &n) {
  n.setOutput(0, n.constant(i64Vector(n, {n.inputType(0).getNumElements()},
                                      /*scalar=*/true)));
  return success();
}

LogicalResult importTranspose(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> reversed;
  for (int64_t i = rank - 1; i >= 0; --i)
    reversed.push_back(i);
  SmallVector<int64_t> perm = n.attrInts("perm", reversed);
  return n.setResult(
      n.create<TransposeOp>(n.input(0), n.b.getDenseI64ArrayAttr(perm)));
}

/// The value and dimension whose extent dynamic extent `dim` of `value`
/// provably is, followed back through the ops that keep an extent: reshapes
/// (whose dynamic extents stay in order, or are given as extents of other
/// tensors), slices (which keep them whole), transposes, elementwise and
/// broadcasting ops (whose equal extents the engine checks), a product's
/// rows and batch, a convolution's or pool's batch, a concatenation's
/// extents off its axis.
std::pair<Value, int64_t> traceExtent(Value value, int64_t dim) {
  for (;;) {
    Operation *def = value.getDefiningOp();
    auto type = cast<RankedTensorType>(value.getType());
    if (!def || !type.isDynamicDim(dim))
      return {value, dim};
    auto dynamicIndex = [](RankedTensorType t, int64_t d) {
      int64_t k = 0;
      for (int64_t i = 0; i < d; ++i)
        k += t.isDynamicDim(i);
      return k;
    };
    auto nthDynamic = [](RankedTensorType t, int64_t k) -> int64_t {
      for (int64_t i = 0; i < t.getRank(); ++i)
        if (t.isDynamicDim(i) && k-- == 0)
          return i;
      return -1;
    };
    Value next;
    int64_t nextDim = -1;
    if (auto reshape = dyn_cast<ReshapeOp>(def)) {
      if (!reshape.getSizes().empty()) {
        // An extent given to the reshape: followed when it is one of
        // another tensor's.
        auto given = reshape.getSizes()[dynamicIndex(type, dim)]
                         .getDefiningOp<tensor::DimOp>();
        std::optional<int64_t> index =
            given ? given.getConstantIndex() : std::nullopt;
        if (!index)
          return {value, dim};
        next = given.getSource();
        nextDim = *index;
      } else {
        next = reshape.getInput();
        nextDim = nthDynamic(cast<RankedTensorType>(next.getType()),
                             dynamicIndex(type, dim));
      }
    } else if (isa<SliceOp>(def)) {
      // A dynamic extent of a slice is one kept whole.
      next = def->getOperand(0);
      nextDim = dim;
    } else if (auto transpose = dyn_cast<TransposeOp>(def)) {
      next = transpose.getInput();
      nextDim = transpose.getPerm()[dim];
    } else if (isa<ConvOp, MaxPoolOp, AvgPoolOp>(def) && dim == 0) {
      next = def->getOperand(0);
      nextDim = 0;
    } else if (auto concat = dyn_cast<ConcatOp>(def)) {
      if (dim != (int64_t)concat.getAxis()) {
        next = def->getOperand(0);
        nextDim = dim;
      }
    } else if (def->hasTrait<int21::OpTrait::ElementwiseBroadcastable>() ||
               isa<MatMulOp>(def)) {
      bool matmul = isa<MatMulOp>(def);
      if (matmul && dim == type.getRank() - 1)
        return {value, dim};
      for (Value operand : matmul ? def->getOperands().take_front(1)
                                  : def->getOperands()) {
        auto operandType = cast<RankedTensorType>(operand.getType());
        int64_t aligned = dim - (type.getRank() - operandType.getRank());
        if (aligned >= 0 && operandType.isDynamicDim(aligned)) {
          next = operand;
          nextDim = aligned;
          break;
        }
      }
    }
    if (!next || nextDim < 0)
      return {value, dim};
    value = next;
    dim = nextDim;
  }
}

/// Reshape to a shape whose extents the program computes at run time
/// (shape arithmetic, extents of other tensors): the result's dynamic
/// extents are given to the op, 0 copies the input's extent and -1 is what
/// the others leave of the element count, as ONNX says.
LogicalResult importComputedReshape(NodeImporter &n,
                                    ArrayRef<SymbolicExtent> extents) {
  RankedTensorType x = n.inputType(0);
  Value data = n.input(0);
  bool allowZero = n.attrInt("allowzero", 0) != 0;
  SmallVector<int64_t> shape;
  SmallVector<Value> values(extents.size());
  int64_t inferred = -1;
  for (auto [i, e] : llvm::enumerate(extents)) {
    if (e.isConstant()) {
      if (e.constant == 0 && !allowZero) {
        if ((int64_t)i >= x.getRank())
          return n.emitError() << "shape entry " << i << " is 0 (copy) but "
                               << "the input has rank " << x.getRank(),
                 failure();
        shape.push_back(x.getDimSize(i));
        if (x.isDynamicDim(i))
          values[i] = n.extentOf(data, i);
        continue;
      }
      if (e.constant == -1) {
        if (inferred >= 0)
          return n.emitError() << "shape has more than one -1", failure();
        inferred = i;
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      if (e.constant < 0)
        return n.emitError() << "shape entry " << i << " is " << e.constant,
               failure();
      shape.push_back(e.constant);
      continue;
    }
    if (e.source && !cast<RankedTensorType>(e.source.getType())
                         .isDynamicDim(e.dim)) {
      shape.push_back(
          cast<RankedTensorType>(e.source.getType()).getDimSize(e.dim));
      continue;
    }
    shape.push_back(ShapedType::kDynamic);
    values[i] = n.extentValue(e);
  }
  // Elements read at run time may be 0 (copy the input's extent) or -1 (what
  // the others leave): resolved at run time too.
  if (llvm::any_of(extents, [](const SymbolicExtent &e) { return e.fromData; })) {
    if (inferred >= 0)
      return n.emitError() << "shape has a -1 beside elements given at run "
                              "time; give the -1 at run time too",
             failure();
    OpBuilder &b = n.b;
    Location loc = n.loc;
    auto constant = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    SmallVector<Value> resolved(values);
    Value known = constant(1);
    for (auto [i, e] : llvm::enumerate(extents)) {
      if (!resolved[i]) {
        known = arith::MulIOp::create(b, loc, known, constant(shape[i]));
        continue;
      }
      if (e.fromData && !allowZero && (int64_t)i < x.getRank()) {
        Value zero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           resolved[i], constant(0));
        resolved[i] = arith::SelectOp::create(b, loc, zero,
                                              n.extentOf(data, i), resolved[i]);
      }
      Value minusOne = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, resolved[i], constant(-1));
      known = arith::MulIOp::create(
          b, loc, known,
          arith::SelectOp::create(b, loc, minusOne, constant(1), resolved[i]));
    }
    Value count = constant(1);
    for (int64_t d = 0; d < x.getRank(); ++d)
      count = arith::MulIOp::create(b, loc, count, n.extentOf(data, d));
    // (A product of 0 leaves nothing to infer: 0, which the element count
    // check refuses unless the input is empty.)
    Value safe = arith::MaxSIOp::create(b, loc, known, constant(1));
    Value rest = arith::DivSIOp::create(b, loc, count, safe);
    for (auto [i, e] : llvm::enumerate(extents)) {
      if (!e.fromData)
        continue;
      Value minusOne = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, resolved[i], constant(-1));
      values[i] = arith::SelectOp::create(b, loc, minusOne, rest, resolved[i]);
    }
  }
  if (inferred >= 0) {
    // What the other extents leave of the input's elements: static when
    // everything it depends on is.
    int64_t staticOthers = 1;
    bool othersStatic = true;
    for (auto [i, d] : llvm::enumerate(shape)) {
      if ((int64_t)i == inferred)
        continue;
      othersStatic &= !ShapedType::isDynamic(d);
      if (!ShapedType::isDynamic(d))
        staticOthers *= d;
    }
    // The input's dynamic extents, each provably one of the others' (the
    // same extent of the same tensor), leave a static -1.
    SmallVector<std::pair<Value, int64_t>> unmatched;
    for (int64_t d = 0; d < x.getRank(); ++d)
      if (x.isDynamicDim(d))
        unmatched.push_back(traceExtent(data, d));
    bool cancels = true;
    for (auto [i, d] : llvm::enumerate(shape)) {
      if ((int64_t)i == inferred || !ShapedType::isDynamic(d))
        continue;
      auto dim = values[i].getDefiningOp<tensor::DimOp>();
      std::optional<int64_t> index =
          dim ? dim.getConstantIndex() : std::nullopt;
      auto *it = index ? llvm::find(unmatched,
                                    traceExtent(dim.getSource(), *index))
                       : unmatched.end();
      if (it == unmatched.end()) {
        cancels = false;
        break;
      }
      unmatched.erase(it);
    }
    cancels &= unmatched.empty();
    if (cancels && !othersStatic) {
      int64_t staticIn = 1;
      for (int64_t d : x.getShape())
        if (!ShapedType::isDynamic(d))
          staticIn *= d;
      if (staticOthers == 0 || staticIn % staticOthers != 0)
        return n.emitError() << "cannot reshape " << x << " to a shape with "
                             << staticOthers
                             << " static elements besides the -1",
               failure();
      shape[inferred] = staticIn / staticOthers;
    } else if (x.hasStaticShape() && othersStatic) {
      if (staticOthers == 0 || x.getNumElements() % staticOthers != 0)
        return n.emitError() << "cannot reshape " << x << " to a shape with "
                             << staticOthers << " elements besides the -1",
               failure();
      shape[inferred] = x.getNumElements() / staticOthers;
    } else {
      Value count = arith::ConstantIndexOp::create(n.b, n.loc, 1);
      for (int64_t d = 0; d < x.getRank(); ++d)
        count = arith::MulIOp::create(n.b, n.loc, count, n.extentOf(data, d));
      Value others = arith::ConstantIndexOp::create(n.b, n.loc, staticOthers);
      for (auto [i, v] : llvm::enumerate(values))
        if ((int64_t)i != inferred && v)
          others = arith::MulIOp::create(n.b, n.loc, others, v);
      values[inferred] = arith::DivSIOp::create(n.b, n.loc, count, others);
    }
  }
  SmallVector<Value> sizes;
  for (auto [d, v] : llvm::zip(shape, values))
    if (ShapedType::isDynamic(d))
      sizes.push_back(v);
  auto type = RankedTensorType::get(shape, x.getElementType());
  n.setOutput(0, ReshapeOp::create(n.b, n.loc, type, data, sizes));
  return success();
}

/// Reshape to a shape computed from dynamic extents. When each element is a
/// constant (0 copies, -1 infers, as ONNX says) or an extent of the data
/// itself that keeps its place among the data's dynamic extents, the result
/// takes its extents from the data's (a reshape around them, which the
/// schedules see through); otherwise importComputedReshape.
LogicalResult importSymbolicReshape(NodeImporter &n,
                                    ArrayRef<SymbolicExtent> extents) {
  RankedTensorType x = n.inputType(0);
  Value data = n.input(0);
  if (llvm::any_of(extents, [](const SymbolicExtent &e) { return e.value; }))
    return importComputedReshape(n, extents);
  SmallVector<int64_t> shape;
  SmallVector<int64_t> sources;
  for (auto [i, e] : llvm::enumerate(extents)) {
    if (!e.source) {
      shape.push_back(e.constant == 0 && (int64_t)i < x.getRank()
                          ? x.getDimSize(i)
                          : e.constant);
      sources.push_back(e.constant == 0 && (int64_t)i < x.getRank() &&
                                x.isDynamicDim(i)
                            ? (int64_t)i
                            : -1);
      continue;
    }
    auto sourceType = cast<RankedTensorType>(e.source.getType());
    if (!sourceType.isDynamicDim(e.dim)) {
      shape.push_back(sourceType.getDimSize(e.dim));
      sources.push_back(-1);
      continue;
    }
    // An extent of another tensor that is provably one of the data's.
    int64_t dataDim = -1;
    std::pair<Value, int64_t> wanted = traceExtent(e.source, e.dim);
    for (int64_t d = 0; d < x.getRank() && dataDim < 0; ++d)
      if (x.isDynamicDim(d) && traceExtent(data, d) == wanted)
        dataDim = d;
    if (dataDim >= 0) {
      shape.push_back(ShapedType::kDynamic);
      sources.push_back(dataDim);
      continue;
    }
    if (e.source != data)
      return importComputedReshape(n, extents);
    shape.push_back(ShapedType::kDynamic);
    sources.push_back(e.dim);
  }
  // The data's dynamic extents must stay in order, each its own dimension
  // of the result: then the reshape only joins or splits static extents
  // around them. A -1 beside dynamic extents is the static rest.
  SmallVector<int64_t> dynamicIn, dynamicOut;
  for (int64_t d = 0; d < x.getRank(); ++d)
    if (x.isDynamicDim(d))
      dynamicIn.push_back(d);
  for (int64_t s : sources)
    if (s >= 0)
      dynamicOut.push_back(s);
  if (dynamicIn != dynamicOut)
    return importComputedReshape(n, extents);
  int64_t staticIn = 1, known = 1, inferred = -1;
  for (int64_t d : x.getShape())
    if (!ShapedType::isDynamic(d))
      staticIn *= d;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferred >= 0)
        return n.emitError() << "shape has more than one -1", failure();
      inferred = i;
    } else if (!ShapedType::isDynamic(d)) {
      if (d < 0)
        return n.emitError() << "shape entry " << i << " is " << d, failure();
      known *= d;
    }
  }
  if (inferred >= 0) {
    if (known == 0 || staticIn % known != 0)
      return n.emitError() << "cannot reshape " << x << " to a shape with "
                           << known << " static elements besides the -1",
             failure();
    shape[inferred] = staticIn / known;
  } else if (known != staticIn) {
    return n.emitError() << "cannot reshape " << x << ": its static extents "
                         << "hold " << staticIn << " elements, the shape's "
                         << known,
           failure();
  }
  return n.setResult(n.reshape(data, shape));
}

LogicalResult importReshape(NodeImporter &n) {
  if (const SmallVector<SymbolicExtent> *extents = n.symbolicInput(1))
    return importSymbolicReshape(n, *extents);
  // A shape given as data (an input of the model): read at run time.
  if (n.isRuntimeInput(1)) {
    FailureOr<SmallVector<SymbolicExtent>> extents = n.extentsOf(1, "shape");
    if (failed(extents))
      return failure();
    return importComputedReshape(n, *extents);
  }
  FailureOr<SmallVector<int64_t>> requested = n.constantInts(1, "shape");
  if (failed(requested))
    return failure();
  RankedTensorType x = n.inputType(0);
  bool allowZero = n.attrInt("allowzero", 0) != 0;
  // A constant shape of a tensor with dynamic extents (a 0 copying one, a
  // -1 inferring around them): as a symbolic shape of constants.
  if (!x.hasStaticShape() && !allowZero) {
    SmallVector<SymbolicExtent> extents;
    for (int64_t d : *requested)
      extents.push_back({d});
    return importSymbolicReshape(n, extents);
  }
  SmallVector<int64_t> shape;
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*requested)) {
    if (d == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= x.getRank())
        return n.emitError()
                   << "shape entry " << i
                   << " is 0 (copy) but the input has rank " << x.getRank(),
               failure();
      d = x.getDimSize(i);
    }
    if (d == -1) {
      if (inferred >= 0)
        return n.emitError() << "shape has more than one -1", failure();
      inferred = i;
    } else if (d < 0) {
      return n.emitError() << "shape entry " << i << " is " << d, failure();
    } else {
      known *= d;
    }
    shape.push_back(d);
  }
  if (inferred >= 0) {
    if (known == 0 || x.getNumElements() % known != 0)
      return n.emitError() << "cannot reshape " << x << " to "
                           << "a shape with " << known
                           << " elements besides the -1",
             failure();
    shape[inferred] = x.getNumElements() / known;
  }
  return n.setResult(n.reshape(n.input(0), shape));
}

LogicalResult importFlatten(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  // Flatten's axis lies in [-rank, rank]: rank itself flattens to [N, 1].
  int64_t axis = n.attrInt("axis", 1);
  if (axis < -x.getRank() || axis > x.getRank())
    return n.emitError() << "axis " << axis << " is out of range for rank "
                         << x.getRank(),
           failure();
  if (axis < 0)
    axis += x.getRank();
  return n.setResult(n.flattenAt(n.input(0), axis));
}

/// The axes of Squeeze/Unsqueeze: an attribute before opset 13, an optional
/// constant input after.
FailureOr<SmallVector<int64_t>> readAxes(NodeImporter &n, unsigned input) {
  if (n.sinceVersion < 13)
    return n.attrInts("axes");
  if (!n.hasInput(input))
    return SmallVector<int64_t>();
  return n.constantInts(input, "axes");
}

/// Squeeze (squeeze = true) or Unsqueeze by axes given as data: which
/// dimensions go or come is known at run time only, so every extent of the
/// result is computed (selects over the input's extents) and the reshape to
/// them checked to keep the element count (a squeezed extent other than 1
/// is refused before the run).
LogicalResult importRuntimeAxesReshape(NodeImporter &n, bool squeeze) {
  RankedTensorType x = n.inputType(0);
  Value data = n.input(0);
  FailureOr<SmallVector<SymbolicExtent>> given = n.extentsOf(1, "axes");
  if (failed(given))
    return failure();
  int64_t rank = x.getRank(), count = given->size();
  int64_t outRank = squeeze ? rank - count : rank + count;
  if (outRank < 0)
    return n.emitError() << "squeezes " << count << " axes of a tensor of rank "
                         << rank,
           failure();
  OpBuilder &b = n.b;
  Location loc = n.loc;
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // The axes, negative ones counted from the end.
  int64_t axesRank = squeeze ? rank : outRank;
  SmallVector<Value> axes;
  for (const SymbolicExtent &e : *given) {
    Value a = n.extentValue(e);
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, constant(0));
    axes.push_back(arith::SelectOp::create(
        b, loc, negative, arith::AddIOp::create(b, loc, a, constant(axesRank)),
        a));
  }
  auto isAxis = [&](int64_t d) -> Value {
    Value any = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (Value a : axes)
      any = arith::OrIOp::create(
          b, loc, any,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a,
                                constant(d)));
    return any;
  };
  // `which` (an index) picks one of the input's extents.
  auto extentAt = [&](Value which) {
    Value extent = constant(1);
    for (int64_t i = rank - 1; i >= 0; --i)
      extent = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, which,
                                constant(i)),
          n.extentOf(data, i), extent);
    return extent;
  };
  SmallVector<Value> sizes;
  if (squeeze) {
    // Result extent j: the j-th input extent that is not squeezed.
    SmallVector<Value> kept, position;
    Value before = constant(0);
    for (int64_t i = 0; i < rank; ++i) {
      Value keep = arith::XOrIOp::create(
          b, loc, isAxis(i), arith::ConstantIntOp::create(b, loc, 1, 1));
      kept.push_back(keep);
      position.push_back(before);
      before = arith::AddIOp::create(
          b, loc, before,
          arith::IndexCastOp::create(
              b, loc, b.getIndexType(),
              arith::ExtUIOp::create(b, loc, b.getI64Type(), keep)));
    }
    for (int64_t j = 0; j < outRank; ++j) {
      Value extent = constant(1);
      for (int64_t i = rank - 1; i >= 0; --i) {
        Value here = arith::AndIOp::create(
            b, loc, kept[i],
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                  position[i], constant(j)));
        extent = arith::SelectOp::create(b, loc, here, n.extentOf(data, i),
                                         extent);
      }
      sizes.push_back(extent);
    }
  } else {
    // Result extent k: 1 at an axis, else the input's extent k - (the axes
    // before k).
    for (int64_t k = 0; k < outRank; ++k) {
      Value before = constant(0);
      for (Value a : axes)
        before = arith::AddIOp::create(
            b, loc, before,
            arith::IndexCastOp::create(
                b, loc, b.getIndexType(),
                arith::ExtUIOp::create(
                    b, loc, b.getI64Type(),
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          a, constant(k)))));
      Value source = arith::SubIOp::create(b, loc, constant(k), before);
      sizes.push_back(arith::SelectOp::create(b, loc, isAxis(k), constant(1),
                                              extentAt(source)));
    }
  }
  SmallVector<int64_t> shape(outRank, ShapedType::kDynamic);
  n.setOutput(0, ReshapeOp::create(b, loc, x.clone(shape), data, sizes));
  return success();
}

LogicalResult importSqueeze(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  // A one-element symbolic shape squeezed to its scalar.
  if (const SmallVector<SymbolicExtent> *extents = n.symbolicInput(0)) {
    if (x.getRank() != 1 || extents->size() != 1)
      return n.emitError() << "squeezes a shape of dynamic extents other than "
                              "one element to a scalar",
             failure();
    n.setSymbolicOutput(0, *extents, /*rank=*/0);
    return success();
  }
  if (n.sinceVersion >= 13 && n.isRuntimeInput(1))
    return importRuntimeAxesReshape(n, /*squeeze=*/true);
  FailureOr<SmallVector<int64_t>> axes = readAxes(n, 1);
  if (failed(axes))
    return failure();
  llvm::SmallBitVector squeezed(x.getRank());
  for (int64_t a : *axes) {
    FailureOr<int64_t> axis = n.normalizeAxis(a, x.getRank());
    if (failed(axis))
      return failure();
    if (x.isDynamicDim(*axis))
      return n.emitError() << "cannot squeeze dimension " << *axis
                           << ", whose extent is dynamic (int21 squeezes "
                              "static extents of 1)",
             failure();
    if (x.getDimSize(*axis) != 1)
      return n.emitError() << "cannot squeeze dimension " << *axis
                           << " of size " << x.getDimSize(*axis),
             failure();
    squeezed.set(*axis);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    bool drop = axes->empty() ? x.getDimSize(d) == 1 : squeezed.test(d);
    if (!drop)
      shape.push_back(x.getDimSize(d));
  }
  return n.setResult(n.reshape(n.input(0), shape));
}

LogicalResult importUnsqueeze(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  // A symbolic scalar unsqueezed to a one-element shape.
  if (const SmallVector<SymbolicExtent> *extents = n.symbolicInput(0)) {
    if (x.getRank() != 0)
      return n.emitError() << "unsqueezes a shape of dynamic extents other "
                              "than a scalar",
             failure();
    n.setSymbolicOutput(0, *extents, /*rank=*/1);
    return success();
  }
  if (n.sinceVersion >= 13 && n.isRuntimeInput(1))
    return importRuntimeAxesReshape(n, /*squeeze=*/false);
  FailureOr<SmallVector<int64_t>> axes = readAxes(n, 1);
  if (failed(axes))
    return failure();
  int64_t rank = x.getRank() + axes->size();
  llvm::SmallBitVector inserted(rank);
  for (int64_t a : *axes) {
    FailureOr<int64_t> axis = n.normalizeAxis(a, rank);
    if (failed(axis))
      return failure();
    if (inserted.test(*axis))
      return n.emitError() << "axis " << *axis << " is given twice", failure();
    inserted.set(*axis);
  }
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(inserted.test(d) ? 1 : x.getDimSize(next++));
  return n.setResult(n.reshape(n.input(0), shape));
}

LogicalResult importConcat(NodeImporter &n) {
  // Shapes of dynamic extents and constants, concatenated symbolically.
  bool anySymbolic = false;
  for (unsigned i = 0; i < n.numInputs(); ++i)
    anySymbolic |= n.symbolicInput(i) != nullptr;
  if (anySymbolic) {
    SmallVector<SymbolicExtent> all;
    for (unsigned i = 0; i < n.numInputs(); ++i) {
      FailureOr<SmallVector<SymbolicExtent>> part = n.extentsOf(i, "inputs");
      if (failed(part))
        return failure();
      llvm::append_range(all, *part);
    }
    n.setSymbolicOutput(0, std::move(all));
    return success();
  }
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.numInputs(); ++i)
    inputs.push_back(n.input(i));
  if (inputs.empty())
    return n.emitError() << "expects at least one input", failure();
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.attrInt("axis", 0),
                      cast<RankedTensorType>(inputs[0].getType()).getRank());
  if (failed(axis))
    return failure();
  return n.setResult(n.create<ConcatOp>(inputs, n.b.getI64IntegerAttr(*axis)));
}

/// A slice of `x` taking [start, start + size) along `axis`, all of every
/// other dimension.
FailureOr<Value> sliceAlong(NodeImporter &n, Value x, int64_t axis,
                            int64_t start, int64_t size) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> starts(type.getRank(), 0), sizes(type.getShape()),
      steps(type.getRank(), 1);
  starts[axis] = start;
  sizes[axis] = size;
  return n.create<SliceOp>(x, n.b.getDenseI64ArrayAttr(starts),
                           n.b.getDenseI64ArrayAttr(sizes),
                           n.b.getDenseI64ArrayAttr(steps));
}

/// Split by sizes given as data: consecutive int21.dynamic_slices along the
/// axis, each part's extent read at run time (clamped into what is left of
/// the dimension, so that no part reads past it).
LogicalResult importRuntimeSplit(NodeImporter &n, int64_t axis) {
  FailureOr<SmallVector<SymbolicExtent>> given = n.extentsOf(1, "split");
  if (failed(given))
    return failure();
  if (given->size() != n.numOutputs())
    return n.emitError() << "split has " << given->size() << " sizes for "
                         << n.numOutputs() << " outputs",
           failure();
  for (auto [i, part] :
       llvm::enumerate(splitByExtents(n, n.input(0), axis, *given)))
    n.setOutput(i, part);
  return success();
}

} // namespace

SmallVector<Value>
int21::onnx_import::splitByExtents(NodeImporter &n, Value data, int64_t axis,
                                   ArrayRef<SymbolicExtent> given) {
  auto x = cast<RankedTensorType>(data.getType());
  SmallVector<Value> parts;
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value dim = n.extentOf(data, axis), offset = zero;
  for (const SymbolicExtent &extent : given) {
    Value left = arith::SubIOp::create(b, loc, dim, offset);
    Value size = arith::MinSIOp::create(
        b, loc, n.nonNegative(n.extentValue(extent)), left);
    SmallVector<Value> starts, sizes, steps;
    SmallVector<int64_t> shape(x.getShape());
    for (int64_t d = 0; d < x.getRank(); ++d) {
      starts.push_back(d == axis ? offset : zero);
      sizes.push_back(d == axis ? size : n.extentOf(data, d));
      steps.push_back(one);
    }
    shape[axis] = ShapedType::kDynamic;
    parts.push_back(DynamicSliceOp::create(b, loc, x.clone(shape), data,
                                           starts, sizes, steps));
    offset = arith::AddIOp::create(b, loc, offset, size);
  }
  return parts;
}

namespace {

LogicalResult importSplit(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  FailureOr<int64_t> axis = n.normalizeAxis(n.attrInt("axis", 0), x.getRank());
  if (failed(axis))
    return failure();
  if (n.sinceVersion >= 13 && n.isRuntimeInput(1))
    return importRuntimeSplit(n, *axis);
  int64_t dim = x.getDimSize(*axis);
  SmallVector<int64_t> sizes;
  if (n.sinceVersion < 13) {
    sizes = n.attrInts("split");
  } else if (n.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  }
  unsigned outputs = n.numOutputs();
  if (sizes.empty()) {
    if (dim % outputs != 0)
      return n.emitError() << "cannot split dimension " << *axis << " of size "
                           << dim << " into " << outputs << " equal parts",
             failure();
    sizes.assign(outputs, dim / outputs);
  }
  int64_t total = 0;
  for (int64_t s : sizes)
    total += s;
  if (sizes.size() != outputs || total != dim ||
      llvm::any_of(sizes, [](int64_t s) { return s < 0; }))
    return n.emitError() << "split sizes must be " << outputs
                         << " non-negative numbers adding up to " << dim,
           failure();
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    FailureOr<Value> part = sliceAlong(n, n.input(0), *axis, offset, size);
    if (failed(part))
      return failure();
    n.setOutput(i, *part);
    offset += size;
  }
  return success();
}

/// Slice whose starts, ends, axes or steps are inputs of the model or
/// extents computed at run time, or whose positions along a dynamic extent
/// count from its end: ONNX's rules (negative positions count from the end,
/// clamped into the dimension, backwards from dim - 1) applied at run time,
/// an int21.dynamic_slice of the positions so resolved. Every dimension an
/// axis may name gets a dynamic extent.
LogicalResult importRuntimeSlice(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  Value data = n.input(0);
  int64_t rank = x.getRank();
  OpBuilder &b = n.b;
  Location loc = n.loc;
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  FailureOr<SmallVector<SymbolicExtent>> starts = n.extentsOf(1, "starts");
  if (failed(starts))
    return failure();
  FailureOr<SmallVector<SymbolicExtent>> ends = n.extentsOf(2, "ends");
  if (failed(ends))
    return failure();
  size_t count = starts->size();
  SmallVector<SymbolicExtent> axes, steps;
  if (n.hasInput(3)) {
    FailureOr<SmallVector<SymbolicExtent>> a = n.extentsOf(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    for (size_t i = 0; i < count; ++i)
      axes.push_back({(int64_t)i, Value(), 0, Value()});
  }
  if (n.hasInput(4)) {
    FailureOr<SmallVector<SymbolicExtent>> st = n.extentsOf(4, "steps");
    if (failed(st))
      return failure();
    steps = *st;
  } else {
    steps.assign(count, {1, Value(), 0, Value()});
  }
  if (ends->size() != count || axes.size() != count || steps.size() != count)
    return n.emitError() << "starts, ends, axes and steps must have one length",
           failure();
  // Per dimension: start 0, end its extent, step 1 unless an axis names it.
  SmallVector<Value> dimStart, dimEnd, dimStep;
  SmallVector<bool> touched(rank, false);
  for (int64_t d = 0; d < rank; ++d) {
    dimStart.push_back(constant(0));
    dimEnd.push_back(n.extentOf(data, d));
    dimStep.push_back(constant(1));
  }
  for (size_t i = 0; i < count; ++i) {
    Value start = n.extentValue((*starts)[i]), end = n.extentValue((*ends)[i]),
          step = n.extentValue(steps[i]);
    if (steps[i].isConstant() && steps[i].constant == 0)
      return n.emitError() << "steps must not be 0", failure();
    if (axes[i].isConstant()) {
      FailureOr<int64_t> axis = n.normalizeAxis(axes[i].constant, rank);
      if (failed(axis))
        return failure();
      touched[*axis] = true;
      dimStart[*axis] = start;
      dimEnd[*axis] = end;
      dimStep[*axis] = step;
      continue;
    }
    // An axis read at run time: each dimension it may name selects it.
    Value axis = n.extentValue(axes[i]);
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           axis, constant(0));
    axis = arith::SelectOp::create(
        b, loc, negative, arith::AddIOp::create(b, loc, axis, constant(rank)),
        axis);
    for (int64_t d = 0; d < rank; ++d) {
      touched[d] = true;
      Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         axis, constant(d));
      dimStart[d] = arith::SelectOp::create(b, loc, here, start, dimStart[d]);
      dimEnd[d] = arith::SelectOp::create(b, loc, here, end, dimEnd[d]);
      dimStep[d] = arith::SelectOp::create(b, loc, here, step, dimStep[d]);
    }
  }
  SmallVector<Value> outStarts, outSizes, outSteps;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!touched[d]) {
      outStarts.push_back(constant(0));
      outSizes.push_back(n.extentOf(data, d));
      outSteps.push_back(constant(1));
      shape.push_back(x.getDimSize(d));
      continue;
    }
    Value dim = n.extentOf(data, d);
    Value start = dimStart[d], end = dimEnd[d], step = dimStep[d];
    auto fromEnd = [&](Value v) {
      Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             v, constant(0));
      return arith::SelectOp::create(b, loc, negative,
                                     arith::AddIOp::create(b, loc, v, dim), v)
          .getResult();
    };
    auto clamp = [&](Value v, Value lo, Value hi) {
      return arith::MinSIOp::create(b, loc,
                                    arith::MaxSIOp::create(b, loc, v, lo), hi)
          .getResult();
    };
    start = fromEnd(start);
    end = fromEnd(end);
    Value forward = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                          step, constant(0));
    Value last = arith::SubIOp::create(b, loc, dim, constant(1));
    // Forwards: start and end in [0, dim]; backwards: start in [0, dim - 1],
    // end in [-1, dim - 1].
    Value startF = clamp(start, constant(0), dim);
    Value endF = clamp(end, constant(0), dim);
    Value startB = clamp(start, constant(0), last);
    Value endB = clamp(end, constant(-1), last);
    start = arith::SelectOp::create(b, loc, forward, startF, startB);
    end = arith::SelectOp::create(b, loc, forward, endF, endB);
    // ceil((end - start) / step), at least 0 (a step of 0, which ONNX calls
    // invalid, read as 1).
    Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         step, constant(0));
    step = arith::SelectOp::create(b, loc, isZero, constant(1), step);
    Value size = n.nonNegative(arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, end, start), step));
    // No elements: start 0, inside any dimension.
    Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size,
                                        constant(0));
    start = arith::SelectOp::create(b, loc, empty, constant(0), start);
    outStarts.push_back(start);
    outSizes.push_back(size);
    outSteps.push_back(step);
    shape.push_back(ShapedType::kDynamic);
  }
  n.setOutput(0, DynamicSliceOp::create(b, loc, x.clone(shape), data,
                                        outStarts, outSizes, outSteps));
  return success();
}

LogicalResult importSlice(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  int64_t rank = x.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  // Parameters read at run time, or computed from dynamic extents.
  if (n.sinceVersion >= 10 && !n.symbolicInput(0))
    for (unsigned i = 1; i < 5; ++i)
      if (n.isRuntimeInput(i) || n.symbolicInput(i) ||
          n.isComputedInRegion(i))
        return importRuntimeSlice(n);
  if (n.sinceVersion < 10) {
    starts = n.attrInts("starts");
    ends = n.attrInts("ends");
    axes = n.attrInts("axes");
  } else {
    FailureOr<SmallVector<int64_t>> s = n.constantInts(1, "starts");
    FailureOr<SmallVector<int64_t>> e = n.constantInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (n.hasInput(3)) {
      FailureOr<SmallVector<int64_t>> a = n.constantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (n.hasInput(4)) {
      FailureOr<SmallVector<int64_t>> st = n.constantInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts.size()));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return n.emitError() << "starts, ends, axes and steps must have one length",
           failure();
  SmallVector<int64_t> outStarts(rank, 0), outSizes(x.getShape()),
      outSteps(rank, 1);
  llvm::SmallBitVector seen(rank);
  for (size_t i = 0; i < starts.size(); ++i) {
    FailureOr<int64_t> axis = n.normalizeAxis(axes[i], rank);
    if (failed(axis))
      return failure();
    if (seen.test(*axis))
      return n.emitError() << "axis " << *axis << " is sliced twice", failure();
    seen.set(*axis);
    int64_t dim = x.getDimSize(*axis), step = steps[i];
    if (step == 0)
      return n.emitError() << "steps must not be 0", failure();
    int64_t start = starts[i], end = ends[i];
    if (ShapedType::isDynamic(dim)) {
      // A dynamic extent is kept whole, or read at positions counted from
      // its start, which the engine checks lie inside it (ONNX would clamp
      // them; int21 refuses the run instead).
      constexpr int64_t kToTheEnd = std::numeric_limits<int32_t>::max();
      if (start == 0 && step == 1 && end >= kToTheEnd)
        continue;
      if (start < 0 || end < 0 || end >= kToTheEnd || step < 0) {
        if (n.sinceVersion >= 10)
          return importRuntimeSlice(n);
        return n.emitError()
               << "slices dynamic dimension " << *axis << " of " << x
               << " from " << start << " to " << end << " by " << step
               << ": int21 slices a dynamic extent whole or at non-negative "
                  "positions counted from its start only",
               failure();
      }
      outStarts[*axis] = start;
      outSizes[*axis] = end > start ? (end - start + step - 1) / step : 0;
      outSteps[*axis] = step;
      continue;
    }
    if (start < 0)
      start = start < -dim ? -1 : start + dim;
    if (end < 0)
      end = end < -dim ? -1 : end + dim;
    int64_t size;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      size = end > start ? (end - start + step - 1) / step : 0;
    } else {
      // Backwards, the start is clamped to [0, dim - 1] (ONNX Slice-13).
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      size = start > end ? (start - end - step - 1) / -step : 0;
    }
    outStarts[*axis] = size > 0 ? start : 0;
    outSizes[*axis] = size;
    outSteps[*axis] = step;
  }
  // Elements of a symbolic shape (a vector, whose extents are static).
  if (const SmallVector<SymbolicExtent> *extents = n.symbolicInput(0)) {
    SmallVector<SymbolicExtent> picked;
    for (int64_t j = 0; j < outSizes[0]; ++j)
      picked.push_back((*extents)[outStarts[0] + j * outSteps[0]]);
    n.setSymbolicOutput(0, std::move(picked));
    return success();
  }
  return n.setResult(n.create<SliceOp>(
      n.input(0), n.b.getDenseI64ArrayAttr(outStarts),
      n.b.getDenseI64ArrayAttr(outSizes), n.b.getDenseI64ArrayAttr(outSteps)));
}

LogicalResult importGather(NodeImporter &n) {
  // Elements of a symbolic shape at constant indices.
  if (const SmallVector<SymbolicExtent> *extents = n.symbolicInput(0)) {
    RankedTensorType indicesType = n.inputType(1);
    FailureOr<SmallVector<int64_t>> indices =
        indicesType.getRank() <= 1 ? n.constantInts(1, "indices")
                                   : FailureOr<SmallVector<int64_t>>(failure());
    if (failed(indices))
      return failure();
    SmallVector<SymbolicExtent> picked;
    int64_t size = extents->size();
    for (int64_t index : *indices) {
      if (index < -size || index >= size)
        return n.emitError() << "index " << index << " is outside the shape's "
                             << size << " elements",
               failure();
      picked.push_back((*extents)[index < 0 ? index + size : index]);
    }
    n.setSymbolicOutput(0, std::move(picked), indicesType.getRank());
    return success();
  }
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.attrInt("axis", 0), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  if (failed(n.boundIndices(1, n.inputType(0).getDimSize(*axis))))
    return failure();
  return n.setResult(
      n.create<GatherOp>(n.input(0), n.input(1), n.b.getI64IntegerAttr(*axis)));
}

/// Expand to a shape computed from dynamic extents or given as data: each
/// extent the broadcast of the input's and the shape's, the input's where it
/// is not 1 (a dynamic one read as the result's, which the engine checks),
/// the shape's (at run time) where the input's is 1 or absent.
LogicalResult importRuntimeExpand(NodeImporter &n) {
  FailureOr<SmallVector<SymbolicExtent>> extents = n.extentsOf(1, "shape");
  if (failed(extents))
    return failure();
  RankedTensorType x = n.inputType(0);
  Value data = n.input(0);
  int64_t rank = std::max<int64_t>(x.getRank(), extents->size());
  SmallVector<int64_t> shape;
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t i = d - (rank - x.getRank()), k = d - (rank - extents->size());
    int64_t in = i >= 0 ? x.getDimSize(i) : 1;
    if (k < 0) {
      shape.push_back(in);
      if (ShapedType::isDynamic(in))
        sizes.push_back(n.extentOf(data, i));
      continue;
    }
    const SymbolicExtent &e = (*extents)[k];
    std::optional<int64_t> given;
    if (e.isConstant())
      given = e.constant;
    else if (e.source && !cast<RankedTensorType>(e.source.getType())
                              .isDynamicDim(e.dim))
      given = cast<RankedTensorType>(e.source.getType()).getDimSize(e.dim);
    if (in != 1) {
      if (given && *given != 1 && !ShapedType::isDynamic(in) && *given != in)
        return n.emitError() << "cannot expand dimension " << i << " of "
                             << x << " to " << *given,
               failure();
      shape.push_back(in);
      if (ShapedType::isDynamic(in))
        sizes.push_back(n.extentOf(data, i));
      continue;
    }
    if (given) {
      shape.push_back(*given);
      continue;
    }
    shape.push_back(ShapedType::kDynamic);
    sizes.push_back(n.nonNegative(n.extentValue(e)));
  }
  n.setOutput(0, ExpandOp::create(n.b, n.loc,
                                  RankedTensorType::get(shape, x.getElementType()),
                                  data, sizes));
  return success();
}

LogicalResult importExpand(NodeImporter &n) {
  if (n.symbolicInput(1) || n.isRuntimeInput(1))
    return importRuntimeExpand(n);
  FailureOr<SmallVector<int64_t>> shape = n.constantInts(1, "shape");
  if (failed(shape))
    return failure();
  RankedTensorType x = n.inputType(0);
  FailureOr<SmallVector<int64_t>> result =
      broadcastShapes(x.getShape(), *shape);
  if (failed(result) || failed(checkedNumElements(*result)))
    return n.emitError() << "cannot expand " << x << " to shape ["
                         << llvm::make_range(shape->begin(), shape->end())
                         << "]",
           failure();
  return n.setResult(n.create<ExpandOp>(x.clone(*result), n.input(0)));
}

LogicalResult importPad(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  SmallVector<int64_t> pads;
  double value = 0;
  if (n.sinceVersion < 11) {
    pads = n.attrInts("pads");
    value = n.attrFloat("value", 0);
  } else {
    FailureOr<SmallVector<int64_t>> p = n.constantInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (n.hasInput(2)) {
      FailureOr<double> v = n.constantScalar(2, "constant_value");
      if (failed(v))
        return failure();
      value = *v;
    }
  }
  if (static_cast<int64_t>(pads.size()) != 2 * x.getRank())
    return n.emitError() << "pads needs " << 2 * x.getRank() << " entries, got "
                         << pads.size(),
           failure();
  std::string mode = n.attrString("mode", "constant");
  std::optional<PadMode> padMode = symbolizePadMode(mode);
  if (!padMode)
    return n.emitError() << "unknown pad mode '" << mode << "'", failure();
  return n.setResult(n.create<PadOp>(n.input(0), n.b.getDenseI64ArrayAttr(pads),
                                     PadModeAttr::get(n.ctx, *padMode),
                                     n.b.getF64FloatAttr(value)));
}

} // namespace

void int21::onnx_import::registerTensorOps(OpImportTable &t) {
  t["Identity"] = {importIdentity};
  t["Dropout"] = {importDropout};
  t["Constant"] = {importConstant};
  t["ConstantOfShape"] = {importConstantOfShape, 9};
  t["Range"] = {importRange, 11};
  t["Shape"] = {importShape};
  t["Size"] = {importSize};
  t["Transpose"] = {importTranspose};
  t["Reshape"] = {importReshape, 5};
  t["Flatten"] = {importFlatten};
  t["Squeeze"] = {importSqueeze};
  t["Unsqueeze"] = {importUnsqueeze};
  t["Concat"] = {importConcat};
  t["Split"] = {importSplit};
  t["Slice"] = {importSlice};
  t["Gather"] = {importGather};
  t["Expand"] = {importExpand, 8};
  t["Pad"] = {importPad};
  allowSequences(t, {"Identity"});
  allowDynamicShapes(t, {"Identity", "Flatten", "Transpose", "Concat",
                         "Shape", "Reshape", "Pad", "Slice", "Squeeze",
                         "Unsqueeze", "Expand", "Gather"});
  allowSymbolicShapes(t, {"Shape", "Gather", "Unsqueeze", "Squeeze", "Concat",
                          "Reshape", "ConstantOfShape", "Slice", "Expand",
                          "Range"});
}

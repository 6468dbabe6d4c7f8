//===- ReductionOps.cpp - import of ONNX reductions, scans and TopK -------===//
//
// The five basic reductions map onto int21 reduce ops; ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSum and ReduceLogSumExp are compositions of an
// elementwise prologue, a sum and an elementwise epilogue. ArgMax, ArgMin,
// CumSum and TopK have ops of their own.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

enum class Prologue { None, Abs, Square, Exp };
enum class Epilogue { None, Sqrt, Log };

/// The sorted, unique, non-negative reduction axes; empty means "all", or
/// nothing at all when `noop` is set (ReduceSum 13's noop_with_empty_axes).
FailureOr<SmallVector<int64_t>> reductionAxes(NodeImporter &n, int64_t rank,
                                              bool &noop) {
  SmallVector<int64_t> axes;
  // ReduceSum takes its axes as an input from opset 13; the others from 18.
  bool axesAsInput = n.opType() == "ReduceSum" && n.sinceVersion >= 13;
  if (axesAsInput) {
    if (n.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> given = n.constantInts(1, "axes");
      if (failed(given))
        return failure();
      axes = *given;
    }
  } else {
    axes = n.attrInts("axes");
  }
  noop = axes.empty() && axesAsInput && n.attrInt("noop_with_empty_axes", 0);
  if (axes.empty() && !noop)
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  for (int64_t &axis : axes) {
    FailureOr<int64_t> normalized = n.normalizeAxis(axis, rank);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

/// A reduction over axes given as an input of the model (of static shape,
/// its elements read at run time; the engine refuses an axis outside
/// [-rank, rank - 1] before the run): along each dimension, the reduction
/// kept as 1 and broadcast back, selected where the dimension is one of the
/// axes, then the result sliced to 1 along those (and, without keepdims,
/// reshaped to the other extents, in order). A rare form (exporters give
/// the axes as constants): one reduction per dimension.
template <typename ReduceOpTy>
FailureOr<Value> reduceOverRuntimeAxes(NodeImporter &n, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  RankedTensorType axesType = n.inputType(1);
  int64_t count = axesType.getNumElements();
  if (count > rank)
    return n.emitError() << "names " << count << " axes of an input of rank "
                         << rank,
           failure();
  if (failed(n.boundIndices(1, rank)))
    return failure();
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Type axisType = axesType.getElementType();
  SmallVector<Value> axes;
  for (int64_t k = 0; k < count; ++k)
    axes.push_back(tensor::ExtractOp::create(
        b, loc, n.input(1),
        ValueRange{arith::ConstantIndexOp::create(b, loc, k)}));
  auto index = [&](int64_t c) -> Value {
    return arith::ConstantIndexOp::create(b, loc, c);
  };
  // Whether dimension d is one of the axes (d, or d - rank).
  SmallVector<Value> reduced;
  for (int64_t d = 0; d < rank; ++d) {
    Value any = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (Value a : axes)
      for (int64_t named : {d, d - rank})
        any = arith::OrIOp::create(
            b, loc, any,
            arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq, a,
                arith::ConstantOp::create(
                    b, loc, b.getIntegerAttr(axisType, named))));
    reduced.push_back(any);
  }
  bool keepdims = n.attrInt("keepdims", 1) != 0;
  FailureOr<Value> y = v;
  SmallVector<int64_t> shape;
  SmallVector<Value> starts, sizes, steps;
  for (int64_t d = 0; d < rank; ++d) {
    FailureOr<Value> along = n.create<ReduceOpTy>(
        *y, b.getDenseI64ArrayAttr({d}), b.getBoolAttr(true));
    if (failed(along))
      return failure();
    Value condition = tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({}, b.getI1Type()),
        ValueRange{reduced[d]});
    y = n.create<WhereOp>(condition, *along, *y);
    if (failed(y))
      return failure();
    starts.push_back(index(0));
    steps.push_back(index(1));
    Value extent = n.extentOf(v, d);
    sizes.push_back(
        arith::SelectOp::create(b, loc, reduced[d], index(1), extent));
    shape.push_back(type.getDimSize(d) == 1 ? 1 : ShapedType::kDynamic);
  }
  Value sliced = DynamicSliceOp::create(b, loc, type.clone(shape), *y, starts,
                                        sizes, steps);
  if (keepdims)
    return sliced;
  // The extents of the dimensions kept, in order: the i-th is the extent of
  // the dimension that has i kept ones before it.
  SmallVector<Value> kept;
  for (int64_t i = 0; i < rank - count; ++i) {
    Value extent = index(0), before = index(0);
    for (int64_t d = 0; d < rank; ++d) {
      Value keep = arith::XOrIOp::create(
          b, loc, reduced[d], arith::ConstantIntOp::create(b, loc, 1, 1));
      Value at = arith::AndIOp::create(
          b, loc, keep,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, before,
                                index(i)));
      extent = arith::SelectOp::create(b, loc, at, sizes[d], extent);
      before = arith::AddIOp::create(
          b, loc, before,
          arith::SelectOp::create(b, loc, keep, index(1), index(0)));
    }
    kept.push_back(extent);
  }
  SmallVector<int64_t> keptShape(rank - count, ShapedType::kDynamic);
  return ReshapeOp::create(b, loc, type.clone(keptShape), sliced, kept)
      .getResult();
}

template <typename ReduceOpTy, Prologue pro = Prologue::None,
          Epilogue epi = Epilogue::None>
LogicalResult importReduce(NodeImporter &n) {
  Value x = n.input(0);
  bool noop = false;
  // Axes an input of the model gives (a vector of static length): read at
  // run time; none of them is the empty set, known now.
  RankedTensorType axesType = n.inputType(1);
  bool axesGiven = n.opType() == "ReduceSum" && n.sinceVersion >= 13 &&
                   n.isRuntimeInput(1) && axesType.hasStaticShape() &&
                   axesType.getRank() == 1 &&
                   isa<IntegerType>(axesType.getElementType());
  bool runtimeAxes = axesGiven && axesType.getNumElements() > 0;
  FailureOr<SmallVector<int64_t>> axes = SmallVector<int64_t>();
  if (axesGiven && !runtimeAxes) {
    noop = n.attrInt("noop_with_empty_axes", 0) != 0;
    axes = llvm::to_vector(llvm::seq<int64_t>(0, n.inputType(0).getRank()));
  } else if (!runtimeAxes) {
    axes = reductionAxes(n, n.inputType(0).getRank(), noop);
  }
  if (failed(axes))
    return failure();
  FailureOr<Value> v = x;
  if constexpr (pro == Prologue::Abs)
    v = n.create<AbsOp>(x);
  else if constexpr (pro == Prologue::Square)
    v = n.create<MulOp>(x, x);
  else if constexpr (pro == Prologue::Exp)
    v = n.create<ExpOp>(x);
  if (failed(v))
    return failure();
  if (runtimeAxes) {
    v = reduceOverRuntimeAxes<ReduceOpTy>(n, *v);
    if (failed(v))
      return failure();
  } else if (!noop) {
    v = n.create<ReduceOpTy>(*v, n.b.getDenseI64ArrayAttr(*axes),
                             n.b.getBoolAttr(n.attrInt("keepdims", 1) != 0));
    if (failed(v))
      return failure();
  }
  if constexpr (epi == Epilogue::Sqrt)
    v = n.create<SqrtOp>(*v);
  else if constexpr (epi == Epilogue::Log)
    v = n.create<LogOp>(*v);
  if (failed(v))
    return failure();
  n.setOutput(0, *v);
  return success();
}

template <typename ArgOpTy> LogicalResult importArgReduce(NodeImporter &n) {
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.attrInt("axis", 0), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return n.setResult(n.create<ArgOpTy>(
      n.input(0), n.b.getI64IntegerAttr(*axis),
      n.b.getBoolAttr(n.attrInt("keepdims", 1) != 0),
      n.b.getBoolAttr(n.attrInt("select_last_index", 0) != 0)));
}

/// CumSum along an axis given as an input of the model: the sum along every
/// dimension, the one the axis names selected at run time (the engine
/// refuses an axis outside [-rank, rank - 1] before the run). A rare form
/// (exporters give the axis as a constant): rank sums for one.
LogicalResult importRuntimeCumSum(NodeImporter &n) {
  RankedTensorType axisType = n.inputType(1);
  int64_t rank = n.inputType(0).getRank();
  if (!axisType.hasStaticShape() || axisType.getNumElements() != 1 ||
      !isa<IntegerType>(axisType.getElementType()))
    return n.emitError() << "input 'axis' must hold one integer", failure();
  if (rank == 0)
    return n.emitError() << "needs an input of rank 1 or more", failure();
  if (failed(n.boundIndices(1, rank)))
    return failure();
  FailureOr<Value> axis = n.scalarInput(1, "axis");
  if (failed(axis))
    return failure();
  Type axisElement = axisType.getElementType();
  BoolAttr exclusive = n.b.getBoolAttr(n.attrInt("exclusive", 0) != 0);
  BoolAttr reverse = n.b.getBoolAttr(n.attrInt("reverse", 0) != 0);
  Value result;
  for (int64_t d = rank - 1; d >= 0; --d) {
    FailureOr<Value> sum = n.create<CumSumOp>(
        n.input(0), n.b.getI64IntegerAttr(d), exclusive, reverse);
    if (failed(sum))
      return failure();
    if (!result) {
      result = *sum;
      continue;
    }
    FailureOr<Value> atD =
        n.create<EqualOp>(*axis, n.splat(axisElement, static_cast<double>(d)));
    FailureOr<Value> fromEnd = n.create<EqualOp>(
        *axis, n.splat(axisElement, static_cast<double>(d - rank)));
    if (failed(atD) || failed(fromEnd))
      return failure();
    FailureOr<Value> chosen = n.create<OrOp>(*atD, *fromEnd);
    if (failed(chosen))
      return failure();
    FailureOr<Value> selected = n.create<WhereOp>(*chosen, *sum, result);
    if (failed(selected))
      return failure();
    result = *selected;
  }
  n.setOutput(0, result);
  return success();
}

LogicalResult importCumSum(NodeImporter &n) {
  if (n.isRuntimeInput(1))
    return importRuntimeCumSum(n);
  FailureOr<double> given = n.constantScalar(1, "axis");
  if (failed(given))
    return failure();
  FailureOr<int64_t> axis =
      n.normalizeAxis(static_cast<int64_t>(*given), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return n.setResult(
      n.create<CumSumOp>(n.input(0), n.b.getI64IntegerAttr(*axis),
                         n.b.getBoolAttr(n.attrInt("exclusive", 0) != 0),
                         n.b.getBoolAttr(n.attrInt("reverse", 0) != 0)));
}

/// TopK with K given as an input of the model: the whole axis in order,
/// then its first K along the axis (a dynamic extent; the engine refuses a
/// K outside [0, extent] before the run).
LogicalResult importRuntimeTopK(NodeImporter &n, int64_t axis) {
  RankedTensorType x = n.inputType(0);
  RankedTensorType kType = n.inputType(1);
  if (!kType.hasStaticShape() || kType.getNumElements() != 1 ||
      !isa<IntegerType>(kType.getElementType()))
    return n.emitError() << "input 'K' must hold one integer", failure();
  int64_t extent = x.getDimSize(axis);
  if (ShapedType::isDynamic(extent))
    return n.emitError() << "K given at run time needs a static extent along "
                            "the axis, got "
                         << x,
           failure();
  if (failed(n.boundValues(1, 0, extent)))
    return failure();
  FailureOr<TopKOp> all = n.createMultiResult<TopKOp>(
      2, n.input(0), n.b.getI64IntegerAttr(extent),
      n.b.getI64IntegerAttr(axis),
      n.b.getBoolAttr(n.attrInt("largest", 1) != 0));
  if (failed(all))
    return failure();
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Value k = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                       n.scalarValue(1));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> starts(x.getRank(), zero), steps(x.getRank(), one);
  SmallVector<Value> sizes;
  SmallVector<int64_t> shape(x.getShape());
  shape[axis] = ShapedType::kDynamic;
  for (int64_t d = 0; d < x.getRank(); ++d)
    sizes.push_back(d == axis ? k : n.extentOf(n.input(0), d));
  for (auto [i, result] : llvm::enumerate(all->getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    n.setOutput(i, DynamicSliceOp::create(b, loc, type.clone(shape), result,
                                          starts, sizes, steps));
  }
  return success();
}

LogicalResult importTopK(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  FailureOr<int64_t> axis = n.normalizeAxis(n.attrInt("axis", -1), x.getRank());
  if (failed(axis))
    return failure();
  int64_t k;
  if (n.sinceVersion < 10) {
    k = n.attrInt("k", -1);
  } else if (n.isRuntimeInput(1)) {
    return importRuntimeTopK(n, *axis);
  } else {
    FailureOr<double> given = n.constantScalar(1, "K");
    if (failed(given))
      return failure();
    k = static_cast<int64_t>(*given);
  }
  if (k < 0 || k > x.getDimSize(*axis))
    return n.emitError() << "k = " << k << " is outside [0, "
                         << x.getDimSize(*axis) << "]",
           failure();
  // Unsorted results may come in any order: the sorted order is one.
  FailureOr<TopKOp> topk = n.createMultiResult<TopKOp>(
      2, n.input(0), n.b.getI64IntegerAttr(k), n.b.getI64IntegerAttr(*axis),
      n.b.getBoolAttr(n.attrInt("largest", 1) != 0));
  if (failed(topk))
    return failure();
  n.setOutput(0, topk->getValues());
  n.setOutput(1, topk->getIndices());
  return success();
}

} // namespace

void int21::onnx_import::registerReductionOps(OpImportTable &t) {
  t["ReduceSum"] = {importReduce<ReduceSumOp>};
  t["ReduceMean"] = {importReduce<ReduceMeanOp>};
  t["ReduceMax"] = {importReduce<ReduceMaxOp>};
  t["ReduceMin"] = {importReduce<ReduceMinOp>};
  t["ReduceProd"] = {importReduce<ReduceProdOp>};
  t["ReduceL1"] = {importReduce<ReduceSumOp, Prologue::Abs>};
  t["ReduceL2"] = {importReduce<ReduceSumOp, Prologue::Square, Epilogue::Sqrt>};
  t["ReduceSumSquare"] = {importReduce<ReduceSumOp, Prologue::Square>};
  t["ReduceLogSum"] = {
      importReduce<ReduceSumOp, Prologue::None, Epilogue::Log>};
  t["ReduceLogSumExp"] = {
      importReduce<ReduceSumOp, Prologue::Exp, Epilogue::Log>};
  t["ArgMax"] = {importArgReduce<ArgMaxOp>};
  t["ArgMin"] = {importArgReduce<ArgMinOp>};
  t["CumSum"] = {importCumSum, 11};
  t["TopK"] = {importTopK};
  // (ReduceProd imports on dynamic extents; its lowering refuses them.)
  allowDynamicShapes(t, {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                         "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceSumSquare", "ReduceLogSum",
                         "ReduceLogSumExp"});
}

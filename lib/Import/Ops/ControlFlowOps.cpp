//===- ControlFlowOps.cpp - If, Loop and Scan -----------------------------===//
//
// Control flow imports as scf ops whose regions hold the subgraphs' int21
// ops: If as scf.if, Loop as scf.while, Scan as scf.for. The rest of the
// pipeline forms fusion groups and kernels inside the regions as it does in
// the function. A constant condition imports the branch it takes in place,
// so a static model keeps the kernels it has without the If.
//
// Values that change extents from one iteration to the next are carried at
// the join of their types (a dynamic extent where they differ). Scan outputs
// (Loop's and Scan's) are written into a buffer of the trip count's bound,
// one slice per iteration; Loop's then hold the iterations that ran, an
// extent the run computes (int21.bounded_extent). The index checks of a
// subgraph's nodes (GraphImporter::addIndexCheck) leave the region as the
// least and greatest over its runs.
//
//===----------------------------------------------------------------------===//

#include "../GraphImporter.h"
#include "../NodeImporter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

using CheckList = SmallVector<std::pair<Value, ArrayAttr>>;

/// The name diagnostics give the node (its location's), then `/attr/`.
std::string subgraphScope(NodeImporter &n, StringRef attr) {
  return n.displayName() + "/" + attr.str() + "/";
}

/// The type that holds values of both `a` and `b`: their extents where they
/// agree, dynamic where they differ. Null when rank or element type differ.
RankedTensorType joinTypes(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a);
  auto tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb || ta.getRank() != tb.getRank() ||
      ta.getElementType() != tb.getElementType())
    return {};
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(ta.getShape(), tb.getShape()))
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(shape, ta.getElementType());
}

Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(b, loc, type, value);
}

/// The one element of `value` (a tensor of one element) as a scalar.
Value scalarOf(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<Value> index(type.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, value, index);
}

/// The least bound a check allows: [min, min] is a check that always holds
/// (what a branch not taken, or a loop that never ran, reports).
Value neutralCheck(OpBuilder &b, Location loc, Type checkType,
                   ArrayAttr bounds) {
  auto type = cast<RankedTensorType>(checkType);
  int64_t least = 0;
  if (auto dict = dyn_cast_or_null<DictionaryAttr>(
          bounds.empty() ? Attribute() : bounds[0]))
    if (auto min = dict.getAs<IntegerAttr>("min"))
      least = min.getInt();
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type, IntegerAttr::get(type.getElementType(),
                                                    least)));
}

/// `acc` ([least, greatest] so far) combined with `check` of one more run.
Value combineChecks(OpBuilder &b, Location loc, Value acc, Value check) {
  auto at = [&](Value v, int64_t i) {
    return tensor::ExtractOp::create(
        b, loc, v, ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
  };
  Value least = arith::MinSIOp::create(b, loc, at(acc, 0), at(check, 0));
  Value greatest = arith::MaxSIOp::create(b, loc, at(acc, 1), at(check, 1));
  return tensor::FromElementsOp::create(b, loc, acc.getType(),
                                        ValueRange{least, greatest});
}

/// Whether `value` is a constant, and then its first element as a boolean
/// or integer.
std::optional<int64_t> constantScalarOf(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  if (attr.getElementType().isInteger(1))
    return *attr.getValues<bool>().begin() ? 1 : 0;
  if (isa<IntegerType>(attr.getElementType()))
    return (*attr.getValues<APInt>().begin()).getSExtValue();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

LogicalResult importIf(NodeImporter &n) {
  GraphImporter &graph = n.graphImporter();
  OpBuilder &b = n.b;
  Location loc = n.loc;
  const onnx::GraphProto *branches[2] = {n.attrGraph("then_branch"),
                                         n.attrGraph("else_branch")};
  StringRef names[2] = {"then_branch", "else_branch"};
  for (int k = 0; k < 2; ++k) {
    if (!branches[k])
      return n.emitError() << "attribute '" << names[k]
                           << "' (a graph) is missing",
             failure();
    if (branches[k]->input_size() != 0)
      return n.emitError() << "" << names[k]
                           << " takes inputs; a branch takes none",
             failure();
    if (branches[k]->output_size() < static_cast<int>(n.numOutputs()))
      return n.emitError() << "" << names[k] << " has "
                           << branches[k]->output_size()
                           << " outputs; the node has " << n.numOutputs(),
             failure();
  }
  auto condType = cast<RankedTensorType>(n.input(0).getType());
  if (!condType.hasStaticShape() || condType.getNumElements() != 1 ||
      !condType.getElementType().isInteger(1))
    return n.emitError() << "the condition must be one bool, not "
                         << condType,
           failure();

  // A constant condition: the branch taken, in place.
  if (std::optional<int64_t> taken = constantScalarOf(n.input(0))) {
    int k = *taken ? 0 : 1;
    CheckList checks;
    FailureOr<SmallVector<Value>> results = importSubgraph(
        graph, *branches[k], subgraphScope(n, names[k]), {}, b, checks);
    if (failed(results))
      return failure();
    for (auto [check, bounds] : checks)
      graph.addIndexCheck(check, bounds);
    for (unsigned i = 0; i < n.numOutputs(); ++i)
      n.setOutput(i, (*results)[i]);
    return success();
  }

  // Each branch imported into a region of an scf.if without results, the
  // result types joined, then the blocks moved into the scf.if that yields.
  Value cond = n.scalarValue(0);
  auto probe = scf::IfOp::create(b, loc, TypeRange{}, cond,
                                 /*withElseRegion=*/true);
  SmallVector<Value> yields[2];
  CheckList checks[2];
  for (int k = 0; k < 2; ++k) {
    OpBuilder::InsertionGuard guard(b);
    Block *block = k == 0 ? probe.thenBlock() : probe.elseBlock();
    b.setInsertionPoint(block->getTerminator());
    FailureOr<SmallVector<Value>> results = importSubgraph(
        graph, *branches[k], subgraphScope(n, names[k]), {}, b, checks[k]);
    if (failed(results)) {
      probe.erase();
      return failure();
    }
    yields[k] = std::move(*results);
  }
  SmallVector<Type> types;
  for (unsigned i = 0; i < n.numOutputs(); ++i) {
    RankedTensorType joined =
        joinTypes(yields[0][i].getType(), yields[1][i].getType());
    if (!joined) {
      InFlightDiagnostic diag = n.emitError();
      diag << "output " << i << " is " << yields[0][i].getType()
           << " in then_branch and " << yields[1][i].getType()
           << " in else_branch; int21 needs one rank and element type";
      probe.erase();
      return failure();
    }
    types.push_back(joined);
  }
  for (int k = 0; k < 2; ++k)
    for (auto &check : checks[k])
      types.push_back(check.first.getType());

  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  ifOp.getThenRegion().takeBody(probe.getThenRegion());
  ifOp.getElseRegion().takeBody(probe.getElseRegion());
  probe.erase();
  for (int k = 0; k < 2; ++k) {
    Block *block = k == 0 ? ifOp.thenBlock() : ifOp.elseBlock();
    block->getTerminator()->erase();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(block);
    SmallVector<Value> values;
    for (unsigned i = 0; i < n.numOutputs(); ++i)
      values.push_back(castTo(b, loc, yields[k][i], types[i]));
    // The branch's own checks, then the other's (always holding here).
    for (int j = 0; j < 2; ++j)
      for (auto &[check, bounds] : checks[j])
        values.push_back(j == k ? check
                               : neutralCheck(b, loc, check.getType(), bounds));
    scf::YieldOp::create(b, loc, values);
  }
  unsigned next = n.numOutputs();
  for (int j = 0; j < 2; ++j)
    for (auto &check : checks[j])
      graph.addIndexCheck(ifOp.getResult(next++), check.second);
  for (unsigned i = 0; i < n.numOutputs(); ++i)
    n.setOutput(i, ifOp.getResult(i));
  return success();
}

//===----------------------------------------------------------------------===//
// Loops: what Loop and Scan share
//===----------------------------------------------------------------------===//

/// A loop body to import: its subgraph, and where its scan outputs go.
struct LoopBody {
  const onnx::GraphProto *graph;
  std::string scope;
  /// Body outputs that are carried (after any leading condition output).
  unsigned numCarried;
  /// Scan outputs: the axis of the buffer they are stacked along and
  /// whether the last iteration writes position 0.
  SmallVector<int64_t> scanAxes;
  SmallVector<bool> scanReversed;
};

/// What one import of a body found: the types its outputs have, and its
/// index checks.
struct BodyTypes {
  SmallVector<Type> carried;
  SmallVector<RankedTensorType> scans;
  SmallVector<std::pair<Type, ArrayAttr>> checks;
};

/// The type of a buffer that stacks `count` values of type `slice` along
/// `axis`.
RankedTensorType stackedType(RankedTensorType slice, int64_t axis,
                             int64_t count) {
  SmallVector<int64_t> shape(slice.getShape());
  shape.insert(shape.begin() + axis, count);
  return RankedTensorType::get(shape, slice.getElementType());
}

/// An empty buffer stacking `count` (an index) slices of type `slice`.
Value emptyStack(OpBuilder &b, Location loc, RankedTensorType slice,
                 int64_t axis, Value count) {
  std::optional<int64_t> fixed = getConstantIntValue(count);
  RankedTensorType type =
      stackedType(slice, axis, fixed ? *fixed : ShapedType::kDynamic);
  SmallVector<Value> sizes;
  if (!fixed)
    sizes.push_back(count);
  return tensor::EmptyOp::create(b, loc, type, sizes);
}

/// `buffer` with `slice` written at position `pos` (an index) along `axis`.
Value stackInto(OpBuilder &b, Location loc, Value buffer, Value slice,
                int64_t axis, Value pos) {
  auto type = cast<RankedTensorType>(slice.getType());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t d = 0, s = 0; d <= type.getRank(); ++d) {
    strides.push_back(b.getIndexAttr(1));
    if (d == axis) {
      offsets.push_back(pos);
      sizes.push_back(b.getIndexAttr(1));
      continue;
    }
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(type.getDimSize(s++)));
  }
  return tensor::InsertSliceOp::create(b, loc, slice, buffer, offsets, sizes,
                                       strides);
}

/// `value`, a body's output, at the extents the body declares for it where
/// the import computed dynamic ones (a slice at the iteration number is one
/// element, which ONNX's shape inference knows and the import does not):
/// viewed at the declared extents, and each such extent checked after the
/// run (an index check of [extent, extent] that must lie in [declared,
/// declared]).
Value refineToDeclared(OpBuilder &b, Location loc, Value value,
                       const onnx::ValueInfoProto &declared, StringRef scope,
                       CheckList &checks) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.hasStaticShape() || !declared.type().has_tensor_type() ||
      !declared.type().tensor_type().has_shape())
    return value;
  const auto &dims = declared.type().tensor_type().shape().dim();
  if (dims.size() != type.getRank())
    return value;
  SmallVector<int64_t> shape(type.getShape());
  for (auto [d, dim] : llvm::enumerate(dims)) {
    if (!type.isDynamicDim(d) || !dim.has_dim_value() || dim.dim_value() < 0)
      continue;
    int64_t fixed = dim.dim_value();
    shape[d] = fixed;
    Value extent = arith::IndexCastOp::create(
        b, loc, b.getI64Type(), tensor::DimOp::create(b, loc, value, d));
    Value check = tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({2}, b.getI64Type()),
        ValueRange{extent, extent});
    std::string what = "'" + scope.drop_back().str() + "' output '" +
                       declared.name() + "' (its extent " +
                       std::to_string(d) + ", declared " +
                       std::to_string(fixed) + ")";
    Attribute bound = b.getDictionaryAttr(
        {b.getNamedAttr("min", b.getI64IntegerAttr(fixed)),
         b.getNamedAttr("max", b.getI64IntegerAttr(fixed)),
         b.getNamedAttr("node", b.getStringAttr(what))});
    checks.push_back({check, b.getArrayAttr({bound})});
  }
  return castTo(b, loc, value, type.clone(shape));
}

/// Imports the body (`graph` of `body`) at `b` with inputs `args`: its
/// carried outputs cast to `carriedTypes` where given, its scan outputs
/// written into `buffers` at `pos` (index) when given, its checks combined
/// into `accs` when given. Returns the values to yield: carried, buffers,
/// checks (the condition output, if the body has one, first as a scalar).
FailureOr<SmallVector<Value>>
importBody(NodeImporter &n, const LoopBody &body, ValueRange args,
           bool hasCondition, ArrayRef<Type> carriedTypes, ValueRange buffers,
           Value pos, Value count, ValueRange accs, BodyTypes &found) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  CheckList checks;
  FailureOr<SmallVector<Value>> outs = importSubgraph(
      n.graphImporter(), *body.graph, body.scope, args, b, checks);
  if (failed(outs))
    return failure();
  unsigned first = hasCondition ? 1 : 0;
  for (unsigned i = first; i < outs->size(); ++i)
    (*outs)[i] = refineToDeclared(b, loc, (*outs)[i], body.graph->output(i),
                                  body.scope, checks);
  SmallVector<Value> yields;
  if (hasCondition) {
    auto type = cast<RankedTensorType>((*outs)[0].getType());
    if (!type.hasStaticShape() || type.getNumElements() != 1 ||
        !type.getElementType().isInteger(1))
      return n.emitError()
                           << "the body's condition output must be one "
                              "bool, not "
                           << type,
             failure();
    yields.push_back(scalarOf(b, loc, (*outs)[0]));
  }
  found = {};
  for (unsigned i = 0; i < body.numCarried; ++i) {
    Value v = (*outs)[first + i];
    found.carried.push_back(v.getType());
    // (The types are settled by then: each holds its value.)
    if (!carriedTypes.empty())
      v = castTo(b, loc, v, carriedTypes[i]);
    yields.push_back(v);
  }
  for (unsigned k = 0; k < body.scanAxes.size(); ++k) {
    Value v = (*outs)[first + body.numCarried + k];
    auto type = cast<RankedTensorType>(v.getType());
    found.scans.push_back(type);
    if (buffers.empty())
      continue;
    auto stacked = cast<RankedTensorType>(buffers[k].getType());
    RankedTensorType slice =
        RankedTensorType::get(llvm::to_vector(llvm::concat<const int64_t>(
                                  stacked.getShape().take_front(body.scanAxes[k]),
                                  stacked.getShape().drop_front(
                                      body.scanAxes[k] + 1))),
                              stacked.getElementType());
    if (type != slice)
      return n.emitError() << "scan output " << k << " is "
                           << type << " in one iteration and " << slice
                           << " in another",
             failure();
    Value at = pos;
    if (body.scanReversed[k])
      at = arith::SubIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, count,
                                arith::ConstantIndexOp::create(b, loc, 1)),
          pos);
    yields.push_back(stackInto(b, loc, buffers[k], v, body.scanAxes[k], at));
  }
  for (auto [i, check] : llvm::enumerate(checks)) {
    found.checks.push_back({check.first.getType(), check.second});
    if (!accs.empty())
      yields.push_back(combineChecks(b, loc, accs[i], check.first));
  }
  return yields;
}

/// The scan output axes (ONNX attribute `name`, default 0) of `count`
/// outputs of rank `rank + 1`, non-negative.
FailureOr<SmallVector<int64_t>> scanAxes(NodeImporter &n, StringRef name,
                                         unsigned count,
                                         ArrayRef<int64_t> ranks) {
  SmallVector<int64_t> axes = n.attrInts(name, {});
  if (axes.empty())
    axes.assign(count, 0);
  if (axes.size() != count)
    return n.emitError() << "" << name << " has "
                         << axes.size() << " entries for " << count
                         << " values",
           failure();
  for (auto [axis, rank] : llvm::zip(axes, ranks)) {
    FailureOr<int64_t> normal = n.normalizeAxis(axis, rank, name);
    if (failed(normal))
      return failure();
    axis = *normal;
  }
  return axes;
}

SmallVector<bool> directions(NodeImporter &n, StringRef name, unsigned count) {
  SmallVector<int64_t> values = n.attrInts(name, {});
  SmallVector<bool> reversed(count, false);
  for (unsigned i = 0; i < std::min<size_t>(count, values.size()); ++i)
    reversed[i] = values[i] != 0;
  return reversed;
}

/// Imports the body with `probe` (which erases what it built) until the
/// carried types hold every iteration's values: each becomes the join of
/// itself and what the body returns for it (a value that grows is carried
/// at a dynamic extent). `found` is what the last probe found; its scan
/// outputs must have static shapes (they are stacked).
LogicalResult settleTypes(
    NodeImporter &n, SmallVectorImpl<Type> &carried,
    llvm::function_ref<LogicalResult(ArrayRef<Type>, BodyTypes &)> probe,
    BodyTypes &found) {
  for (int attempt = 0;; ++attempt) {
    if (failed(probe(carried, found)))
      return failure();
    bool changed = false;
    for (auto [i, pair] : llvm::enumerate(llvm::zip(carried, found.carried))) {
      auto &[have, got] = pair;
      RankedTensorType join = joinTypes(have, got);
      if (!join)
        return n.emitError() << "carried value " << i
                             << " changes rank or element type in the body ("
                             << have << " to " << got << ")",
               failure();
      changed |= join != have;
      have = join;
    }
    if (!changed)
      break;
    if (attempt == 2)
      return n.emitError() << "the carried values' types do not settle",
             failure();
  }
  for (auto [k, slice] : llvm::enumerate(found.scans))
    if (!slice.hasStaticShape())
      return n.emitError() << "scan output " << k << " has the dynamic "
                           << "shape " << slice << " in an iteration; int21 "
                           << "stacks scan outputs of static shape only",
             failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

LogicalResult importLoop(NodeImporter &n) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  GraphImporter &graph = n.graphImporter();
  const onnx::GraphProto *bodyGraph = n.attrGraph("body");
  if (!bodyGraph)
    return n.emitError() << "attribute 'body' (a graph) is missing",
           failure();
  unsigned numCarried = n.numInputs() > 2 ? n.numInputs() - 2 : 0;
  if (bodyGraph->input_size() != static_cast<int>(2 + numCarried))
    return n.emitError() << "the body takes " << bodyGraph->input_size()
                         << " inputs; it must take 2 + " << numCarried
                         << " (iteration, condition, carried values)",
           failure();
  if (bodyGraph->output_size() < static_cast<int>(1 + numCarried))
    return n.emitError() << "the body returns "
                         << bodyGraph->output_size()
                         << " values; it must return the condition and "
                         << numCarried << " carried values first",
           failure();
  unsigned numScans = bodyGraph->output_size() - 1 - numCarried;
  for (unsigned i = 0; i < numCarried; ++i)
    if (!n.hasInput(2 + i))
      return n.emitError() << "carried value " << i
                           << " has no initial value",
             failure();

  LoopBody body{bodyGraph, subgraphScope(n, "body"), numCarried, {}, {}};
  body.scanAxes.assign(numScans, 0);
  body.scanReversed.assign(numScans, false);

  // The trip count and the first condition, as scalars; a constant one is
  // a constant.
  Type i64 = b.getI64Type();
  Value limit;
  std::optional<int64_t> fixedLimit;
  if (n.hasInput(0)) {
    fixedLimit = constantScalarOf(n.input(0));
    limit = fixedLimit ? arith::ConstantIntOp::create(b, loc, i64, *fixedLimit)
                             .getResult()
                       : n.scalarValue(0);
  }
  Value cond0;
  if (n.hasInput(1)) {
    std::optional<int64_t> fixed = constantScalarOf(n.input(1));
    cond0 = fixed ? arith::ConstantIntOp::create(b, loc, b.getI1Type(), *fixed)
                        .getResult()
                  : n.scalarValue(1);
  } else {
    cond0 = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  }
  // The bound of the iterations: the trip count (0 if negative).
  Value bound;
  if (numScans) {
    if (!limit)
      return n.emitError() << "scan outputs need a trip count (input "
                              "M): without one the iterations have no bound "
                              "to allocate them at",
             failure();
    bound = n.nonNegative(
        arith::IndexCastOp::create(b, loc, b.getIndexType(), limit));
  }

  SmallVector<Value> inits;
  SmallVector<Type> carried;
  for (unsigned i = 0; i < numCarried; ++i) {
    inits.push_back(n.input(2 + i));
    carried.push_back(inits.back().getType());
  }

  // Builds the scf.while; with `probe`, only to learn the body's types (it
  // is erased).
  auto build = [&](ArrayRef<Type> carriedTypes, const BodyTypes *known,
                   BodyTypes &found) -> FailureOr<scf::WhileOp> {
    SmallVector<Value> operands{arith::ConstantIntOp::create(b, loc, i64, 0),
                                cond0};
    for (auto [init, type] : llvm::zip(inits, carriedTypes))
      operands.push_back(castTo(b, loc, init, type));
    if (known) {
      for (auto [k, slice] : llvm::enumerate(known->scans))
        operands.push_back(
            emptyStack(b, loc, slice, body.scanAxes[k], bound));
      for (auto &[type, bounds] : known->checks)
        operands.push_back(neutralCheck(b, loc, type, bounds));
    }
    SmallVector<Type> types(ValueRange(operands).getTypes());
    auto loop = scf::WhileOp::create(b, loc, types, operands);
    SmallVector<Location> locs(types.size(), loc);
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&loop.getBefore(), {}, types, locs);
    Block *after = b.createBlock(&loop.getAfter(), {}, types, locs);
    b.setInsertionPointToEnd(before);
    Value go = before->getArgument(1);
    if (limit)
      go = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                before->getArgument(0), limit),
          go);
    scf::ConditionOp::create(b, loc, go, before->getArguments());

    b.setInsertionPointToEnd(after);
    Value i = after->getArgument(0);
    SmallVector<Value> args{
        tensor::FromElementsOp::create(b, loc, RankedTensorType::get({}, i64),
                                       ValueRange{i}),
        tensor::FromElementsOp::create(
            b, loc, RankedTensorType::get({}, b.getI1Type()),
            ValueRange{after->getArgument(1)})};
    for (unsigned k = 0; k < numCarried; ++k)
      args.push_back(after->getArgument(2 + k));
    ValueRange rest = after->getArguments().drop_front(2 + numCarried);
    ValueRange buffers, accs;
    if (known) {
      buffers = rest.take_front(known->scans.size());
      accs = rest.drop_front(known->scans.size());
    }
    Value pos = arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
    FailureOr<SmallVector<Value>> yields =
        importBody(n, body, args, /*hasCondition=*/true,
                   known ? carriedTypes : ArrayRef<Type>(), buffers, pos,
                   bound, accs, found);
    if (failed(yields) || !known) {
      loop.erase();
      if (failed(yields))
        return failure();
      return scf::WhileOp();
    }
    SmallVector<Value> next{
        arith::AddIOp::create(b, loc, i,
                              arith::ConstantIntOp::create(b, loc, i64, 1))};
    next.append(*yields);
    scf::YieldOp::create(b, loc, next);
    return loop;
  };

  BodyTypes found;
  auto probe = [&](ArrayRef<Type> types, BodyTypes &into) {
    return LogicalResult(build(types, nullptr, into));
  };
  if (failed(settleTypes(n, carried, probe, found)))
    return failure();
  BodyTypes known = found;
  FailureOr<scf::WhileOp> loop = build(carried, &known, found);
  if (failed(loop))
    return failure();

  // Outputs: the final carried values, the scan outputs of the iterations
  // that ran, the checks.
  ValueRange results = loop->getResults();
  for (unsigned i = 0; i < numCarried && i < n.numOutputs(); ++i)
    n.setOutput(i, results[2 + i]);
  if (numScans) {
    Value ran = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                           results[0]);
    // The body's condition may end the loop early: the iterations that ran
    // are known during the run.
    Value count = BoundedExtentOp::create(b, loc, ran, bound);
    for (unsigned k = 0; k < numScans; ++k) {
      Value stacked = results[2 + numCarried + k];
      if (numCarried + k >= n.numOutputs())
        continue;
      auto type = cast<RankedTensorType>(stacked.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(type.getRank(),
                                               b.getIndexAttr(1));
      sizes.push_back(count);
      for (int64_t d = 1; d < type.getRank(); ++d)
        sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
      n.setOutput(numCarried + k, tensor::ExtractSliceOp::create(
                                      b, loc, stacked, offsets, sizes, strides));
    }
  }
  unsigned next = 2 + numCarried + known.scans.size();
  for (auto &check : known.checks)
    graph.addIndexCheck(results[next++], check.second);
  return success();
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

/// Scan from opset 9: states, then scan inputs sliced along their axes.
/// `values` are the node's inputs (opset 8's batch removed).
FailureOr<SmallVector<Value>> buildScan(NodeImporter &n, LoopBody &body,
                                        ArrayRef<Value> states,
                                        ArrayRef<Value> scanned,
                                        ArrayRef<int64_t> inAxes,
                                        ArrayRef<bool> inReversed,
                                        CheckList &outChecks) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  // The trip count: the scan inputs' extent along their axes.
  Value count;
  std::optional<int64_t> fixed;
  for (auto [x, axis] : llvm::zip(scanned, inAxes)) {
    auto type = cast<RankedTensorType>(x.getType());
    if (!type.isDynamicDim(axis)) {
      if (fixed && *fixed != type.getDimSize(axis))
        return n.emitError() << "the scan inputs have " << *fixed
                             << " and " << type.getDimSize(axis)
                             << " elements along their axes",
               failure();
      fixed = type.getDimSize(axis);
    }
  }
  if (fixed)
    count = arith::ConstantIndexOp::create(b, loc, *fixed);
  else
    count = n.extentOf(scanned[0], inAxes[0]);

  SmallVector<Type> carried(ValueRange(states).getTypes());
  auto sliceType = [&](Value x, int64_t axis) {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + axis);
    return RankedTensorType::get(shape, type.getElementType());
  };

  auto build = [&](ArrayRef<Type> carriedTypes, const BodyTypes *known,
                   BodyTypes &found) -> FailureOr<scf::ForOp> {
    SmallVector<Value> operands;
    for (auto [v, type] : llvm::zip(states, carriedTypes))
      operands.push_back(castTo(b, loc, v, type));
    if (known) {
      for (auto [k, slice] : llvm::enumerate(known->scans))
        operands.push_back(emptyStack(b, loc, slice, body.scanAxes[k], count));
      for (auto &[type, bounds] : known->checks)
        operands.push_back(neutralCheck(b, loc, type, bounds));
    }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, zero, count, one, operands);
    OpBuilder::InsertionGuard guard(b);
    Block *block = loop.getBody();
    if (block->mightHaveTerminator())
      b.setInsertionPoint(block->getTerminator());
    else
      b.setInsertionPointToEnd(block);
    Value t = loop.getInductionVar();
    Value last = arith::SubIOp::create(b, loc, count, one);
    SmallVector<Value> args(loop.getRegionIterArgs().take_front(states.size()));
    for (auto [x, axis, reversed] : llvm::zip(scanned, inAxes, inReversed)) {
      auto type = cast<RankedTensorType>(x.getType());
      Value at = reversed ? arith::SubIOp::create(b, loc, last, t).getResult()
                          : t;
      SmallVector<OpFoldResult> offsets, sizes, strides;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        strides.push_back(b.getIndexAttr(1));
        offsets.push_back(d == axis ? OpFoldResult(at) : b.getIndexAttr(0));
        sizes.push_back(d == axis ? OpFoldResult(b.getIndexAttr(1))
                        : type.isDynamicDim(d)
                            ? OpFoldResult(n.extentOf(x, d))
                            : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
      }
      args.push_back(tensor::ExtractSliceOp::create(
          b, loc, sliceType(x, axis), x, offsets, sizes, strides));
    }
    ValueRange rest = loop.getRegionIterArgs().drop_front(states.size());
    ValueRange buffers, accs;
    if (known) {
      buffers = rest.take_front(known->scans.size());
      accs = rest.drop_front(known->scans.size());
    }
    FailureOr<SmallVector<Value>> yields = importBody(
        n, body, args, /*hasCondition=*/false,
        known ? carriedTypes : ArrayRef<Type>(), buffers, t, count, accs,
        found);
    if (failed(yields) || !known) {
      loop.erase();
      if (failed(yields))
        return failure();
      return scf::ForOp();
    }
    if (block->mightHaveTerminator())
      block->getTerminator()->erase();
    b.setInsertionPointToEnd(block);
    scf::YieldOp::create(b, loc, *yields);
    return loop;
  };

  BodyTypes found;
  auto probe = [&](ArrayRef<Type> types, BodyTypes &into) {
    return LogicalResult(build(types, nullptr, into));
  };
  if (failed(settleTypes(n, carried, probe, found)))
    return failure();
  SmallVector<int64_t> ranks;
  for (RankedTensorType slice : found.scans)
    ranks.push_back(slice.getRank() + 1);
  FailureOr<SmallVector<int64_t>> outAxes =
      scanAxes(n, "scan_output_axes", found.scans.size(), ranks);
  if (failed(outAxes))
    return failure();
  body.scanAxes = *outAxes;
  body.scanReversed =
      directions(n, "scan_output_directions", found.scans.size());
  BodyTypes known = found;
  FailureOr<scf::ForOp> loop = build(carried, &known, found);
  if (failed(loop))
    return failure();
  SmallVector<Value> results(loop->getResults().begin(),
                             loop->getResults().end());
  unsigned numOutputs = states.size() + known.scans.size();
  for (auto [i, check] : llvm::enumerate(known.checks))
    outChecks.push_back({results[numOutputs + i], check.second});
  results.resize(numOutputs);
  return results;
}

LogicalResult importScan(NodeImporter &n) {
  GraphImporter &graph = n.graphImporter();
  const onnx::GraphProto *bodyGraph = n.attrGraph("body");
  if (!bodyGraph)
    return n.emitError() << "attribute 'body' (a graph) is missing",
           failure();
  int64_t numScanned = n.attrInt("num_scan_inputs", 0);
  // Opset 8 puts the optional sequence lengths first and a batch dimension
  // in front of every input and output.
  bool batched = n.sinceVersion < 9;
  unsigned first = batched ? 1 : 0;
  if (batched && n.hasInput(0))
    return n.emitError() << "sequence_lens (opset 8) is not supported: "
                            "every sequence runs the whole scan axis",
           failure();
  if (numScanned < 1 || first + numScanned > n.numInputs())
    return n.emitError() << "num_scan_inputs is " << numScanned
                         << " with " << n.numInputs() - first << " inputs",
           failure();
  unsigned numStates = n.numInputs() - first - numScanned;
  if (bodyGraph->input_size() != static_cast<int>(numStates + numScanned) ||
      bodyGraph->output_size() < static_cast<int>(numStates))
    return n.emitError() << "the body takes "
                         << bodyGraph->input_size() << " inputs and returns "
                         << bodyGraph->output_size() << "; it must take "
                         << numStates + numScanned << " and return at least "
                         << numStates,
           failure();
  unsigned numScans = bodyGraph->output_size() - numStates;

  SmallVector<Value> states, scanned;
  for (unsigned i = 0; i < numStates; ++i)
    states.push_back(n.input(first + i));
  for (unsigned i = 0; i < numScanned; ++i)
    scanned.push_back(n.input(first + numStates + i));
  // Opset 8: a batch of one, dropped and restored.
  if (batched) {
    for (Value &v : llvm::concat<Value>(states, scanned)) {
      auto type = cast<RankedTensorType>(v.getType());
      if (type.getRank() < 1 || type.getDimSize(0) != 1)
        return n.emitError() << "(opset 8) a batch of one is "
                                "supported, not "
                             << type,
               failure();
      FailureOr<Value> dropped =
          n.reshape(v, type.getShape().drop_front());
      if (failed(dropped))
        return failure();
      v = *dropped;
    }
  }
  SmallVector<int64_t> ranks;
  for (Value x : scanned)
    ranks.push_back(cast<RankedTensorType>(x.getType()).getRank());
  FailureOr<SmallVector<int64_t>> inAxes =
      batched ? FailureOr<SmallVector<int64_t>>(
                    SmallVector<int64_t>(numScanned, 0))
              : scanAxes(n, "scan_input_axes", numScanned, ranks);
  if (failed(inAxes))
    return failure();
  SmallVector<bool> inReversed = directions(
      n, batched ? "directions" : "scan_input_directions", numScanned);

  LoopBody body{bodyGraph, subgraphScope(n, "body"), numStates, {}, {}};
  body.scanAxes.assign(numScans, 0);
  body.scanReversed.assign(numScans, false);
  CheckList checks;
  FailureOr<SmallVector<Value>> results =
      buildScan(n, body, states, scanned, *inAxes, inReversed, checks);
  if (failed(results))
    return failure();
  for (auto [check, bounds] : checks)
    graph.addIndexCheck(check, bounds);
  for (unsigned i = 0; i < n.numOutputs() && i < results->size(); ++i) {
    Value v = (*results)[i];
    if (batched) {
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape{1};
      llvm::append_range(shape, type.getShape());
      FailureOr<Value> restored = n.reshape(v, shape);
      if (failed(restored))
        return failure();
      v = *restored;
    }
    n.setOutput(i, v);
  }
  return success();
}

} // namespace

void int21::onnx_import::registerControlFlowOps(OpImportTable &table) {
  table["If"] = {importIf, 1};
  table["Loop"] = {importLoop, 1};
  table["Scan"] = {importScan, 8};
  allowDynamicShapes(table, {"If", "Loop", "Scan"});
}

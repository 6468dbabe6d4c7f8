//===- SequenceOps.cpp - ONNX sequences and optionals ---------------------===//
//
// Sequences and optionals live in the import, not in the program: a value
// of either type is the list of its elements (GraphImporter::sequence),
// each a tensor of the program. What exported models do with them inside a
// graph (build a list, split a tensor into one, take, insert or erase an
// element at a constant position, map a subgraph over it, concatenate it
// back) resolves at import into ops on those tensors: SequenceMap imports
// its body once per element. A sequence whose length the run computes (one
// a Loop grows) and a sequence at a graph's or a subgraph's boundary are
// refused, naming the node or the value.
//
//===----------------------------------------------------------------------===//

#include "../GraphImporter.h"
#include "Composer.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

/// Input `i` as a sequence, or failure naming it.
FailureOr<const SequenceValue *> sequenceOf(NodeImporter &n, unsigned i) {
  const SequenceValue *seq = n.sequenceInput(i);
  if (!seq || seq->optional)
    return n.emitError() << "input " << i << " ('"
                         << (n.hasInput(i) ? n.node.input(i) : "")
                         << "') must be a sequence",
           failure();
  return seq;
}

/// The position input `i` gives in a sequence of `length` elements (a
/// constant scalar, negative from the end), `fallback` when absent. An
/// insertion may name `length` itself (`forInsert`).
FailureOr<int64_t> positionOf(NodeImporter &n, unsigned i, int64_t length,
                              int64_t fallback, bool forInsert) {
  if (!n.hasInput(i))
    return fallback;
  FailureOr<SmallVector<int64_t>> values = n.constantInts(i, "position");
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return n.emitError() << "position must be one integer, not "
                         << values->size(),
           failure();
  int64_t pos = values->front();
  int64_t limit = forInsert ? length : length - 1;
  if (pos < -length || pos > limit)
    return n.emitError() << "position " << pos << " is outside [" << -length
                         << ", " << limit << "] for a sequence of " << length
                         << " elements",
           failure();
  return pos < 0 ? pos + length : pos;
}

LogicalResult importSequenceConstruct(NodeImporter &n) {
  SequenceValue seq;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    Value v = n.input(i);
    if (!v)
      return n.emitError() << "input " << i << " must be a tensor", failure();
    if (!seq.elements.empty() &&
        getElementTypeOrSelf(v.getType()) !=
            getElementTypeOrSelf(seq.elements.front().getType()))
      return n.emitError() << "the elements of a sequence have one element "
                              "type; input "
                           << i << " is " << v.getType(),
             failure();
    seq.elements.push_back(v);
  }
  if (!seq.elements.empty())
    seq.elementType = getElementTypeOrSelf(seq.elements.front().getType());
  n.setSequenceOutput(0, std::move(seq));
  return success();
}

LogicalResult importSequenceEmpty(NodeImporter &n) {
  SequenceValue seq;
  seq.elementType = convertElementType(
      n.attrInt("dtype", onnx::TensorProto::FLOAT), n.b.getContext());
  if (!seq.elementType)
    return n.emitError() << "dtype " << n.attrInt("dtype", 0)
                         << " is not supported",
           failure();
  n.setSequenceOutput(0, std::move(seq));
  return success();
}

LogicalResult importSequenceLength(NodeImporter &n) {
  FailureOr<const SequenceValue *> seq = sequenceOf(n, 0);
  if (failed(seq))
    return failure();
  n.setOutput(0, n.splat(n.b.getI64Type(), (*seq)->elements.size()));
  return success();
}

LogicalResult importSequenceAt(NodeImporter &n) {
  FailureOr<const SequenceValue *> seq = sequenceOf(n, 0);
  if (failed(seq))
    return failure();
  int64_t length = (*seq)->elements.size();
  if (!n.hasInput(1))
    return n.emitError() << "position is missing", failure();
  FailureOr<int64_t> pos = positionOf(n, 1, length, 0, /*forInsert=*/false);
  if (failed(pos))
    return failure();
  n.setOutput(0, (*seq)->elements[*pos]);
  return success();
}

LogicalResult importSequenceInsert(NodeImporter &n) {
  FailureOr<const SequenceValue *> seq = sequenceOf(n, 0);
  if (failed(seq))
    return failure();
  Value tensor = n.input(1);
  if (!tensor)
    return n.emitError() << "input 1 must be a tensor", failure();
  SequenceValue result = **seq;
  if (result.elementType &&
      getElementTypeOrSelf(tensor.getType()) != result.elementType)
    return n.emitError() << "the sequence holds " << result.elementType
                         << ", the tensor " << tensor.getType(),
           failure();
  int64_t length = result.elements.size();
  FailureOr<int64_t> pos =
      positionOf(n, 2, length, length, /*forInsert=*/true);
  if (failed(pos))
    return failure();
  result.elements.insert(result.elements.begin() + *pos, tensor);
  result.elementType = getElementTypeOrSelf(tensor.getType());
  n.setSequenceOutput(0, std::move(result));
  return success();
}

LogicalResult importSequenceErase(NodeImporter &n) {
  FailureOr<const SequenceValue *> seq = sequenceOf(n, 0);
  if (failed(seq))
    return failure();
  SequenceValue result = **seq;
  int64_t length = result.elements.size();
  if (length == 0)
    return n.emitError() << "erases from an empty sequence", failure();
  FailureOr<int64_t> pos =
      positionOf(n, 1, length, length - 1, /*forInsert=*/false);
  if (failed(pos))
    return failure();
  result.elements.erase(result.elements.begin() + *pos);
  n.setSequenceOutput(0, std::move(result));
  return success();
}

LogicalResult importSplitToSequence(NodeImporter &n) {
  RankedTensorType type = n.inputType(0);
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.attrInt("axis", 0), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  int64_t extent = type.getDimSize(*axis);
  // Sizes given as data, or along a dynamic extent: as many parts as the
  // list has sizes, each read and clamped at run time.
  RankedTensorType splitType = n.hasInput(1) ? n.inputType(1) : nullptr;
  if (splitType && splitType.getRank() == 1 && splitType.hasStaticShape() &&
      (n.isRuntimeInput(1) || ShapedType::isDynamic(extent))) {
    FailureOr<SmallVector<SymbolicExtent>> given = n.extentsOf(1, "split");
    if (failed(given))
      return failure();
    SequenceValue seq;
    seq.elementType = type.getElementType();
    seq.elements = splitByExtents(n, n.input(0), *axis, *given);
    n.setSequenceOutput(0, std::move(seq));
    return success();
  }
  if (ShapedType::isDynamic(extent))
    return n.emitError() << "splits along a dynamic extent (axis " << *axis
                         << " of " << type
                         << ") without a list of sizes: int21 keeps "
                            "sequences of a length known at import only",
           failure();
  bool keepDims = n.attrInt("keepdims", 1) != 0;
  SmallVector<int64_t> sizes;
  if (!n.hasInput(1)) {
    sizes.assign(extent, 1);
  } else {
    FailureOr<SmallVector<int64_t>> split = n.constantInts(1, "split");
    if (failed(split))
      return failure();
    keepDims = true; // (keepdims applies without `split` only.)
    if (n.inputType(1).getRank() == 0) {
      int64_t chunk = split->front();
      if (chunk <= 0)
        return n.emitError() << "split must be positive, not " << chunk,
               failure();
      for (int64_t at = 0; at < extent; at += chunk)
        sizes.push_back(std::min(chunk, extent - at));
    } else {
      int64_t total = 0;
      for (int64_t s : *split) {
        if (s < 0)
          return n.emitError() << "split sizes must not be negative", failure();
        total += s;
      }
      if (total != extent)
        return n.emitError() << "split sizes add up to " << total
                             << ", not the extent " << extent,
               failure();
      sizes = *split;
    }
  }
  Composer c(n);
  SequenceValue seq;
  seq.elementType = type.getElementType();
  int64_t at = 0;
  for (int64_t size : sizes) {
    Value piece = c.slice(n.input(0), *axis, at, size);
    at += size;
    if (!keepDims) {
      SmallVector<int64_t> shape(type.getShape());
      shape.erase(shape.begin() + *axis);
      piece = c.reshape(piece, shape);
    }
    if (c.hasFailed())
      return failure();
    seq.elements.push_back(piece);
  }
  n.setSequenceOutput(0, std::move(seq));
  return success();
}

LogicalResult importConcatFromSequence(NodeImporter &n) {
  FailureOr<const SequenceValue *> seq = sequenceOf(n, 0);
  if (failed(seq))
    return failure();
  ArrayRef<Value> elements = (*seq)->elements;
  if (elements.empty())
    return n.emitError() << "concatenates an empty sequence", failure();
  auto first = cast<RankedTensorType>(elements.front().getType());
  bool newAxis = n.attrInt("new_axis", 0) != 0;
  int64_t rank = first.getRank() + (newAxis ? 1 : 0);
  FailureOr<int64_t> axis = n.normalizeAxis(n.attrInt("axis", 0), rank, "axis");
  if (failed(axis))
    return failure();
  Composer c(n);
  SmallVector<Value> pieces;
  for (Value v : elements) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getRank() != first.getRank())
      return n.emitError() << "the sequence's elements have ranks "
                           << first.getRank() << " and " << type.getRank(),
             failure();
    if (newAxis) {
      SmallVector<int64_t> shape(type.getShape());
      shape.insert(shape.begin() + *axis, 1);
      v = c.reshape(v, shape);
    }
    pieces.push_back(v);
  }
  return c.setResult(c.concat(pieces, *axis));
}

/// SequenceMap: the body imported once per element of the sequences (all of
/// one length), each input a sequence's element or a tensor as given; each
/// output a sequence of the body's results.
LogicalResult importSequenceMap(NodeImporter &n) {
  const onnx::GraphProto *body = n.attrGraph("body");
  if (!body)
    return n.emitError() << "attribute 'body' (a graph) is missing",
           failure();
  if (body->input_size() != static_cast<int>(n.numInputs()))
    return n.emitError() << "the body takes " << body->input_size()
                         << " inputs where the node gives " << n.numInputs(),
           failure();
  int64_t length = -1;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    const SequenceValue *seq = n.sequenceInput(i);
    if (!seq)
      continue;
    if (seq->optional)
      return n.emitError() << "input " << i << " is an optional, not a "
                                              "sequence",
             failure();
    if (length >= 0 && length != (int64_t)seq->elements.size())
      return n.emitError() << "the sequences have " << length << " and "
                           << seq->elements.size() << " elements",
             failure();
    length = seq->elements.size();
  }
  if (length < 0)
    return n.emitError() << "input 0 must be a sequence", failure();
  std::string name = n.displayName();
  SmallVector<SequenceValue> outputs(body->output_size());
  for (int64_t k = 0; k < length; ++k) {
    SmallVector<Value> args;
    for (unsigned i = 0; i < n.numInputs(); ++i) {
      const SequenceValue *seq = n.sequenceInput(i);
      args.push_back(seq ? seq->elements[k] : n.input(i));
    }
    SmallVector<std::pair<Value, ArrayAttr>> checks;
    FailureOr<SmallVector<Value>> results = importSubgraph(
        n.graphImporter(), *body,
        name + "/body[" + std::to_string(k) + "]/", args, n.b, checks);
    if (failed(results))
      return failure();
    for (auto &[check, bounds] : checks)
      n.graphImporter().addIndexCheck(check, bounds);
    for (auto [out, value] : llvm::zip(outputs, *results)) {
      out.elements.push_back(value);
      out.elementType = getElementTypeOrSelf(value.getType());
    }
  }
  // An empty map declares its element types.
  for (auto [out, info] : llvm::zip(outputs, body->output()))
    if (!out.elementType && info.type().has_tensor_type())
      out.elementType = convertElementType(
          info.type().tensor_type().elem_type(), n.b.getContext());
  for (auto [i, out] : llvm::enumerate(outputs))
    n.setSequenceOutput(i, std::move(out));
  return success();
}

LogicalResult importOptional(NodeImporter &n) {
  SequenceValue opt;
  opt.optional = true;
  if (n.hasInput(0)) {
    if (n.sequenceInput(0))
      return n.emitError() << "an optional of a sequence is not supported",
             failure();
    opt.elements.push_back(n.input(0));
    opt.elementType = getElementTypeOrSelf(n.input(0).getType());
  }
  n.setSequenceOutput(0, std::move(opt));
  return success();
}

/// OptionalHasElement and OptionalGetElement also take a tensor (from
/// opset 18), which has its element; and a sequence to OptionalGetElement
/// is itself.
LogicalResult importOptionalHasElement(NodeImporter &n) {
  bool has = true;
  if (!n.hasInput(0))
    has = false;
  else if (const SequenceValue *opt = n.sequenceInput(0))
    has = !opt->optional || !opt->elements.empty();
  n.setOutput(0, n.splat(n.b.getI1Type(), has ? 1 : 0));
  return success();
}

LogicalResult importOptionalGetElement(NodeImporter &n) {
  const SequenceValue *opt = n.sequenceInput(0);
  if (!opt) {
    n.setOutput(0, n.input(0));
    return success();
  }
  if (!opt->optional) {
    n.setSequenceOutput(0, *opt);
    return success();
  }
  if (opt->elements.empty())
    return n.emitError() << "the optional '" << n.node.input(0)
                         << "' is empty",
           failure();
  n.setOutput(0, opt->elements.front());
  return success();
}

} // namespace

void int21::onnx_import::registerSequenceOps(OpImportTable &t) {
  t["SequenceConstruct"] = {importSequenceConstruct, 11};
  t["SequenceEmpty"] = {importSequenceEmpty, 11};
  t["SequenceLength"] = {importSequenceLength, 11};
  t["SequenceAt"] = {importSequenceAt, 11};
  t["SequenceInsert"] = {importSequenceInsert, 11};
  t["SequenceErase"] = {importSequenceErase, 11};
  t["SplitToSequence"] = {importSplitToSequence, 11};
  t["ConcatFromSequence"] = {importConcatFromSequence, 11};
  t["SequenceMap"] = {importSequenceMap, 17};
  t["Optional"] = {importOptional, 15};
  t["OptionalHasElement"] = {importOptionalHasElement, 15};
  t["OptionalGetElement"] = {importOptionalGetElement, 15};
  allowSequences(t, {"SequenceConstruct", "SequenceLength", "SequenceAt",
                     "SequenceInsert", "SequenceErase", "ConcatFromSequence",
                     "SequenceMap", "Optional", "OptionalHasElement",
                     "OptionalGetElement"});
  allowDynamicShapes(t, {"SequenceConstruct", "SequenceLength", "SequenceAt",
                         "SplitToSequence",
                         "SequenceInsert", "SequenceErase", "SequenceMap",
                         "Optional", "OptionalHasElement",
                         "OptionalGetElement", "ConcatFromSequence"});
}

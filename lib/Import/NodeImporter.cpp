//===- NodeImporter.cpp - node access, tensors and types for op handlers --===//

#include "NodeImporter.h"
#include "GraphImporter.h"

#include "int21/Dialect/Int21/Int21Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

NodeImporter::NodeImporter(GraphImporter &graph, const onnx::NodeProto &node,
                           int64_t opset, int sinceVersion, OpBuilder &builder,
                           Location loc)
    : node(node), opset(opset), sinceVersion(sinceVersion), b(builder),
      loc(loc), ctx(builder.getContext()), graph(graph) {}

InFlightDiagnostic NodeImporter::emitError() {
  return mlir::emitError(loc) << opType() << ": ";
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

bool NodeImporter::hasInput(unsigned i) const {
  return i < numInputs() && !node.input(i).empty();
}

const SmallVector<SymbolicExtent> *
NodeImporter::symbolicInput(unsigned i) const {
  return hasInput(i) ? graph.symbolic(node.input(i)) : nullptr;
}

void NodeImporter::setSymbolicOutput(unsigned i,
                                     SmallVector<SymbolicExtent> extents,
                                     int64_t rank) {
  // The value stands in for the shape where a node looks it up; only the
  // handlers marked symbolic read it, and they read the extents instead.
  SmallVector<int64_t> values;
  for (const SymbolicExtent &e : extents)
    values.push_back(e.isConstant() ? e.constant : 0);
  auto type = RankedTensorType::get(
      rank == 0 ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{(int64_t)values.size()},
      b.getI64Type());
  setOutput(i, constant(DenseElementsAttr::get(type, ArrayRef<int64_t>(values))));
  // Elements that are all constants are an ordinary constant.
  if (llvm::any_of(extents,
                   [](const SymbolicExtent &e) { return !e.isConstant(); }))
    graph.defineSymbolic(node.output(i), std::move(extents));
}

FailureOr<SmallVector<SymbolicExtent>>
NodeImporter::extentsOf(unsigned i, StringRef what) {
  if (const SmallVector<SymbolicExtent> *extents = symbolicInput(i))
    return *extents;
  RankedTensorType type = inputType(i);
  if (!type || type.getRank() > 1 || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()))
    return emitError() << "input '" << what
                       << "' must be a scalar or a vector of integers",
           failure();
  // An input of the model: its elements read at run time (before the run,
  // where they size the outputs). A value the model computes is not (its
  // elements exist during the run only): it must be a constant, unless a
  // subgraph computes it (its extents exist during the run only anyway).
  if (isRuntimeInput(i) || isComputedInRegion(i)) {
    // Elements the engine reads at run time.
    SmallVector<SymbolicExtent> extents;
    Value data = input(i);
    for (int64_t k = 0; k < type.getNumElements(); ++k) {
      SmallVector<Value> index;
      if (type.getRank() == 1)
        index.push_back(arith::ConstantIndexOp::create(b, loc, k));
      Value element = tensor::ExtractOp::create(b, loc, data, index);
      Value extent =
          arith::IndexCastOp::create(b, loc, b.getIndexType(), element);
      extents.push_back({0, Value(), 0, extent, /*fromData=*/true});
    }
    return extents;
  }
  FailureOr<SmallVector<int64_t>> values = constantInts(i, what);
  if (failed(values))
    return failure();
  SmallVector<SymbolicExtent> extents;
  for (int64_t v : *values)
    extents.push_back({v, Value(), 0, Value()});
  return extents;
}

Value int21::onnx_import::extentIndex(OpBuilder &b, Location loc,
                                      const SymbolicExtent &extent) {
  if (extent.value)
    return extent.value;
  if (extent.source &&
      cast<RankedTensorType>(extent.source.getType()).isDynamicDim(extent.dim))
    return tensor::DimOp::create(b, loc, extent.source, extent.dim);
  int64_t constant =
      extent.source
          ? cast<RankedTensorType>(extent.source.getType()).getDimSize(extent.dim)
          : extent.constant;
  return arith::ConstantIndexOp::create(b, loc, constant);
}

Value int21::onnx_import::materializeExtents(OpBuilder &b, Location loc,
                                             ArrayRef<SymbolicExtent> extents,
                                             int64_t rank) {
  SmallVector<Value> elements;
  for (const SymbolicExtent &e : extents)
    elements.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                                  extentIndex(b, loc, e)));
  auto type = RankedTensorType::get(
      rank == 0 ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{(int64_t)extents.size()},
      b.getI64Type());
  return tensor::FromElementsOp::create(b, loc, type, elements);
}

Value NodeImporter::extentValue(const SymbolicExtent &extent) {
  return extentIndex(b, loc, extent);
}

Value NodeImporter::dataInput(unsigned i) {
  if (const SmallVector<SymbolicExtent> *extents = symbolicInput(i))
    return materializeExtents(b, loc, *extents, inputType(i).getRank());
  return input(i);
}

bool NodeImporter::isExtentsInput(unsigned i) {
  if (symbolicInput(i))
    return true;
  RankedTensorType type = inputType(i);
  ElementsAttr attr;
  return type && type.getRank() <= 1 &&
         isa<IntegerType>(type.getElementType()) &&
         matchPattern(input(i), m_Constant(&attr));
}

bool NodeImporter::isRuntimeInput(unsigned i) {
  auto arg = hasInput(i) ? dyn_cast<BlockArgument>(input(i)) : BlockArgument();
  return arg && isa<func::FuncOp>(arg.getOwner()->getParentOp());
}

bool NodeImporter::isComputedInRegion(unsigned i) {
  if (!hasInput(i))
    return false;
  Value v = input(i);
  ElementsAttr constant;
  if (matchPattern(v, m_Constant(&constant)))
    return false;
  Region *region = v.getParentRegion();
  return region && !isa<func::FuncOp>(region->getParentOp());
}

FailureOr<Value> NodeImporter::scalarInput(unsigned i, StringRef what) {
  RankedTensorType type = inputType(i);
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
    return emitError() << "input '" << what << "' must hold one element",
           failure();
  return reshape(dataInput(i), {});
}

Value NodeImporter::scalarValue(unsigned i) {
  Value data = dataInput(i);
  auto type = cast<RankedTensorType>(data.getType());
  SmallVector<Value> index(type.getRank(),
                           arith::ConstantIndexOp::create(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, data, index);
}

Value NodeImporter::nonNegative(Value extent) {
  return arith::MaxSIOp::create(b, loc, extent,
                                arith::ConstantIndexOp::create(b, loc, 0));
}

Value NodeImporter::extentOf(Value value, int64_t dim) {
  return extentIndex(b, loc, {0, value, dim, Value()});
}

Value NodeImporter::input(unsigned i) {
  if (!hasInput(i))
    return {};
  FailureOr<Value> v = graph.lookup(node.input(i), loc);
  return succeeded(v) ? *v : Value();
}

LogicalResult NodeImporter::boundIndices(unsigned i, int64_t size) {
  if (size <= 0 || ShapedType::isDynamic(size))
    return success();
  return boundValues(i, -size, size - 1);
}

LogicalResult NodeImporter::boundValues(unsigned i, int64_t min, int64_t max) {
  Value indices = input(i);
  auto type = indices ? dyn_cast<RankedTensorType>(indices.getType())
                      : RankedTensorType();
  if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
    return success();

  // Constant indices are checked now.
  ElementsAttr constant;
  if (matchPattern(indices, m_Constant(&constant))) {
    DenseElementsAttr dense = toDense(constant);
    if (!dense)
      return success();
    for (auto [k, value] : llvm::enumerate(dense.getValues<APInt>())) {
      int64_t index = value.getSExtValue();
      if (index < min || index > max)
        return emitError() << "index " << index << " at element " << k
                           << " of '" << node.input(i) << "' is outside ["
                           << min << ", " << max << "]",
               failure();
    }
    return success();
  }

  // Its name, or that of its first output where it has none.
  std::string label = node.name().empty() && node.output_size()
                          ? node.output(0)
                          : node.name();
  std::string what = "'" + label + "' (" + opType().str() + ")";
  Attribute bound = b.getDictionaryAttr(
      {b.getNamedAttr("min", b.getI64IntegerAttr(min)),
       b.getNamedAttr("max", b.getI64IntegerAttr(max)),
       b.getNamedAttr("node", b.getStringAttr(what))});

  // Indices straight from an input of the model: the engine checks the
  // input before it runs.
  auto arg = dyn_cast<BlockArgument>(indices);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (func && arg.getOwner()->isEntryBlock()) {
    SmallVector<Attribute> bounds;
    if (auto present = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                        kIndexBoundsAttr))
      bounds.assign(present.begin(), present.end());
    bounds.push_back(bound);
    func.setArgAttr(arg.getArgNumber(), kIndexBoundsAttr,
                    b.getArrayAttr(bounds));
    return success();
  }

  // Indices computed in the graph: their least and greatest values become
  // an index check, a hidden result of @main the engine checks after it
  // runs.
  FailureOr<Value> flat = reshape(indices, {type.getNumElements()});
  if (failed(flat))
    return failure();
  DenseI64ArrayAttr axes = b.getDenseI64ArrayAttr({0});
  FailureOr<Value> least = create<ReduceMinOp>(*flat, axes, b.getBoolAttr(true));
  FailureOr<Value> greatest =
      create<ReduceMaxOp>(*flat, axes, b.getBoolAttr(true));
  if (failed(least) || failed(greatest))
    return failure();
  FailureOr<Value> check = create<ConcatOp>(ValueRange{*least, *greatest},
                                            b.getI64IntegerAttr(0));
  if (failed(check))
    return failure();
  graph.addIndexCheck(*check, b.getArrayAttr({bound}));
  return success();
}

RankedTensorType NodeImporter::inputType(unsigned i) {
  Value v = input(i);
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

DenseElementsAttr int21::onnx_import::toDense(ElementsAttr attr) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense;
  auto blob = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!blob || !blob.getRawHandle().getBlob())
    return {};
  ArrayRef<char> data = blob.getRawHandle().getBlob()->getData();
  auto type = cast<ShapedType>(blob.getType());
  bool splat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, data, splat))
    return {};
  return DenseElementsAttr::getFromRawBuffer(type, data);
}

FailureOr<DenseElementsAttr> NodeImporter::constantInput(unsigned i,
                                                         StringRef what) {
  Value v = input(i);
  if (!v)
    return emitError() << "missing input '" << what << "'", failure();
  ElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    if (DenseElementsAttr dense = toDense(attr))
      return dense;
  if (isRuntimeInput(i))
    return emitError() << "input '" << what << "' (" << node.input(i)
                       << ") must be a constant: int21 does not read it at "
                          "run time here (freeze the input with "
                          "--freeze-input NAME=FILE.pb)",
           failure();
  return emitError() << "input '" << what << "' (" << node.input(i)
                     << ") must be a constant: the model computes it, and "
                        "int21 reads such parameters at run time only from "
                        "inputs of the model (freeze the inputs it comes "
                        "from with --freeze-input NAME=FILE.pb)",
         failure();
}

FailureOr<SmallVector<int64_t>> NodeImporter::constantInts(unsigned i,
                                                           StringRef what) {
  FailureOr<DenseElementsAttr> attr = constantInput(i, what);
  if (failed(attr))
    return failure();
  if (!isa<IntegerType>(attr->getElementType()))
    return emitError() << "input '" << what << "' must hold integers",
           failure();
  SmallVector<int64_t> values;
  for (const APInt &v : attr->getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

FailureOr<double> NodeImporter::constantScalar(unsigned i, StringRef what) {
  FailureOr<DenseElementsAttr> attr = constantInput(i, what);
  if (failed(attr))
    return failure();
  if (attr->getNumElements() != 1)
    return emitError() << "input '" << what << "' must be a scalar", failure();
  Type type = attr->getElementType();
  if (isa<FloatType>(type))
    return (*attr->getValues<APFloat>().begin()).convertToDouble();
  APInt v = *attr->getValues<APInt>().begin();
  return type.isUnsignedInteger() || type.isInteger(1)
             ? static_cast<double>(v.getZExtValue())
             : static_cast<double>(v.getSExtValue());
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *NodeImporter::findAttr(StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

bool NodeImporter::hasAttr(StringRef name) const { return findAttr(name); }

const onnx::GraphProto *NodeImporter::attrGraph(StringRef name) const {
  const onnx::AttributeProto *attr = findAttr(name);
  return attr && attr->has_g() ? &attr->g() : nullptr;
}

int64_t NodeImporter::attrInt(StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *attr = findAttr(name);
  return attr ? attr->i() : defaultValue;
}

float NodeImporter::attrFloat(StringRef name, float defaultValue) const {
  const onnx::AttributeProto *attr = findAttr(name);
  return attr ? attr->f() : defaultValue;
}

std::string NodeImporter::attrString(StringRef name,
                                     StringRef defaultValue) const {
  const onnx::AttributeProto *attr = findAttr(name);
  return attr ? attr->s() : defaultValue.str();
}

SmallVector<int64_t>
NodeImporter::attrInts(StringRef name, ArrayRef<int64_t> defaultValue) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return SmallVector<int64_t>(defaultValue);
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

const onnx::TensorProto *NodeImporter::attrTensor(StringRef name) const {
  const onnx::AttributeProto *attr = findAttr(name);
  return attr && attr->has_t() ? &attr->t() : nullptr;
}

FailureOr<ElementsAttr>
NodeImporter::tensorValue(const onnx::TensorProto &tensor) {
  return convertTensor(
      tensor, graph.baseDir, ctx, [&] { return emitError(); }, graph.owner,
      graph.weightData);
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

bool NodeImporter::outputUsed(unsigned i) const {
  return i < numOutputs() && !node.output(i).empty() &&
         graph.useCount(node.output(i)) > 0;
}

void NodeImporter::setOutput(unsigned i, Value value) {
  if (i < numOutputs() && !node.output(i).empty())
    graph.define(node.output(i), value);
}

std::string NodeImporter::displayName() const {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  return opType().str();
}

const SequenceValue *NodeImporter::sequenceInput(unsigned i) {
  return hasInput(i) ? graph.sequence(node.input(i)) : nullptr;
}

void NodeImporter::setSequenceOutput(unsigned i, SequenceValue value) {
  if (i < numOutputs() && !node.output(i).empty())
    graph.defineSequence(node.output(i), std::move(value));
}

LogicalResult NodeImporter::onlyFirstOutputs(unsigned count, StringRef why) {
  for (unsigned i = count; i < numOutputs(); ++i)
    if (outputUsed(i))
      return emitError() << "output " << i << " ('" << node.output(i)
                         << "') is not supported: " << why,
             failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

LogicalResult NodeImporter::requireRankAtLeast(RankedTensorType type,
                                               int64_t minRank, StringRef what,
                                               StringRef layout) {
  if (type.getRank() >= minRank)
    return success();
  return emitError() << what << " must have rank " << minRank << " or more ("
                     << layout << "), got rank " << type.getRank(),
         failure();
}

FailureOr<int64_t> NodeImporter::normalizeAxis(int64_t axis, int64_t rank,
                                               StringRef what) {
  if (axis < -rank || axis >= rank)
    return emitError() << what << " " << axis << " is out of range for rank "
                       << rank,
           failure();
  return axis < 0 ? axis + rank : axis;
}

FailureOr<Value> NodeImporter::finish(Operation *op) {
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(
            ctx, loc, op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), types))) {
      op->erase();
      return failure();
    }
    for (auto [result, type] : llvm::zip(op->getResults(), types))
      result.setType(type);
  }
  if (failed(mlir::verify(op))) {
    op->erase();
    return failure();
  }
  if (isa<ConstantOp>(op))
    return op->getResult(0);
  SmallVector<OpFoldResult> folded;
  if (failed(op->fold(folded)) || folded.empty())
    return op->getResult(0);
  Value result = dyn_cast<Value>(folded.front());
  if (!result) {
    Operation *cst = op->getDialect()->materializeConstant(
        b, cast<Attribute>(folded.front()), op->getResult(0).getType(), loc);
    if (!cst)
      return op->getResult(0);
    result = cst->getResult(0);
  }
  op->erase();
  return result;
}

Value NodeImporter::constant(ElementsAttr value) {
  return ConstantOp::create(b, loc, value);
}

Value NodeImporter::splat(Type elementType, double value,
                          ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, elementType);
  Attribute element;
  if (auto f = dyn_cast<FloatType>(elementType))
    element = FloatAttr::get(f, value);
  else
    element = IntegerAttr::get(elementType, static_cast<int64_t>(value));
  return constant(SplatElementsAttr::get(type, element));
}

Value NodeImporter::positions(int64_t rank, int64_t axis, int64_t size,
                              Type elementType) {
  if (!elementType)
    elementType = b.getI64Type();
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = size;
  unsigned width = elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  for (int64_t i = 0; i < size; ++i)
    values.push_back(APInt(width, i, /*isSigned=*/true));
  return constant(DenseElementsAttr::get(
      RankedTensorType::get(shape, elementType), values));
}

Value NodeImporter::positions(int64_t rank, int64_t axis, Value size) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = ShapedType::kDynamic;
  return IotaOp::create(b, loc, RankedTensorType::get(shape, b.getI64Type()),
                        ValueRange{size}, axis);
}

FailureOr<Value> NodeImporter::flattenAt(Value value, int64_t axis) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t &part = d < axis ? outer : inner;
    part = ShapedType::isDynamic(part) || type.isDynamicDim(d)
               ? ShapedType::kDynamic
               : part * type.getDimSize(d);
  }
  return reshape(value, {outer, inner});
}

FailureOr<Value> NodeImporter::reshape(Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return create<ReshapeOp>(value, shape);
}

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

Type int21::onnx_import::convertElementType(int32_t dataType,
                                                  MLIRContext *ctx) {
  Builder b(ctx);
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::INT8:
    return b.getI8Type();
  case onnx::TensorProto::INT16:
    return b.getI16Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::UINT16:
    return b.getIntegerType(16, false);
  case onnx::TensorProto::UINT32:
    return b.getIntegerType(32, false);
  case onnx::TensorProto::UINT64:
    return b.getIntegerType(64, false);
  default:
    return {};
  }
}

std::string int21::onnx_import::onnxTypeName(int32_t dataType) {
  if (onnx::TensorProto_DataType_IsValid(dataType))
    return onnx::TensorProto_DataType_Name(
        static_cast<onnx::TensorProto_DataType>(dataType));
  return "data type " + std::to_string(dataType);
}

FailureOr<int64_t>
int21::onnx_import::checkedNumElements(ArrayRef<int64_t> shape) {
  constexpr int64_t kMaxElements = int64_t(1) << 40;
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || d > kMaxElements)
      return failure();
    if (d != 0 && count > kMaxElements / d)
      return failure();
    count *= d;
  }
  return count;
}

/// Copies `values` into `bytes`, narrowing each to `width` bytes
/// (little-endian, as ONNX raw data is).
template <typename T>
static void appendValues(const google::protobuf::RepeatedField<T> &values,
                         size_t width, std::vector<char> &bytes) {
  for (T v : values) {
    uint64_t bits = 0;
    static_assert(sizeof(T) <= sizeof(bits));
    std::memcpy(&bits, &v, sizeof(T));
    for (size_t i = 0; i < width; ++i)
      bytes.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }
}

/// Reads a tensor's external data file (ONNX external data: location,
/// offset, length relative to the model's folder).
static LogicalResult
readExternalData(const onnx::TensorProto &tensor, StringRef baseDir,
                 std::vector<char> &bytes,
                 llvm::function_ref<InFlightDiagnostic()> emitError) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      offset = std::strtoll(entry.value().c_str(), nullptr, 10);
    else if (entry.key() == "length")
      length = std::strtoll(entry.value().c_str(), nullptr, 10);
  }
  if (location.empty() || llvm::sys::path::is_absolute(location))
    return emitError() << "tensor '" << tensor.name()
                       << "' has external data without a relative location";
  SmallString<256> path(baseDir);
  llvm::sys::path::append(path, location);
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return emitError() << "cannot read external data of tensor '"
                       << tensor.name() << "' from '" << path
                       << "': " << file.getError().message();
  int64_t size = (*file)->getBufferSize();
  if (length < 0)
    length = size - offset;
  if (offset < 0 || offset > size || length > size - offset)
    return emitError() << "external data of tensor '" << tensor.name()
                       << "' (offset " << offset << ", length " << length
                       << ") lies outside '" << path << "' (" << size
                       << " bytes)";
  const char *start = (*file)->getBufferStart() + offset;
  bytes.assign(start, start + length);
  return success();
}

FailureOr<ElementsAttr> int21::onnx_import::convertTensor(
    const onnx::TensorProto &tensor, StringRef baseDir, MLIRContext *ctx,
    llvm::function_ref<InFlightDiagnostic()> emitError,
    std::shared_ptr<const void> owner, bool withData) {
  Type elementType = convertElementType(tensor.data_type(), ctx);
  if (!elementType)
    return emitError() << "tensor '" << tensor.name() << "' has element type "
                       << onnxTypeName(tensor.data_type())
                       << ", which int21 does not support",
           failure();
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  FailureOr<int64_t> numElements = checkedNumElements(shape);
  if (failed(numElements))
    return emitError() << "tensor '" << tensor.name()
                       << "' has an invalid or absurd shape",
           failure();
  size_t width =
      elementType.isInteger(1) ? 1 : elementType.getIntOrFloatBitWidth() / 8;
  size_t expected = static_cast<size_t>(*numElements) * width;
  std::vector<char> storage;
  ArrayRef<char> bytes;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    if (failed(readExternalData(tensor, baseDir, storage, emitError)))
      return failure();
    bytes = storage;
  } else if (tensor.has_raw_data()) {
    bytes = ArrayRef<char>(tensor.raw_data().data(), tensor.raw_data().size());
  } else {
    switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      appendValues(tensor.float_data(), width, storage);
      break;
    case onnx::TensorProto::DOUBLE:
      appendValues(tensor.double_data(), width, storage);
      break;
    case onnx::TensorProto::INT64:
      appendValues(tensor.int64_data(), width, storage);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      appendValues(tensor.uint64_data(), width, storage);
      break;
    default:
      appendValues(tensor.int32_data(), width, storage);
      break;
    }
    bytes = storage;
  }
  if (bytes.size() != expected)
    return emitError() << "tensor '" << tensor.name() << "' holds "
                       << bytes.size() << " bytes of data, expected "
                       << expected << " for "
                       << RankedTensorType::get(shape, elementType),
           failure();

  auto type = RankedTensorType::get(shape, elementType);
  if (elementType.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  // Tiny tensors (shape vectors, scalars) stay dense so that they fold;
  // weights live in blobs so that printing a model does not print them.
  constexpr int64_t kMaxDenseElements = 16;
  if (*numElements <= kMaxDenseElements)
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, bytes));
  std::string blobName = tensor.name().empty() ? "tensor" : tensor.name();
  for (char &c : blobName)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  if (!withData) {
    auto &manager = DenseResourceElementsHandle::getManagerInterface(ctx);
    return ElementsAttr(
        DenseResourceElementsAttr::get(type, manager.insert(blobName)));
  }
  // Raw data owned by a model that outlives the blob is shared, not copied:
  // weights are the bulk of a model.
  size_t align = std::max<size_t>(width, 1);
  bool shareable = owner && tensor.has_raw_data() &&
                   tensor.data_location() != onnx::TensorProto::EXTERNAL &&
                   llvm::isAddrAligned(llvm::Align(align), bytes.data());
  AsmResourceBlob blob =
      shareable
          ? AsmResourceBlob(
                bytes, align, [owner](void *, size_t, size_t) { (void)owner; },
                /*dataIsMutable=*/false)
          : HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes,
                                                          alignof(int64_t));
  return ElementsAttr(
      DenseResourceElementsAttr::get(type, blobName, std::move(blob)));
}

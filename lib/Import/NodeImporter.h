//===- NodeImporter.h - what an ONNX op handler sees of the importer ------===//
//
// Internal to lib/Import. Every ONNX operator is imported by one handler
// (OpImportFn) that reads its node through a NodeImporter: inputs as int21
// values, attributes with ONNX defaults, constant inputs as values, and a
// `create` that infers types, verifies and folds, so a malformed node is a
// diagnostic at the node's location and never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_LIB_IMPORT_NODEIMPORTER_H
#define INT21_LIB_IMPORT_NODEIMPORTER_H

#include "int21/Dialect/Int21/Int21Ops.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

#include <memory>

namespace int21::onnx_import {

class GraphImporter;

/// An element of a shape the importer keeps symbolic: `constant`, extent
/// `dim` of `source` when `source` is set, or, when `value` is set, an
/// `index` the program computes from such extents (shape arithmetic).
struct SymbolicExtent {
  int64_t constant = 0;
  Value source;
  int64_t dim = 0;
  Value value;
  /// Whether `value` is an element of a tensor the model computes or takes
  /// as input (read at run time), which ONNX lets be 0 or -1 where it means
  /// a shape (copy, infer); an extent otherwise.
  bool fromData = false;

  bool isConstant() const { return !source && !value; }
};

/// A value of ONNX's sequence or optional type, as the import keeps it:
/// its elements (tensors of the program), in order. An optional holds none
/// or one.
struct SequenceValue {
  SmallVector<Value> elements;
  /// The element type an empty one declares (SequenceEmpty's dtype).
  Type elementType;
  bool optional = false;
};

/// The `index` an extent is: a constant, a `tensor.dim`, or its value.
Value extentIndex(OpBuilder &b, Location loc, const SymbolicExtent &extent);

/// A shape kept symbolic as the int64 tensor (of `rank` 0 or 1) it stands
/// for, its elements computed in the program: for a node or an output that
/// reads it as data.
Value materializeExtents(OpBuilder &b, Location loc,
                         ArrayRef<SymbolicExtent> extents, int64_t rank);

class NodeImporter {
public:
  NodeImporter(GraphImporter &graph, const onnx::NodeProto &node, int64_t opset,
               int sinceVersion, OpBuilder &builder, Location loc);

  const onnx::NodeProto &node;
  /// The model's opset for the default domain.
  const int64_t opset;
  /// The version of the operator's schema that applies at `opset`.
  const int sinceVersion;
  OpBuilder &b;
  const Location loc;
  MLIRContext *ctx;

  StringRef opType() const { return node.op_type(); }
  /// The name diagnostics give the node: its location's (with the scope
  /// of the subgraph it is in), else its op type.
  std::string displayName() const;

  //===--- inputs ---------------------------------------------------------===//
  unsigned numInputs() const { return node.input_size(); }
  /// Whether optional input `i` is given (present and not the empty name).
  bool hasInput(unsigned i) const;
  /// Input `i`, or a null value when it is absent.
  Value input(unsigned i);
  RankedTensorType inputType(unsigned i);
  /// The symbolic elements of input `i` (a shape computed from dynamic
  /// extents), or null when it is an ordinary value.
  const SmallVector<SymbolicExtent> *symbolicInput(unsigned i) const;
  /// Sets output `i` to a shape kept symbolic, of `rank` 0 or 1 (int64).
  void setSymbolicOutput(unsigned i, SmallVector<SymbolicExtent> extents,
                         int64_t rank = 1);
  /// The elements of input `i`: its symbolic extents, the values of a
  /// constant integer vector or scalar as constants, or, for an input of
  /// the model (an integer vector or scalar of static shape), its elements
  /// read at run time (fromData); failure (with a diagnostic naming `what`)
  /// otherwise.
  FailureOr<SmallVector<SymbolicExtent>> extentsOf(unsigned i, StringRef what);
  /// The `index` an extent is: a constant, a `tensor.dim`, or its value.
  Value extentValue(const SymbolicExtent &extent);
  /// Input `i` as data: a shape kept symbolic is materialised (the program
  /// computes its elements), anything else is input(i).
  Value dataInput(unsigned i);
  /// Whether input `i` is a shape kept symbolic or a constant integer
  /// scalar or vector: an operand of shape arithmetic.
  bool isExtentsInput(unsigned i);
  /// The value of input `i`, which must be a constant; `what` names it in
  /// the error otherwise.
  FailureOr<mlir::DenseElementsAttr> constantInput(unsigned i, StringRef what);
  FailureOr<SmallVector<int64_t>> constantInts(unsigned i, StringRef what);
  FailureOr<double> constantScalar(unsigned i, StringRef what);

  //===--- attributes -----------------------------------------------------===//
  bool hasAttr(StringRef name) const;
  int64_t attrInt(StringRef name, int64_t defaultValue) const;
  float attrFloat(StringRef name, float defaultValue) const;
  std::string attrString(StringRef name, StringRef defaultValue) const;
  SmallVector<int64_t> attrInts(StringRef name,
                                ArrayRef<int64_t> defaultValue = {}) const;
  const onnx::TensorProto *attrTensor(StringRef name) const;
  /// The subgraph held by attribute `name` (If's branches, Loop's body).
  const onnx::GraphProto *attrGraph(StringRef name) const;
  /// The importer of the graph this node belongs to (for its subgraphs).
  GraphImporter &graphImporter() { return graph; }
  /// The data of a tensor held by this node (e.g. Constant's value).
  FailureOr<ElementsAttr> tensorValue(const onnx::TensorProto &tensor);

  //===--- outputs --------------------------------------------------------===//
  unsigned numOutputs() const { return node.output_size(); }
  /// Whether output `i` exists and something in the graph reads it.
  bool outputUsed(unsigned i) const;
  void setOutput(unsigned i, Value value);
  /// Input `i` when it is a sequence or an optional (GraphImporter::
  /// sequence), else null.
  const SequenceValue *sequenceInput(unsigned i);
  /// Sets output `i` to a sequence or an optional.
  void setSequenceOutput(unsigned i, SequenceValue value);
  /// Sets output 0 to `value` when building it succeeded; for handlers that
  /// end in `return n.setResult(n.create<...>(...))`.
  LogicalResult setResult(FailureOr<Value> value) {
    if (failed(value))
      return failure();
    setOutput(0, *value);
    return success();
  }
  /// Fails with a clear message when an output the handler cannot produce is
  /// used (e.g. MaxPool's Indices).
  LogicalResult onlyFirstOutputs(unsigned count, StringRef why);

  //===--- building -------------------------------------------------------===//
  InFlightDiagnostic emitError();
  /// `axis` in [-rank, rank) as a non-negative axis.
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                   StringRef what = "axis");
  /// Input `i` holds indices this node takes along an axis of `size` (> 0)
  /// elements; they must lie in [-size, size - 1]. Constant indices are
  /// checked now (an error names the index). On a graph input the bounds
  /// are recorded (kIndexBoundsAttr): engines refuse other values before
  /// they run. Indices computed in the graph get an index check (their
  /// least and greatest values, GraphImporter::addIndexCheck): engines
  /// refuse the run after it. Either error names this node.
  LogicalResult boundIndices(unsigned i, int64_t size);
  /// boundIndices for values that must lie in [min, max] (TopK's k).
  LogicalResult boundValues(unsigned i, int64_t min, int64_t max);
  /// Fails, naming `what` and the `layout` it must have (e.g. "[N, C, D...]"),
  /// when `type` has fewer than `minRank` dimensions.
  LogicalResult requireRankAtLeast(RankedTensorType type, int64_t minRank,
                                   StringRef what, StringRef layout);

  /// Creates an int21 op (result types inferred when the op can infer them),
  /// verifies it and folds it. On failure the op is gone and a diagnostic
  /// names the node.
  template <typename OpTy, typename... Args>
  FailureOr<Value> create(Args &&...args) {
    OpTy op;
    if constexpr (OpTy::template hasTrait<mlir::InferTypeOpInterface::Trait>())
      op = OpTy::create(b, loc, b.getNoneType(), std::forward<Args>(args)...);
    else
      op = OpTy::create(b, loc, std::forward<Args>(args)...);
    return finish(op.getOperation());
  }

  /// `create` for an op with `numResults` results whose types it infers (and
  /// no folder): the op, or failure with a diagnostic.
  template <typename OpTy, typename... Args>
  FailureOr<OpTy> createMultiResult(unsigned numResults, Args &&...args) {
    SmallVector<Type> placeholders(numResults, b.getNoneType());
    OpTy op = OpTy::create(b, loc, TypeRange(placeholders),
                           std::forward<Args>(args)...);
    if (failed(finish(op.getOperation())))
      return failure();
    return op;
  }

  Value constant(ElementsAttr value);
  /// A constant of `shape` (default: scalar) filled with `value`.
  Value splat(Type elementType, double value, ArrayRef<int64_t> shape = {});
  FailureOr<Value> reshape(Value value, ArrayRef<int64_t> shape);
  /// `value` viewed as 2-D: the dimensions before `axis` times each other,
  /// then the rest (ONNX's Flatten, and the coerced input of the opset < 13
  /// softmax family and Hardmax).
  FailureOr<Value> flattenAt(Value value, int64_t axis);
  /// The constant 0, 1, ..., size - 1 (of integer type `elementType`, i64 by
  /// default) laid along dimension `axis` of a tensor of rank `rank` whose
  /// other dimensions are 1; it broadcasts against anything with `size` (or
  /// 1) elements along `axis`.
  Value positions(int64_t rank, int64_t axis, int64_t size,
                  Type elementType = {});
  /// positions() for an extent known at run time only: `size` is an
  /// `index` (an int21.iota of i64).
  Value positions(int64_t rank, int64_t axis, Value size);
  /// Extent `dim` of `value`: a constant `index` when static, a
  /// `tensor.dim` otherwise.
  Value extentOf(Value value, int64_t dim);
  /// Whether input `i` is an input of the model (not a constant, not
  /// computed): a value the engine reads at run time, also before the run.
  bool isRuntimeInput(unsigned i);
  /// Whether input `i` is computed in a subgraph's region (a Loop body's,
  /// from the iteration number, say): a value the run reads as it goes.
  bool isComputedInRegion(unsigned i);
  /// Input `i`, of one element, as a rank-0 tensor (a parameter given as
  /// data, for elementwise ops to broadcast).
  FailureOr<Value> scalarInput(unsigned i, StringRef what);
  /// The element of input `i` (of one element) as a scalar, read at run
  /// time (tensor.extract).
  Value scalarValue(unsigned i);
  /// `extent` (an `index`) clamped to 0 and above: an extent given as data
  /// never makes a negative allocation.
  Value nonNegative(Value extent);

private:
  FailureOr<Value> finish(Operation *op);
  const onnx::AttributeProto *findAttr(StringRef name) const;
  GraphImporter &graph;
};

using OpImportFn = LogicalResult (*)(NodeImporter &);

/// A handler and the first opset it supports.
struct OpImportEntry {
  OpImportFn fn;
  int minOpset = 1;
  /// Whether the handler imports inputs with dynamic dimensions (it reads
  /// no extent of them as a number). The importer refuses a dynamic input
  /// of any other op, naming the node.
  bool dynamic = false;
  /// Whether the handler computes on shapes kept symbolic
  /// (NodeImporter::symbolicInput); any other refuses them.
  bool symbolic = false;
  /// Whether the handler takes sequence and optional values
  /// (NodeImporter::sequenceInput); any other refuses them, naming the
  /// input.
  bool sequences = false;
};
using OpImportTable = llvm::StringMap<OpImportEntry>;

/// `data` split along `axis` into consecutive parts of the sizes `given`
/// (read at run time where they are not constants), each clamped into what
/// is left of the dimension: int21.dynamic_slices, dynamic along `axis`
/// (ONNX Split and SplitToSequence by sizes given as data).
SmallVector<Value> splitByExtents(NodeImporter &n, Value data, int64_t axis,
                                  ArrayRef<SymbolicExtent> given);

/// Marks the handlers of `ops` in `table` as importing dynamic dimensions.
void allowDynamicShapes(OpImportTable &table, ArrayRef<StringRef> ops);
/// Marks the handlers of `ops` in `table` as computing on symbolic shapes.
void allowSymbolicShapes(OpImportTable &table, ArrayRef<StringRef> ops);
/// Marks the handlers of `ops` in `table` as taking sequences and optionals.
void allowSequences(OpImportTable &table, ArrayRef<StringRef> ops);

void registerElementwiseOps(OpImportTable &table);
void registerNNOps(OpImportTable &table);
void registerTensorOps(OpImportTable &table);
void registerReductionOps(OpImportTable &table);
void registerLossOps(OpImportTable &table);
void registerCompositeOps(OpImportTable &table);
void registerRecurrentOps(OpImportTable &table);
void registerContractionOps(OpImportTable &table);
void registerMaskOps(OpImportTable &table);
void registerRearrangeOps(OpImportTable &table);
void registerQuantizationOps(OpImportTable &table);
void registerIndexingOps(OpImportTable &table);
void registerResamplingOps(OpImportTable &table);
void registerControlFlowOps(OpImportTable &table);
void registerRandomOps(OpImportTable &table);
void registerTrainingOps(OpImportTable &table);
void registerSequenceOps(OpImportTable &table);

/// The domain of ONNX's optimizers (Adagrad, Momentum, Adam).
constexpr llvm::StringLiteral kTrainingDomain = "ai.onnx.preview.training";
/// The op table's key of an operator of the training domain.
inline std::string trainingOpKey(StringRef op) {
  return (kTrainingDomain + "::" + op).str();
}
/// The op table's key of `node`: its op type in the default domain,
/// DOMAIN::TYPE in another.
inline std::string opKey(const onnx::NodeProto &node) {
  if (node.domain().empty() || node.domain() == "ai.onnx")
    return node.op_type();
  return node.domain() + "::" + node.op_type();
}

/// An int21.random of `shape` (f64; `sizes` its dynamic extents), uniform
/// in [0, 1) or standard normal, seeded when `seed` is given (it must lie
/// in [0, 2^32)); declares the engine's generator in the module.
FailureOr<Value> randomNumbers(NodeImporter &n, ArrayRef<int64_t> shape,
                               ValueRange sizes, bool normal,
                               std::optional<double> seed);
/// Dropout with its training mode on or read at run time.
LogicalResult importTrainingDropout(NodeImporter &n);

/// MatMul with numpy semantics: 1-D operands are promoted to matrices and
/// the added dimension is removed from the result.
FailureOr<Value> buildMatMul(NodeImporter &n, Value a, Value b);
/// An int21.conv of `input` and `weight` (and `bias`, which may be null)
/// with the window attributes of the node (Conv's: kernel_shape, strides,
/// dilations, pads or auto_pad, group).
FailureOr<Value> buildConv(NodeImporter &n, Value input, Value weight,
                           Value bias);

/// The table of every supported ONNX operator (built once, then read-only).
const OpImportTable &getOpImportTable();

/// The MLIR element type of ONNX TensorProto data type `dataType`, or null.
Type convertElementType(int32_t dataType, MLIRContext *ctx);
/// The ONNX name of `dataType`, for messages.
std::string onnxTypeName(int32_t dataType);

/// Checks what libonnx's checker and shape inference read without checking
/// it (tensor data against dims, the ranges of convolution and pooling
/// attributes) in every graph of `model`; the error names the tensor, or
/// the node and the attribute.
LogicalResult checkWhatLibonnxReads(
    const onnx::ModelProto &model,
    llvm::function_ref<InFlightDiagnostic()> error);

/// Gives every convolution whose weight shape the model states (an
/// initializer, a graph input, a value_info) and which has no
/// `kernel_shape` the one ONNX defines for it, the weight's spatial
/// dimensions. libonnx's shape inference then checks it against the input's
/// rank; without it, it indexes the input's shape with the weight's rank
/// (an input of rank 2 under a 4-D weight: SIGSEGV in libonnx 1.x's
/// convPoolShapeInference). Done before anything calls into libonnx's shape
/// inference, the version converter of an old opset included. A convolution
/// whose input and weight ranks the model states must have them equal and
/// at least 3, else the error names the node.
LogicalResult
spellOutKernelShapes(onnx::ModelProto &model,
                     llvm::function_ref<InFlightDiagnostic()> error);

/// Converts tensor data to an attribute: dense for tiny tensors and booleans,
/// a `dense_resource` blob otherwise. `baseDir` locates external data. When
/// `owner` keeps `tensor` alive, large raw data is shared, not copied. When
/// `withData` is false, a large tensor's blob has a name but no bytes.
FailureOr<ElementsAttr> convertTensor(
    const onnx::TensorProto &tensor, StringRef baseDir, MLIRContext *ctx,
    llvm::function_ref<InFlightDiagnostic()> emitError,
    std::shared_ptr<const void> owner = nullptr, bool withData = true);

/// Dense elements of a constant attribute, reading blobs when needed.
mlir::DenseElementsAttr toDense(ElementsAttr attr);

/// The number of elements of `shape`, or failure when a dimension is
/// negative or the count is absurd (over 2^40 elements).
FailureOr<int64_t> checkedNumElements(ArrayRef<int64_t> shape);

} // namespace int21::onnx_import

#endif // INT21_LIB_IMPORT_NODEIMPORTER_H

//===- OnnxImporter.cpp - ONNX ModelProto -> int21 dialect ----------------===//
//
// The boundary with libonnx (which throws): every call into it is wrapped,
// and every failure becomes one diagnostic naming the model and, where there
// is one, the node.
//
//===----------------------------------------------------------------------===//

#include "int21/Import/OnnxImporter.h"
#include "GraphImporter.h"
#include "NodeImporter.h"

#include "int21/Dialect/Int21/Int21Ops.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include "onnx/checker.h"
#include "onnx/defs/parser.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

#include <exception>
#include <functional>
#include <queue>

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

static constexpr int64_t kMinOpset = 7;
static constexpr int64_t kMaxOpset = 17;

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

GraphImporter::GraphImporter(MLIRContext *ctx, const onnx::GraphProto &graph,
                             StringRef baseDir, Location modelLoc,
                             std::shared_ptr<const void> owner, bool weightData)
    : ctx(ctx), graph(graph), baseDir(baseDir.str()), modelLoc(modelLoc),
      owner(std::move(owner)), weightData(weightData), constantBuilder(ctx) {
  for (const onnx::TensorProto &init : graph.initializer())
    initializers[init.name()] = &init;
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &input : node.input())
      if (!input.empty())
        ++uses[input];
  for (const onnx::ValueInfoProto &output : graph.output())
    ++uses[output.name()];
  // What subgraphs read from this graph (their outer-scope values).
  for (const onnx::NodeProto &node : graph.node())
    forEachSubgraph(node, [&](const onnx::GraphProto &body, StringRef) {
      forEachRead(body, [&](const std::string &name) { ++uses[name]; });
    });
}

GraphImporter::GraphImporter(GraphImporter &parent,
                             const onnx::GraphProto &body, StringRef scope)
    : GraphImporter(parent.ctx, body, parent.baseDir, parent.modelLoc,
                    parent.owner, parent.weightData) {
  this->parent = &parent;
  this->scope = scope.str();
  opset = parent.opset;
  constantBuilder = parent.constantBuilder;
}

Location GraphImporter::nodeLoc(const onnx::NodeProto &node,
                                size_t index) const {
  std::string name = node.name().empty()
                         ? node.op_type() + "#" + std::to_string(index)
                         : node.name();
  return NameLoc::get(StringAttr::get(ctx, scope + name), modelLoc);
}

FailureOr<Value> GraphImporter::lookup(StringRef name, Location loc) {
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  auto init = initializers.find(name);
  if (init == initializers.end()) {
    if (sequence(name))
      return emitError(loc)
                 << "'" << name << "' is a sequence or an optional, which "
                 << "int21 keeps inside a graph: engines and subgraphs take "
                    "and give tensors",
             failure();
    if (parent)
      return parent->lookup(name, loc);
    return emitError(loc) << "no value named '" << name << "'", failure();
  }
  // Initializers are located by name; errors name them in their text.
  Location initLoc = NameLoc::get(StringAttr::get(ctx, name), modelLoc);
  FailureOr<ElementsAttr> attr = convertTensor(
      *init->second, baseDir, ctx, [&] { return emitError(modelLoc); }, owner,
      weightData);
  if (failed(attr))
    return failure();
  Value value = ConstantOp::create(constantBuilder, initLoc, *attr);
  values[name] = value;
  return value;
}

FailureOr<Value> GraphImporter::lookupOutput(StringRef name,
                                             OpBuilder &builder,
                                             Location loc) {
  if (const SmallVector<SymbolicExtent> *extents = symbolic(name)) {
    FailureOr<Value> placeholder = lookup(name, loc);
    if (failed(placeholder))
      return failure();
    define(name, materializeExtents(
                     builder, loc, *extents,
                     cast<RankedTensorType>(placeholder->getType()).getRank()));
  }
  return lookup(name, loc);
}

//===----------------------------------------------------------------------===//
// Nodes and subgraphs
//===----------------------------------------------------------------------===//

/// Checks that no input the operator requires is given as the empty name
/// (which ONNX reserves for absent optional inputs).
static LogicalResult checkInputsPresent(const onnx::NodeProto &node,
                                        const onnx::OpSchema &schema,
                                        Location loc) {
  const auto &formals = schema.inputs();
  for (int i = 0; i < node.input_size(); ++i) {
    if (!node.input(i).empty() || formals.empty())
      continue;
    const auto &formal = formals[std::min<size_t>(i, formals.size() - 1)];
    if (formal.GetOption() != onnx::OpSchema::Optional)
      return emitError(loc)
                 << node.op_type() << ": input " << i << " ('"
                 << formal.GetName() << "') is required but given as empty",
             failure();
  }
  return success();
}

LogicalResult int21::onnx_import::importGraphNodes(GraphImporter &graph,
                                                   OpBuilder &builder) {
  const OpImportTable &table = getOpImportTable();
  for (auto [index, node] : llvm::enumerate(graph.graph.node())) {
    Location loc = graph.nodeLoc(node, index);
    const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
        node.op_type(), graph.opset,
        node.domain() == "ai.onnx" ? "" : node.domain());
    int since =
        schema ? schema->SinceVersion() : static_cast<int>(graph.opset);
    NodeImporter importer(graph, node, graph.opset, since, builder, loc);
    if (schema && failed(checkInputsPresent(node, *schema, loc)))
      return failure();
    const OpImportEntry &entry = table.find(opKey(node))->second;
    // Inputs are materialised first so that a bad one is reported as such.
    // A sequence (or optional) is the import's, for the handlers that take
    // them.
    for (unsigned i = 0; i < importer.numInputs(); ++i) {
      if (!importer.hasInput(i))
        continue;
      if (importer.sequenceInput(i)) {
        if (!entry.sequences)
          return emitError(loc)
                     << node.op_type() << ": input " << i << " ('"
                     << node.input(i) << "') is a sequence or an optional; "
                     << node.op_type() << " takes tensors",
                 failure();
        continue;
      }
      if (failed(graph.lookup(node.input(i), loc)))
        return failure();
    }
    // A shape computed from dynamic extents, read as data by a node that
    // does not follow shapes: the program computes its elements.
    if (!entry.symbolic)
      for (unsigned i = 0; i < importer.numInputs(); ++i)
        if (const SmallVector<SymbolicExtent> *extents =
                importer.symbolicInput(i))
          graph.define(
              node.input(i),
              materializeExtents(builder, loc, *extents,
                                 importer.inputType(i).getRank()));
    if (!entry.dynamic)
      for (unsigned i = 0; i < importer.numInputs(); ++i) {
        if (!importer.hasInput(i) || importer.sequenceInput(i))
          continue;
        RankedTensorType type = importer.inputType(i);
        if (type && !type.hasStaticShape())
          return emitError(loc)
                     << node.op_type() << ": input " << i << " ('"
                     << node.input(i) << "') has the dynamic shape "
                     << type << "; int21 imports " << node.op_type()
                     << " on static shapes only: give the model's inputs "
                        "static shapes with --input-shape",
                 failure();
      }
    if (failed(entry.fn(importer)))
      return failure();
    for (const std::string &output : node.output())
      if (!output.empty() && graph.useCount(output) &&
          !graph.sequence(output) && failed(graph.lookup(output, loc)))
        return emitError(loc) << node.op_type() << ": output '" << output
                              << "' was not produced",
               failure();
  }

  return success();
}

FailureOr<SmallVector<Value>> int21::onnx_import::importSubgraph(
    GraphImporter &parent, const onnx::GraphProto &body, StringRef scope,
    ValueRange args, OpBuilder &builder,
    SmallVectorImpl<std::pair<Value, mlir::ArrayAttr>> &checks) {
  GraphImporter graph(parent, body, scope);
  Location loc = NameLoc::get(StringAttr::get(parent.ctx, scope.drop_back()),
                              parent.modelLoc);
  if (static_cast<size_t>(body.input_size()) != args.size())
    return emitError(loc) << "the subgraph takes " << body.input_size()
                          << " inputs where the node gives " << args.size(),
           failure();
  for (auto [input, arg] : llvm::zip(body.input(), args))
    graph.define(input.name(), arg);
  if (failed(importGraphNodes(graph, builder)))
    return failure();
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : body.output()) {
    FailureOr<Value> value = graph.lookupOutput(output.name(), builder, loc);
    if (failed(value))
      return failure();
    results.push_back(*value);
  }
  checks.append(graph.getIndexChecks().begin(), graph.getIndexChecks().end());
  return results;
}

//===----------------------------------------------------------------------===//
// The op table
//===----------------------------------------------------------------------===//

const OpImportTable &int21::onnx_import::getOpImportTable() {
  static const OpImportTable table = [] {
    OpImportTable t;
    registerElementwiseOps(t);
    registerNNOps(t);
    registerTensorOps(t);
    registerReductionOps(t);
    registerLossOps(t);
    registerCompositeOps(t);
    registerRecurrentOps(t);
    registerContractionOps(t);
    registerMaskOps(t);
    registerRearrangeOps(t);
    registerQuantizationOps(t);
    registerIndexingOps(t);
    registerResamplingOps(t);
    registerControlFlowOps(t);
    registerRandomOps(t);
    registerTrainingOps(t);
    registerSequenceOps(t);
    return t;
  }();
  return table;
}

/// Sets `flag` of the handlers of `ops` in `table`.
static void markHandlers(OpImportTable &table, ArrayRef<StringRef> ops,
                         bool OpImportEntry::*flag) {
  for (StringRef op : ops) {
    auto it = table.find(op);
    if (it != table.end())
      it->second.*flag = true;
  }
}

void int21::onnx_import::allowDynamicShapes(OpImportTable &table,
                                            ArrayRef<StringRef> ops) {
  markHandlers(table, ops, &OpImportEntry::dynamic);
}

void int21::onnx_import::allowSequences(OpImportTable &table,
                                        ArrayRef<StringRef> ops) {
  markHandlers(table, ops, &OpImportEntry::sequences);
}

void int21::onnx_import::allowSymbolicShapes(OpImportTable &table,
                                             ArrayRef<StringRef> ops) {
  markHandlers(table, ops, &OpImportEntry::symbolic);
}

SmallVector<std::pair<std::string, int>> int21::supportedOnnxOps() {
  SmallVector<std::pair<std::string, int>> ops;
  // (An operator of another domain than the default one, DOMAIN::TYPE,
  // with that domain's version.)
  for (const auto &entry : getOpImportTable())
    ops.emplace_back(entry.getKey().str(),
                     entry.getKey().contains("::")
                         ? entry.getValue().minOpset
                         : std::max<int>(entry.getValue().minOpset, kMinOpset));
  llvm::sort(ops);
  return ops;
}

//===----------------------------------------------------------------------===//
// Input shape overrides
//===----------------------------------------------------------------------===//

FailureOr<std::pair<std::string, SmallVector<int64_t>>>
int21::parseInputShapeSpec(StringRef spec, std::string &error) {
  auto [name, dims] = spec.rsplit('=');
  if (name.empty() || !spec.contains('=')) {
    error =
        "expected NAME=DIMS (e.g. input=1x3x224x224), got '" + spec.str() + "'";
    return failure();
  }
  SmallVector<int64_t> shape;
  if (!dims.empty()) {
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef part : parts) {
      int64_t d;
      if (part.getAsInteger(10, d) || d < 0) {
        error = "invalid dimension '" + part.str() + "' in '" + spec.str() +
                "': dimensions are non-negative integers separated by 'x'";
        return failure();
      }
      shape.push_back(d);
    }
  }
  return std::make_pair(name.str(), shape);
}

//===----------------------------------------------------------------------===//
// Model import
//===----------------------------------------------------------------------===//

namespace {

/// The first line of an exception message from libonnx.
std::string firstLine(const char *what) {
  StringRef text(what);
  text = text.trim();
  return text.split('\n').first.str();
}

class ModelImporter {
public:
  ModelImporter(MLIRContext &ctx, std::shared_ptr<onnx::ModelProto> owner,
                StringRef path, const OnnxImportOptions &options)
      : ctx(ctx), owner(owner), model(*owner), path(path.str()),
        options(options), modelLoc(FileLineColLoc::get(&ctx, path, 0, 0)) {}

  FailureOr<OwningOpRef<ModuleOp>> run();

private:
  InFlightDiagnostic error() { return emitError(modelLoc); }
  LogicalResult checkOpset();
  LogicalResult sortAndCheckGraph();
  LogicalResult applyFrozenInputs();
  LogicalResult applyInputShapes();
  LogicalResult runOnnxChecks();
  LogicalResult checkSupportedOps();
  FailureOr<RankedTensorType> valueType(const onnx::ValueInfoProto &value,
                                        StringRef what);
  FailureOr<OwningOpRef<ModuleOp>> buildModule();

  MLIRContext &ctx;
  std::shared_ptr<onnx::ModelProto> owner;
  onnx::ModelProto &model;
  std::string path;
  const OnnxImportOptions &options;
  Location modelLoc;
  int64_t opset = 0;
};

LogicalResult ModelImporter::checkOpset() {
  bool found = false;
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    if (id.domain().empty() || id.domain() == "ai.onnx") {
      if (found)
        return error() << "the model imports the default ONNX domain twice "
                          "(opsets "
                       << opset << " and " << id.version() << ")";
      opset = id.version();
      found = true;
    }
  }
  // A model of optimizer steps alone imports the training domain only: its
  // nodes are read at the newest default opset int21 handles.
  if (!found && llvm::any_of(model.opset_import(), [](const auto &id) {
        return id.domain() == kTrainingDomain;
      })) {
    opset = kMaxOpset;
    found = true;
  }
  if (!found)
    return error() << "the model imports no opset of the default ONNX domain";
  if (opset >= 1 && opset < kMinOpset) {
    // Older models are upgraded by libonnx's version converter, so that the
    // handlers only meet opsets 7 and later. Its adapters index a node's
    // inputs as the schema has them (an Add with one input crashed it):
    // the counts are checked first, against the model's own opset.
    for (const onnx::NodeProto &node : model.graph().node()) {
      if (!node.domain().empty() && node.domain() != "ai.onnx")
        continue;
      const onnx::OpSchema *schema =
          onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
      if (!schema)
        continue;
      int inputs = node.input_size(), outputs = node.output_size();
      if (inputs < schema->min_input() || inputs > schema->max_input() ||
          outputs < schema->min_output() || outputs > schema->max_output())
        return error() << "node '"
                       << (node.name().empty() ? node.op_type() : node.name())
                       << "' (" << node.op_type() << ") has " << inputs
                       << " inputs and " << outputs << " outputs; at opset "
                       << opset << " it takes " << schema->min_input() << " to "
                       << schema->max_input() << " inputs and "
                       << schema->min_output() << " to "
                       << schema->max_output() << " outputs";
    }
    try {
      // The converter's adapters need the shapes of intermediate values.
      onnx::shape_inference::InferShapes(model);
      onnx::ModelProto converted =
          onnx::version_conversion::ConvertVersion(model, kMinOpset);
      model.Swap(&converted);
      opset = kMinOpset;
      return success();
    } catch (const std::exception &e) {
      return error() << "cannot convert opset " << opset << " to opset "
                     << kMinOpset << ": " << firstLine(e.what());
    }
  }
  if (opset < kMinOpset || opset > kMaxOpset)
    return error() << "opset " << opset << " is not supported: int21 imports "
                   << "opsets " << kMinOpset << " to " << kMaxOpset;
  return success();
}

/// Checks that the graph has outputs, that every value a node reads is
/// defined, that names are defined once, and that the graph has no cycle; then orders the nodes
/// topologically (ONNX requires it, some producers do not).
LogicalResult ModelImporter::sortAndCheckGraph() {
  onnx::GraphProto &graph = *model.mutable_graph();
  if (graph.output_size() == 0)
    return error() << "the graph has no outputs: an engine of it would "
                      "compute nothing";
  llvm::StringMap<int> producer; // value -> node index, -1 for graph values
  for (const onnx::ValueInfoProto &input : graph.input())
    producer[input.name()] = -1;
  for (const onnx::TensorProto &init : graph.initializer())
    producer[init.name()] = -1;
  int numNodes = graph.node_size();
  auto nodeName = [&](int i) {
    const onnx::NodeProto &n = graph.node(i);
    return "'" +
           (n.name().empty() ? n.op_type() + "#" + std::to_string(i)
                             : n.name()) +
           "' (" + n.op_type() + ")";
  };
  for (int i = 0; i < numNodes; ++i) {
    for (const std::string &output : graph.node(i).output()) {
      if (output.empty())
        continue;
      auto [it, inserted] = producer.try_emplace(output, i);
      if (!inserted)
        return error() << "value '" << output
                       << "' is defined twice (again by node " << nodeName(i)
                       << ")";
    }
  }
  std::vector<std::vector<int>> consumers(numNodes);
  std::vector<int> pending(numNodes, 0);
  for (int i = 0; i < numNodes; ++i) {
    for (const std::string &input : graph.node(i).input()) {
      if (input.empty())
        continue;
      auto it = producer.find(input);
      if (it == producer.end())
        return error()
               << "node " << nodeName(i) << " reads '" << input
               << "', which no graph input, initializer or node defines";
      if (it->second >= 0) {
        consumers[it->second].push_back(i);
        ++pending[i];
      }
    }
    // The values of this graph that its subgraphs read come first too (the
    // subgraphs' own names are defined by no node here).
    llvm::StringSet<> implicit;
    forEachSubgraph(graph.node(i), [&](const onnx::GraphProto &body,
                                       StringRef) {
      forEachRead(body, [&](const std::string &name) {
        auto it = producer.find(name);
        if (it != producer.end() && it->second >= 0 && it->second != i &&
            implicit.insert(name).second) {
          consumers[it->second].push_back(i);
          ++pending[i];
        }
      });
    });
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    if (!producer.count(output.name()))
      return error() << "graph output '" << output.name()
                     << "' is not defined by any node, input or initializer";
  // Kahn's algorithm taking the earliest ready node first: a graph that is
  // already sorted keeps its order (and its nodes their OpType#index names).
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < numNodes; ++i)
    if (pending[i] == 0)
      ready.push(i);
  std::vector<int> order;
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int c : consumers[i])
      if (--pending[c] == 0)
        ready.push(c);
  }
  if (static_cast<int>(order.size()) != numNodes) {
    for (int i = 0; i < numNodes; ++i)
      if (pending[i] > 0)
        return error() << "the graph has a cycle through node " << nodeName(i);
  }
  bool sorted = llvm::is_sorted(order);
  if (!sorted) {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    for (int i : order)
      *nodes.Add() = graph.node(i);
    graph.mutable_node()->Swap(&nodes);
  }
  return success();
}

LogicalResult ModelImporter::applyFrozenInputs() {
  if (options.frozenInputs.empty())
    return success();
  onnx::GraphProto &graph = *model.mutable_graph();
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  auto inputNames = [&] {
    std::string names;
    for (const onnx::ValueInfoProto &input : graph.input())
      if (!initializers.contains(input.name()))
        names += (names.empty() ? "'" : ", '") + input.name() + "'";
    return names;
  };
  for (const auto &entry : options.frozenInputs) {
    StringRef name = entry.getKey();
    auto it = llvm::find_if(graph.input(), [&](const onnx::ValueInfoProto &v) {
      return v.name() == name && !initializers.contains(v.name());
    });
    if (it == graph.input().end())
      return error() << "--freeze-input names '" << name
                     << "', which is not an input of the model (inputs: "
                     << inputNames() << ")";
    onnx::TensorProto tensor;
    if (entry.getValue().size() > static_cast<size_t>(INT_MAX) ||
        !tensor.ParseFromArray(entry.getValue().data(),
                               static_cast<int>(entry.getValue().size())))
      return error() << "--freeze-input " << name
                     << ": the value is not an ONNX TensorProto";
    const onnx::ValueInfoProto &input = *it;
    if (!input.type().has_tensor_type())
      return error() << "--freeze-input " << name
                     << ": the input is not a tensor";
    const onnx::TypeProto::Tensor &declared = input.type().tensor_type();
    if (declared.elem_type() != tensor.data_type())
      return error() << "--freeze-input " << name << ": the value is "
                     << onnxTypeName(tensor.data_type()) << ", the input "
                     << onnxTypeName(declared.elem_type());
    if (declared.has_shape()) {
      const onnx::TensorShapeProto &shape = declared.shape();
      bool matches = shape.dim_size() == tensor.dims_size();
      for (int i = 0; matches && i < shape.dim_size(); ++i)
        matches = !shape.dim(i).has_dim_value() ||
                  shape.dim(i).dim_value() == tensor.dims(i);
      if (!matches) {
        std::string dims;
        for (int i = 0; i < tensor.dims_size(); ++i)
          dims += (i ? "x" : "") + std::to_string(tensor.dims(i));
        return error() << "--freeze-input " << name << ": the value's shape ["
                       << dims << "] does not fit the input's declared shape";
      }
    }
    // The value becomes an initializer named like the input; the input goes.
    tensor.set_name(name.str());
    *graph.add_initializer() = std::move(tensor);
    graph.mutable_input()->erase(it);
    initializers.insert(name);
  }
  return success();
}

LogicalResult ModelImporter::applyInputShapes() {
  onnx::GraphProto &graph = *model.mutable_graph();
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  llvm::StringSet<> seen;
  for (onnx::ValueInfoProto &input : *graph.mutable_input()) {
    auto it = options.inputShapes.find(input.name());
    if (it == options.inputShapes.end())
      continue;
    seen.insert(input.name());
    if (!input.type().has_tensor_type())
      return error() << "input '" << input.name() << "' is not a tensor";
    onnx::TensorShapeProto *shape =
        input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() != 0 &&
        shape->dim_size() != static_cast<int>(it->second.size()))
      return error() << "--input-shape gives input '" << input.name() << "' "
                     << it->second.size() << " dimensions, but the model "
                     << "declares " << shape->dim_size();
    for (auto [i, d] : llvm::enumerate(it->second)) {
      if (static_cast<int>(i) < shape->dim_size()) {
        onnx::TensorShapeProto::Dimension *dim = shape->mutable_dim(i);
        if (dim->has_dim_value() && dim->dim_value() != d)
          return error() << "--input-shape gives input '" << input.name()
                         << "' dimension " << i << " = " << d
                         << ", but the model fixes it to " << dim->dim_value();
        dim->set_dim_value(d);
      } else {
        shape->add_dim()->set_dim_value(d);
      }
    }
  }
  for (const auto &entry : options.inputShapes) {
    if (seen.contains(entry.getKey()))
      continue;
    std::string names;
    for (const onnx::ValueInfoProto &input : graph.input())
      if (!initializers.contains(input.name()))
        names += (names.empty() ? "'" : ", '") + input.name() + "'";
    return error() << "--input-shape names '" << entry.getKey()
                   << "', which is not an input of the model (inputs: " << names
                   << ")";
  }
  // Every input must have a rank; a dimension without a value (a dim_param,
  // or neither) is dynamic.
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializers.contains(input.name()))
      continue;
    if (!input.type().has_tensor_type())
      return error() << "input '" << input.name()
                     << "' is not a tensor; int21 imports tensor inputs only";
    const onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
    if (!tensor.has_shape())
      return error() << "input '" << input.name() << "' has no shape; give it "
                     << "with --input-shape " << input.name() << "=DIMS";
    for (int i = 0; i < tensor.shape().dim_size(); ++i) {
      const auto &dim = tensor.shape().dim(i);
      if (dim.has_dim_value() && dim.dim_value() < 0)
        return error() << "input '" << input.name() << "' has dimension " << i
                       << " = " << dim.dim_value()
                       << "; expected a size of 0 or more, or a dim_param";
    }
  }
  return success();
}

LogicalResult ModelImporter::runOnnxChecks() {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return error() << "invalid ONNX model: " << firstLine(e.what());
  }
  auto inferShapes = [&](bool checkTypes) -> std::optional<std::string> {
    try {
      onnx::ShapeInferenceOptions inferenceOptions(checkTypes,
                                                   /*error_mode=*/1,
                                                   /*data_prop=*/true);
      onnx::shape_inference::InferShapes(
          model, onnx::OpSchemaRegistry::Instance(), inferenceOptions);
    } catch (const std::exception &e) {
      return firstLine(e.what());
    }
    return std::nullopt;
  };
  std::optional<std::string> failure = inferShapes(/*checkTypes=*/true);
  // Old exporters emit types the schema of their opset did not list yet
  // (e.g. an int64 Constant at opset 6), which ONNX Runtime accepts. Shapes
  // are what the importer needs: infer them without the type check, and
  // leave the types to the int21 verifiers.
  if (failure && StringRef(*failure).contains("has unsupported type") &&
      !inferShapes(/*checkTypes=*/false))
    failure.reset();
  if (failure)
    return error() << "ONNX shape inference failed: " << *failure;
  return success();
}

LogicalResult ModelImporter::checkSupportedOps() {
  const OpImportTable &table = getOpImportTable();
  std::string unsupported;
  unsigned count = 0;
  llvm::StringSet<> reported;
  // The nodes of subgraphs too, named by their path ("Loop#0/body/Add#2").
  std::function<void(const onnx::GraphProto &, const std::string &)> visit =
      [&](const onnx::GraphProto &graph, const std::string &scope) {
        for (auto [i, node] : llvm::enumerate(graph.node())) {
          std::string name = scope + (node.name().empty()
                                          ? node.op_type() + "#" +
                                                std::to_string(i)
                                          : node.name());
          forEachSubgraph(node, [&](const onnx::GraphProto &body,
                                    StringRef attr) {
            visit(body, name + "/" + attr.str() + "/");
          });
          bool defaultDomain =
              node.domain().empty() || node.domain() == "ai.onnx";
          auto it = table.find(opKey(node));
          if (it != table.end() &&
              (!defaultDomain || opset >= it->second.minOpset))
            continue;
          std::string key = node.domain() + "::" + node.op_type();
          if (!reported.insert(key).second)
            continue;
          unsupported += (count++ ? ", " : "") +
                         (defaultDomain ? "" : node.domain() + ".") +
                         node.op_type() + " (opset " + std::to_string(opset) +
                         ", node '" + name + "')";
        }
      };
  visit(model.graph(), "");
  if (count)
    return error() << "unsupported ONNX op" << (count > 1 ? "s" : "") << ": "
                   << unsupported;
  return success();
}

FailureOr<RankedTensorType>
ModelImporter::valueType(const onnx::ValueInfoProto &value, StringRef what) {
  if (!value.type().has_tensor_type())
    return error() << what << " '" << value.name() << "' is not a tensor",
           failure();
  const onnx::TypeProto::Tensor &tensor = value.type().tensor_type();
  Type elementType = convertElementType(tensor.elem_type(), &ctx);
  if (!elementType)
    return error() << what << " '" << value.name() << "' has element type "
                   << onnxTypeName(tensor.elem_type())
                   << ", which int21 does not support",
           failure();
  SmallVector<int64_t> shape;
  for (const auto &dim : tensor.shape().dim())
    shape.push_back(dim.has_dim_value() ? dim.dim_value()
                                        : ShapedType::kDynamic);
  SmallVector<int64_t> staticShape(llvm::map_range(
      shape, [](int64_t d) { return ShapedType::isDynamic(d) ? 1 : d; }));
  if (failed(checkedNumElements(staticShape)))
    return error() << what << " '" << value.name()
                   << "' has an absurd shape (over 2^40 elements)",
           failure();
  return RankedTensorType::get(shape, elementType);
}

FailureOr<OwningOpRef<ModuleOp>> ModelImporter::buildModule() {
  const onnx::GraphProto &graph = model.graph();
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &init : graph.initializer())
    initializerNames.insert(init.name());

  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> args;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializerNames.contains(input.name()))
      continue; // IR < 4 lists initializers as inputs too.
    FailureOr<RankedTensorType> type = valueType(input, "input");
    if (failed(type))
      return failure();
    argTypes.push_back(*type);
    args.push_back(&input);
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(modelLoc);
  if (!graph.name().empty())
    (*module)->setAttr("onnx.graph_name", StringAttr::get(&ctx, graph.name()));
  OpBuilder builder(module->getBodyRegion());
  auto func = func::FuncOp::create(builder, modelLoc, options.funcName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, input] : llvm::enumerate(args)) {
    func.setArgAttr(i, "onnx.name", builder.getStringAttr(input->name()));
    // The names of dynamic dimensions: inputs that share one share the
    // extent at run time.
    const auto &dims = input->type().tensor_type().shape().dim();
    if (llvm::any_of(dims, [](const auto &d) { return d.has_dim_param(); })) {
      SmallVector<Attribute> names;
      for (const auto &d : dims)
        names.push_back(builder.getStringAttr(
            d.has_dim_value() ? std::string() : d.dim_param()));
      func.setArgAttr(i, kDimParamsAttr, builder.getArrayAttr(names));
    }
  }

  std::string baseDir = llvm::sys::path::parent_path(path).str();
  GraphImporter graphImporter(&ctx, graph, baseDir, modelLoc, owner,
                              options.weightData);
  graphImporter.setConstantInsertionPoint(body);
  for (auto [i, input] : llvm::enumerate(args))
    graphImporter.define(input->name(), body->getArgument(i));

  graphImporter.opset = opset;
  builder.setInsertionPointToEnd(body);
  if (failed(importGraphNodes(graphImporter, builder)))
    return failure();

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    FailureOr<Value> value =
        graphImporter.lookupOutput(output.name(), builder, modelLoc);
    if (failed(value))
      return failure();
    FailureOr<RankedTensorType> declared = valueType(output, "output");
    if (failed(declared))
      return failure();
    auto actual = cast<RankedTensorType>(value->getType());
    const onnx::TypeProto::Tensor &tensorType = output.type().tensor_type();
    bool compatible = declared->getElementType() == actual.getElementType();
    if (compatible && tensorType.has_shape()) {
      compatible = declared->getRank() == actual.getRank();
      // An extent computed at run time (from the values of inputs) may be
      // declared static: the run computes it, as ONNX Runtime does.
      for (auto [d, a] : llvm::zip(declared->getShape(), actual.getShape()))
        compatible &= ShapedType::isDynamic(d) || ShapedType::isDynamic(a) ||
                      d == a;
    }
    if (!compatible)
      return error() << "output '" << output.name() << "' is declared as "
                     << *declared << " but computes " << actual,
             failure();
    results.push_back(*value);
    resultTypes.push_back(actual);
  }
  // Index checks follow the outputs (EngineMetadata::checks).
  for (auto [check, bounds] : graphImporter.getIndexChecks()) {
    results.push_back(check);
    resultTypes.push_back(check.getType());
  }
  func.setType(builder.getFunctionType(argTypes, resultTypes));
  func::ReturnOp::create(builder, modelLoc, results);
  for (auto [i, output] : llvm::enumerate(graph.output())) {
    func.setResultAttr(i, "onnx.name", builder.getStringAttr(output.name()));
    // The model's names of the output's dynamic extents, as it declares
    // them (labels: the code computes the extents).
    auto actual = cast<RankedTensorType>(resultTypes[i]);
    const auto &dims = output.type().tensor_type().shape().dim();
    if (!actual.hasStaticShape() && dims.size() == size_t(actual.getRank()) &&
        llvm::any_of(dims, [](const auto &d) { return d.has_dim_param(); })) {
      SmallVector<Attribute> names;
      for (auto [d, dim] : llvm::enumerate(dims))
        names.push_back(builder.getStringAttr(
            actual.isDynamicDim(d) && dim.has_dim_param() ? dim.dim_param()
                                                          : std::string()));
      func.setResultAttr(i, kDimParamsAttr, builder.getArrayAttr(names));
    }
  }
  for (auto [i, check] : llvm::enumerate(graphImporter.getIndexChecks())) {
    unsigned result = graph.output_size() + i;
    func.setResultAttr(result, "onnx.name",
                       builder.getStringAttr("index_check_" + Twine(i)));
    func.setResultAttr(result, kIndexBoundsAttr, check.second);
  }

  // Constants that only fed attributes (shapes, axes, bounds) are dead now.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();

  if (failed(mlir::verify(*module)))
    return failure();
  return module;
}

FailureOr<OwningOpRef<ModuleOp>> ModelImporter::run() {
  auto phase = [&](StringRef name) {
    return options.timing ? options.timing->nest(name) : TimingScope();
  };
  {
    TimingScope scope = phase("graph checks");
    // Unsupported ops are listed before libonnx's checker runs, so that one
    // message names all of them, whether ONNX knows them or not. The graph
    // is checked before an old opset goes through libonnx's version
    // converter, which dereferences a graph output no node defines.
    // Convolutions get their kernel_shape before the first call into
    // libonnx's shape inference, which the version converter of an old
    // opset makes too.
    if (failed(checkWhatLibonnxReads(model, [&] { return error(); })) ||
        failed(spellOutKernelShapes(model, [&] { return error(); })))
      return failure();
    if (failed(sortAndCheckGraph()) || failed(checkOpset()) ||
        failed(checkSupportedOps()) || failed(applyFrozenInputs()) ||
        failed(applyInputShapes()))
      return failure();
  }
  {
    TimingScope scope = phase("onnx checker and shape inference");
    if (failed(runOnnxChecks()))
      return failure();
  }
  TimingScope scope = phase("build int21");
  return buildModule();
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
int21::importOnnxModel(MLIRContext &context, llvm::MemoryBufferRef buffer,
                             StringRef path, bool isText,
                             const OnnxImportOptions &options) {
  context.loadDialect<Int21Dialect, func::FuncDialect>();
  Location loc = FileLineColLoc::get(&context, path, 0, 0);
  auto owner = std::make_shared<onnx::ModelProto>();
  onnx::ModelProto &model = *owner;
  try {
    TimingScope parseTimer = options.timing
                                 ? options.timing->nest(StringRef("parse"))
                                 : TimingScope();
    if (isText) {
      std::string text = buffer.getBuffer().str();
      onnx::Status status = onnx::OnnxParser::Parse(model, text.c_str());
      if (!status.IsOK())
        return emitError(loc) << "cannot parse the ONNX text model: "
                              << firstLine(status.ErrorMessage().c_str()),
               failure();
    } else if (buffer.getBufferSize() > static_cast<size_t>(INT_MAX) ||
               !model.ParseFromArray(
                   buffer.getBufferStart(),
                   static_cast<int>(buffer.getBufferSize()))) {
      return emitError(loc) << "not an ONNX model, or a truncated one: the "
                               "file does not parse as an ONNX ModelProto",
             failure();
    }
    parseTimer.stop();
    if (!model.has_graph())
      return emitError(loc) << "not an ONNX model: it has no graph", failure();
    ModelImporter importer(context, owner, path, options);
    return importer.run();
  } catch (const std::exception &e) {
    return emitError(loc) << "ONNX error: " << firstLine(e.what()), failure();
  } catch (...) {
    return emitError(loc) << "unknown error from libonnx", failure();
  }
}

FailureOr<OwningOpRef<ModuleOp>>
int21::importOnnxFile(MLIRContext &context, StringRef path,
                            const OnnxImportOptions &options) {
  auto file =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!file)
    return emitError(FileLineColLoc::get(&context, path, 0, 0))
               << "cannot read '" << path << "': " << file.getError().message(),
           failure();
  bool isText = path.ends_with(".onnxtext");
  return importOnnxModel(context, (*file)->getMemBufferRef(), path, isText,
                         options);
}

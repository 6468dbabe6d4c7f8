//===- GraphImporter.h - the state of one ONNX graph's import -------------===//

#ifndef INT21_LIB_IMPORT_GRAPHIMPORTER_H
#define INT21_LIB_IMPORT_GRAPHIMPORTER_H

#include "NodeImporter.h"

namespace int21::onnx_import {

/// Calls `fn` on every subgraph attribute of `node` (If's branches, Loop's
/// and Scan's bodies) with the attribute's name.
inline void forEachSubgraph(
    const onnx::NodeProto &node,
    llvm::function_ref<void(const onnx::GraphProto &, StringRef)> fn) {
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.has_g())
      fn(attr.g(), attr.name());
    for (const onnx::GraphProto &g : attr.graphs())
      fn(g, attr.name());
  }
}

/// Calls `fn` on every name that a node of `graph` or of its subgraphs
/// reads, or that `graph` returns (local names included).
inline void forEachRead(const onnx::GraphProto &graph,
                        llvm::function_ref<void(const std::string &)> fn) {
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input())
      if (!input.empty())
        fn(input);
    forEachSubgraph(node, [&](const onnx::GraphProto &body, StringRef) {
      forEachRead(body, fn);
    });
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    fn(output.name());
}

/// Maps ONNX value names to int21 values while one graph is imported.
/// Initializers become constants lazily, at the top of the function, when a
/// node first reads them.
class GraphImporter {
public:
  /// `owner` keeps the model, and so `graph`, alive for as long as weight
  /// blobs share its data.
  GraphImporter(MLIRContext *ctx, const onnx::GraphProto &graph,
                StringRef baseDir, Location modelLoc,
                std::shared_ptr<const void> owner, bool weightData);
  /// The importer of `body`, a subgraph of a node of `parent` (If's
  /// branches, Loop's and Scan's bodies): names it does not define are
  /// looked up in `parent` (outer-scope values), its constants go where
  /// the parent's go, and `scope` ("If#0/then_branch/") prefixes the names
  /// of its nodes in diagnostics.
  GraphImporter(GraphImporter &parent, const onnx::GraphProto &body,
                StringRef scope);

  /// The value called `name`, or failure (with a diagnostic at `loc`).
  FailureOr<Value> lookup(StringRef name, Location loc);
  void define(StringRef name, Value value) { values[name] = value; }
  /// The value a graph returns as `name`: a shape kept symbolic is
  /// materialised at `builder` (the program computes its elements).
  FailureOr<Value> lookupOutput(StringRef name, OpBuilder &builder,
                                Location loc);
  /// How many nodes and graph outputs read `name`.
  unsigned useCount(StringRef name) const { return uses.lookup(name); }
  bool isInitializer(StringRef name) const { return initializers.count(name); }

  /// Sets where initializer constants go: the start of the function body.
  void setConstantInsertionPoint(Block *body) {
    constantBuilder.setInsertionPointToStart(body);
  }

  /// The opset of the model's default domain.
  int64_t opset = 0;
  /// What prefixes node names in diagnostics: empty for the main graph,
  /// "Loop#3/body/" for a subgraph.
  std::string scope;
  /// The importer of the graph this one is a subgraph of, if any.
  GraphImporter *parent = nullptr;

  /// Records `check` ([2]: the least and greatest of some indices) with
  /// the bounds they must lie in (kIndexBoundsAttr's form); the main graph
  /// returns the checks after its outputs.
  void addIndexCheck(Value check, mlir::ArrayAttr bounds) {
    indexChecks.push_back({check, bounds});
  }
  ArrayRef<std::pair<Value, mlir::ArrayAttr>> getIndexChecks() const {
    return indexChecks;
  }

  /// The elements of a shape computed from dynamic extents (Shape of a
  /// dynamic tensor, and Gather, Concat, Unsqueeze, Squeeze and Cast of it),
  /// each a constant or an extent of a value; such a value exists only for
  /// the shape arithmetic that ends in a Reshape.
  const SmallVector<SymbolicExtent> *symbolic(StringRef name) const {
    auto it = symbolicValues.find(name);
    if (it != symbolicValues.end())
      return &it->second;
    if (parent && !values.count(name) && !initializers.count(name))
      return parent->symbolic(name);
    return nullptr;
  }
  void defineSymbolic(StringRef name, SmallVector<SymbolicExtent> extents) {
    symbolicValues[name] = std::move(extents);
  }

  /// A sequence or optional value of the graph (ONNX's sequence and
  /// optional types), which the import keeps as its elements: its length
  /// is known at import (SequenceConstruct, SplitToSequence of static
  /// extents, SequenceInsert at constant positions...), and the program
  /// holds tensors only.
  const SequenceValue *sequence(StringRef name) const {
    auto it = sequences.find(name);
    if (it != sequences.end())
      return &it->second;
    if (parent && !values.count(name) && !initializers.count(name))
      return parent->sequence(name);
    return nullptr;
  }
  void defineSequence(StringRef name, SequenceValue value) {
    sequences[name] = std::move(value);
  }

  /// A location naming node `node` (its name, or OpType#index when unnamed).
  Location nodeLoc(const onnx::NodeProto &node, size_t index) const;

  MLIRContext *ctx;
  const onnx::GraphProto &graph;
  std::string baseDir;
  Location modelLoc;
  std::shared_ptr<const void> owner;
  bool weightData;

private:
  llvm::StringMap<Value> values;
  llvm::StringMap<SmallVector<SymbolicExtent>> symbolicValues;
  llvm::StringMap<SequenceValue> sequences;
  llvm::StringMap<const onnx::TensorProto *> initializers;
  llvm::StringMap<unsigned> uses;
  SmallVector<std::pair<Value, mlir::ArrayAttr>> indexChecks;
  OpBuilder constantBuilder;
};

/// Imports the nodes of `graph.graph` in order at `builder`'s insertion
/// point (its values defined or looked up in `graph`): every node through
/// its handler in the op table, inputs checked first.
LogicalResult importGraphNodes(GraphImporter &graph, OpBuilder &builder);

/// Imports `body`, a subgraph of node `node` of `parent` (its attribute
/// `attr`), at `builder`'s insertion point, its inputs bound to `args`
/// (as many as it declares): the values of its outputs, or failure with a
/// diagnostic. `checks` receives the index checks of its nodes
/// (GraphImporter::addIndexCheck), which the caller carries out of the
/// region.
FailureOr<SmallVector<Value>>
importSubgraph(GraphImporter &parent, const onnx::GraphProto &body,
               StringRef scope, ValueRange args, OpBuilder &builder,
               SmallVectorImpl<std::pair<Value, mlir::ArrayAttr>> &checks);

} // namespace int21::onnx_import

#endif // INT21_LIB_IMPORT_GRAPHIMPORTER_H

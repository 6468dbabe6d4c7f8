//===- GraphImporter.h - the state of one ONNX graph's import -------------===//

#ifndef INT21_LIB_IMPORT_GRAPHIMPORTER_H
#define INT21_LIB_IMPORT_GRAPHIMPORTER_H

#include "NodeImporter.h"

namespace int21::onnx_import {

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

  /// The value called `name`, or failure (with a diagnostic at `loc`).
  FailureOr<Value> lookup(StringRef name, Location loc);
  void define(StringRef name, Value value) { values[name] = value; }
  /// How many nodes and graph outputs read `name`.
  unsigned useCount(StringRef name) const { return uses.lookup(name); }
  bool isInitializer(StringRef name) const { return initializers.count(name); }

  /// Sets where initializer constants go: the start of the function body.
  void setConstantInsertionPoint(Block *body) {
    constantBuilder.setInsertionPointToStart(body);
  }

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
    return it == symbolicValues.end() ? nullptr : &it->second;
  }
  void defineSymbolic(StringRef name, SmallVector<SymbolicExtent> extents) {
    symbolicValues[name] = std::move(extents);
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
  llvm::StringMap<const onnx::TensorProto *> initializers;
  llvm::StringMap<unsigned> uses;
  SmallVector<std::pair<Value, mlir::ArrayAttr>> indexChecks;
  OpBuilder constantBuilder;
};

} // namespace int21::onnx_import

#endif // INT21_LIB_IMPORT_GRAPHIMPORTER_H

//===- OnnxImporter.h - ONNX ModelProto -> int21 dialect ------------------===//

#ifndef INT21_IMPORT_ONNXIMPORTER_H
#define INT21_IMPORT_ONNXIMPORTER_H

#include "int21/Support/LLVM.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <string>

namespace int21 {

struct OnnxImportOptions {
  /// Static shapes for graph inputs, by input name; they replace the shape the
  /// model declares (symbolic or not).
  llvm::StringMap<SmallVector<int64_t>> inputShapes;
  /// Graph inputs frozen to a value, by input name: each holds a serialized
  /// ONNX TensorProto. A frozen input becomes an initializer (a constant of
  /// the model, no longer an input of the engine), so the shapes, axes and
  /// bounds it determines are known at compile time.
  llvm::StringMap<std::string> frozenInputs;
  /// The name of the function the graph becomes.
  std::string funcName = "main";
  /// Whether weight blobs carry their data. Without it, large tensors are
  /// `dense_resource` handles with a name and no bytes: enough to print or
  /// analyse the model's structure, not to run it.
  bool weightData = true;
  /// Where to time the phases of the import (parse, checks, build), if set.
  TimingScope *timing = nullptr;
};

/// Parses `spec` of the form `NAME=1x3x224x224` (a scalar is `NAME=`) into
/// `options`. Returns a one-line error message on failure.
FailureOr<std::pair<std::string, SmallVector<int64_t>>>
parseInputShapeSpec(StringRef spec, std::string &error);

/// Imports the ONNX model in `buffer` (binary protobuf, or the ONNX text
/// format when `isText`) into a module holding one `func.func`. `path` names
/// the model in diagnostics and locates external tensor data. Errors are
/// reported as diagnostics on `context`; no exception escapes.
FailureOr<OwningOpRef<ModuleOp>>
importOnnxModel(MLIRContext &context, llvm::MemoryBufferRef buffer,
                StringRef path, bool isText, const OnnxImportOptions &options);

/// Reads and imports the file at `path`; files ending in `.onnxtext` are read
/// in the ONNX text format.
FailureOr<OwningOpRef<ModuleOp>>
importOnnxFile(MLIRContext &context, StringRef path,
               const OnnxImportOptions &options);

/// The ONNX operator types the importer supports, with the first opset of
/// the range it handles, sorted by name.
SmallVector<std::pair<std::string, int>> supportedOnnxOps();

} // namespace int21

#endif // INT21_IMPORT_ONNXIMPORTER_H

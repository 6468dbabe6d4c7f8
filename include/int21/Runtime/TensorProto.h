//===- TensorProto.h - ONNX TensorProto files <-> runtime tensors ---------===//
//
// The ONNX test layout keeps inputs and expected outputs as serialised
// TensorProto messages (input_0.pb, output_0.pb, ...). These functions read
// and write them; every error names the file and never throws.
//
// Library Int21TensorIO (lib/Runtime/TensorIO): protobuf and ONNX's generated
// message classes, not libonnx, so that a tool running engines links no
// importer.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_RUNTIME_TENSORPROTO_H
#define INT21_RUNTIME_TENSORPROTO_H

#include "int21/Runtime/Engine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace int21 {

struct NamedTensor {
  std::string name;
  runtime::Tensor tensor;
};

/// Reads a serialised onnx.TensorProto (raw_data or the typed fields).
llvm::Expected<NamedTensor> readTensorProto(llvm::StringRef path);

/// Writes `tensor` as a serialised onnx.TensorProto with raw_data.
llvm::Error writeTensorProto(llvm::StringRef path, llvm::StringRef name,
                             const runtime::Tensor &tensor);

} // namespace int21

#endif // INT21_RUNTIME_TENSORPROTO_H

//===- int21-fuzz-onnx.cpp - ONNX model bytes -> import -> int21-to-linalg ===//
//
// The bytes are an ONNX ModelProto (binary protobuf) as int21-compile reads
// it. What imports is verified and lowered to linalg fusion groups, the part
// of the compile that sees the imported shapes, attributes and constants.
// External tensor data resolves against a directory that does not exist.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "int21/Compiler/Compiler.h"
#include "int21/Import/OnnxImporter.h"
#include "int21/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

/// Lowering costs grow with the model: past this many ops an input is only
/// imported, so that each execution stays short.
static constexpr unsigned kMaxOpsToLower = 200;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  int21::fuzz::QuietDiagnostics quiet(context);

  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  int21::OnnxImportOptions options;
  FailureOr<OwningOpRef<ModuleOp>> module = int21::importOnnxModel(
      context, llvm::MemoryBufferRef(bytes, "fuzz.onnx"),
      "/nonexistent/int21-fuzz/model.onnx", /*isText=*/false, options);
  if (failed(module))
    return 0;
  if (failed(verify(**module)))
    __builtin_trap(); // The importer must only build valid IR.
  unsigned ops = 0;
  (**module)->walk([&](Operation *) { ++ops; });
  if (ops > kMaxOpsToLower)
    return 0;
  PassManager pm(&context);
  int21::buildInt21ToLinalgPipeline(pm);
  (void)pm.run(**module);
  return 0;
}

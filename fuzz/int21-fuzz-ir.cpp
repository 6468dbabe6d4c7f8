//===- int21-fuzz-ir.cpp - int21 dialect text -> parse, verify, passes ----===//
//
// The bytes are IR text as int21-opt reads it. What parses and verifies,
// and holds only the ops an imported model holds (int21, func, arith,
// tensor), goes through int21's own passes: int21-to-linalg (canonicalize,
// fusion groups, lowering to linalg) and int21-select-schedules. Upstream
// MLIR's parser is screened first (int21/Support/ParserGuard.h), as every
// int21 reader of IR text does.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "int21/Compiler/Compiler.h"
#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Support/ParserGuard.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <string>

using namespace mlir;

/// Past this many ops a module is parsed and verified only.
static constexpr unsigned kMaxOpsToLower = 200;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // MLIR's lexer reads up to the terminating NUL every buffer int21 hands it
  // has (a file's MemoryBuffer, a std::string); libFuzzer's bytes have none.
  std::string text(reinterpret_cast<const char *>(data), size);
  if (int21::findKnownParserCrash(text))
    return 0;
  DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  int21::fuzz::QuietDiagnostics quiet(context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(&context), "fuzz.mlir");
  if (!module || failed(verify(*module)))
    return 0;
  unsigned ops = 0;
  bool imported = true;
  (*module)->walk([&](Operation *op) {
    ++ops;
    Dialect *dialect = op->getDialect();
    if (!isa<ModuleOp>(op) &&
        !isa_and_present<int21::Int21Dialect, func::FuncDialect,
                         arith::ArithDialect, tensor::TensorDialect>(dialect))
      imported = false;
  });
  if (!imported || ops > kMaxOpsToLower)
    return 0;
  PassManager pm(&context);
  int21::buildInt21ToLinalgPipeline(pm);
  pm.addPass(int21::createInt21SelectSchedules());
  (void)pm.run(*module);
  return 0;
}

//===- FuzzSupport.h - what the int21 fuzz targets share --------*- C++ -*-===//
//
// Each target (one per input int21 reads) is a libFuzzer
// LLVMFuzzerTestOneInput that hands the bytes to int21 the way its tool
// would and returns; a crash, a hang or a sanitizer report is the finding.
// Errors int21 reports are the expected outcome for most inputs: they go to
// a diagnostic handler that drops them, so a run's output stays readable.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_FUZZ_FUZZSUPPORT_H
#define INT21_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>

namespace int21::fuzz {

/// Drops every diagnostic emitted on `context` while it lives.
class QuietDiagnostics {
public:
  explicit QuietDiagnostics(mlir::MLIRContext &context)
      : engine(context.getDiagEngine()),
        id(engine.registerHandler(
            [](mlir::Diagnostic &) { return mlir::success(); })) {}
  ~QuietDiagnostics() { engine.eraseHandler(id); }

private:
  mlir::DiagnosticEngine &engine;
  mlir::DiagnosticEngine::HandlerID id;
};

} // namespace int21::fuzz

#endif // INT21_FUZZ_FUZZSUPPORT_H

//===- Diagnostics.h - compiler diagnostics as one-line messages ----------===//
//
// How int21's front ends (int21-compile, the Python package) show an MLIR
// diagnostic to a user: one line naming the model file and, where there is
// one, the ONNX node, then the message.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_COMPILER_DIAGNOSTICS_H
#define INT21_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

#include <string>

namespace int21 {

/// `diag` as one line, "FILE: node 'NAME': MESSAGE", without its notes;
/// control characters (from corrupt names) are shown as '?'.
std::string formatDiagnostic(const mlir::Diagnostic &diag);

} // namespace int21

#endif // INT21_COMPILER_DIAGNOSTICS_H

//===- Diagnostics.cpp - compiler diagnostics as one-line messages --------===//

#include "int21/Compiler/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// `text` with control characters made visible, so that every diagnostic
/// stays on one line.
static std::string oneLine(StringRef text) {
  std::string out;
  for (char c : text)
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  return out;
}

/// Renders a location as the model file and, where there is one, the node.
static void describeLocation(Location loc, llvm::raw_ostream &os) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    describeLocation(name.getChildLoc(), os);
    os << "node '" << oneLine(name.getName().getValue()) << "': ";
    return;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << oneLine(file.getFilename().getValue()) << ": ";
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    if (!fused.getLocations().empty())
      describeLocation(fused.getLocations().front(), os);
  }
}

std::string int21::formatDiagnostic(const Diagnostic &diag) {
  std::string text;
  llvm::raw_string_ostream os(text);
  describeLocation(diag.getLocation(), os);
  os << oneLine(diag.str());
  return text;
}

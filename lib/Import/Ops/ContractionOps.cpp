//===- ContractionOps.cpp - import of ONNX Einsum ------------------------===//
//
// Einsum becomes int21.einsum with an explicit equation: the implicit result
// (letters used once, alphabetically, after the ellipsis) is spelled out,
// and each operand's ellipsis becomes letters the equation does not use,
// aligned on the right as numpy broadcasts them ('1' where an operand's
// dimension of 1 broadcasts against a larger one).
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

LogicalResult importEinsum(NodeImporter &n) {
  std::string equation;
  for (char ch : n.attrString("equation", ""))
    if (!llvm::isSpace(ch))
      equation.push_back(ch);
  StringRef eq(equation);
  bool explicitResult = eq.contains("->");
  auto [lhs, rhs] = eq.split("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != n.numInputs())
    return n.emitError() << "equation '" << equation << "' has " << terms.size()
                         << " operands, the node " << n.numInputs(),
           failure();
  auto isLetter = [](char ch) { return llvm::isAlpha(ch); };
  for (char ch : eq)
    if (!isLetter(ch) && !StringRef(",.->").contains(ch))
      return n.emitError() << "equation '" << equation << "': unexpected '"
                           << ch << "'",
             failure();

  // Letters for the ellipsis dimensions: ones the equation does not use.
  std::string spare;
  for (char ch = 'A'; ch <= 'Z'; ++ch)
    if (!eq.contains(ch))
      spare.push_back(ch);
  for (char ch = 'a'; ch <= 'z'; ++ch)
    if (!eq.contains(ch))
      spare.push_back(ch);

  // The broadcast ellipsis shape, right-aligned over all operands.
  SmallVector<SmallVector<int64_t>> ellipsisShapes;
  int64_t ellipsisRank = 0;
  for (auto [i, term] : llvm::enumerate(terms)) {
    RankedTensorType type = n.inputType(i);
    size_t dots = term.find("...");
    int64_t named = llvm::count_if(term, isLetter);
    if (dots == StringRef::npos) {
      if (named != type.getRank())
        return n.emitError() << "'" << term << "' names " << named
                             << " dimensions, input " << i << " has "
                             << type.getRank(),
               failure();
      ellipsisShapes.emplace_back();
      continue;
    }
    if (term.count("...") != 1 || llvm::count(term, '.') != 3 ||
        named > type.getRank())
      return n.emitError() << "'" << term << "' does not fit input " << i
                           << " of rank " << type.getRank(),
             failure();
    int64_t rank = type.getRank() - named;
    ellipsisShapes.emplace_back(type.getShape().slice(dots, rank));
    ellipsisRank = std::max(ellipsisRank, rank);
  }
  if (ellipsisRank > static_cast<int64_t>(spare.size()))
    return n.emitError() << "too many ellipsis dimensions", failure();
  SmallVector<int64_t> broadcast(ellipsisRank, 1);
  for (ArrayRef<int64_t> shape : ellipsisShapes)
    for (auto [k, size] : llvm::enumerate(llvm::reverse(shape))) {
      int64_t &b = broadcast[ellipsisRank - 1 - k];
      if (b != 1 && size != 1 && b != size)
        return n.emitError() << "ellipsis dimensions do not broadcast",
               failure();
      if (size != 1)
        b = size;
    }
  std::string ellipsisLetters = spare.substr(0, ellipsisRank);

  SmallVector<std::string> inputs;
  for (auto [term, shape] : llvm::zip(terms, ellipsisShapes)) {
    size_t dots = term.find("...");
    if (dots == StringRef::npos) {
      inputs.push_back(term.str());
      continue;
    }
    std::string expanded = term.substr(0, dots).str();
    int64_t offset = ellipsisRank - static_cast<int64_t>(shape.size());
    for (auto [k, size] : llvm::enumerate(shape))
      expanded.push_back(size == 1 && broadcast[offset + k] != 1
                             ? '1'
                             : ellipsisLetters[offset + k]);
    expanded += term.substr(dots + 3).str();
    inputs.push_back(expanded);
  }

  std::string result;
  if (explicitResult) {
    size_t dots = rhs.find("...");
    if (dots == StringRef::npos) {
      result = rhs.str();
    } else {
      result = rhs.substr(0, dots).str() + ellipsisLetters +
               rhs.substr(dots + 3).str();
    }
  } else {
    // Implicit: the ellipsis, then the letters used once, alphabetically.
    result = ellipsisLetters;
    std::string once;
    for (char ch : lhs)
      if (isLetter(ch) && llvm::count(lhs, ch) == 1)
        once.push_back(ch);
    llvm::sort(once);
    result += once;
  }
  std::string canonical = llvm::join(inputs, ",") + "->" + result;
  SmallVector<Value> operands;
  for (unsigned i = 0; i < n.numInputs(); ++i)
    operands.push_back(n.input(i));
  return n.setResult(
      n.create<EinsumOp>(ValueRange(operands), n.b.getStringAttr(canonical)));
}

} // namespace

void int21::onnx_import::registerContractionOps(OpImportTable &t) {
  t["Einsum"] = {importEinsum, 12};
}

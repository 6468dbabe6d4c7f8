//===- JSON.h - llvm::json::parse with a bound on nesting -------*- C++ -*-===//
//
// llvm::json::parse recurses once per level of nesting, so 100k nested
// arrays overflow the stack. Every JSON int21 reads (engine metadata and GPU
// plans, knowledge-base knobs, worker requests and reports, an external
// agent's answers, tuning logs) comes from a file or a process it does not
// control: it goes through parseJSON, which refuses deep nesting before the
// parser sees it.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_SUPPORT_JSON_H
#define INT21_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace int21 {

/// The deepest nesting of arrays and objects int21 reads by default: every
/// document it writes nests a few levels, far below it.
constexpr unsigned kMaxJSONDepth = 64;

/// Whether `text` nests arrays and objects deeper than `limit` (strings and
/// their escapes skipped). Linear, with no recursion.
inline bool jsonNestsDeeperThan(llvm::StringRef text, unsigned limit) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit)
        return true;
    } else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return false;
}

/// llvm::json::parse, refusing text that nests deeper than `maxDepth` levels
/// with an error that says so.
inline llvm::Expected<llvm::json::Value>
parseJSON(llvm::StringRef text, unsigned maxDepth = kMaxJSONDepth) {
  if (jsonNestsDeeperThan(text, maxDepth))
    return llvm::createStringError(
        llvm::Twine("nests arrays and objects deeper than ") +
        llvm::Twine(maxDepth) + " levels");
  return llvm::json::parse(text);
}

} // namespace int21

#endif // INT21_SUPPORT_JSON_H

//===- ParserGuard.h - IR text MLIR 22's parser crashes on ------*- C++ -*-===//
//
// MLIR's parser refuses bad IR with a diagnostic, except where it has bugs:
// those crash the process instead. int21 reads IR text from users
// (int21-opt), from files others wrote (transform libraries: --schedules,
// int21-kb import) and from its fuzz targets; each screens the text here
// first and refuses what is known to crash, with the line and column.
//
// Known (LLVM 22.1):
// - `array<index: ...>`: Parser::parseDenseArrayAttr asks the index type
//   for its bit width (FloatType::getWidth on a non-float): SIGSEGV.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_SUPPORT_PARSERGUARD_H
#define INT21_SUPPORT_PARSERGUARD_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace int21 {

/// What `findKnownParserCrash` found: where (1-based line and column) and
/// what.
struct ParserCrash {
  unsigned line = 1;
  unsigned column = 1;
  std::string what;
};

/// The first place in `text` (outside string literals and `//` comments)
/// that MLIR 22's parser is known to crash on; std::nullopt when none.
inline std::optional<ParserCrash> findKnownParserCrash(llvm::StringRef text) {
  auto isIdentifierChar = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  };
  unsigned line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
      continue;
    }
    if (c == '"') { // A string literal, with its escapes.
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i < text.size() && text[i] == '\n')
        --i; // The newline is counted above.
      continue;
    }
    if (c == '/' && text.substr(i).starts_with("//")) {
      size_t end = text.find('\n', i);
      i = (end == llvm::StringRef::npos ? text.size() : end) - 1;
      continue;
    }
    if (c != 'a' || (i > 0 && isIdentifierChar(text[i - 1])) ||
        !text.substr(i).starts_with("array"))
      continue;
    size_t at = i + 5;
    while (at < text.size() && llvm::isSpace(text[at]))
      ++at;
    if (at >= text.size() || text[at] != '<')
      continue;
    for (++at; at < text.size() && llvm::isSpace(text[at]);)
      ++at;
    llvm::StringRef element = text.substr(at);
    if (element.starts_with("index") &&
        (element.size() == 5 || !isIdentifierChar(element[5])))
      return ParserCrash{line, static_cast<unsigned>(i - lineStart + 1),
                         "array<index: ...> is not a dense array int21 can "
                         "read (dense arrays hold integers or floats; MLIR "
                         "22's parser crashes on index)"};
  }
  return std::nullopt;
}

} // namespace int21

#endif // INT21_SUPPORT_PARSERGUARD_H

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
// - The custom forms of linalg.reduce and linalg.broadcast (`dimensions =
//   [...]`) and linalg.transpose (`permutation = [...]`): their parser sets
//   the attribute DenseI64ArrayAttr::parse returns without checking it, and
//   that is null for anything but a well-formed list of int64 values (a
//   missing bracket, a stray token, a value that overflows): SIGSEGV in
//   NamedAttrList::set.
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

namespace detail {

inline bool isIRIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

/// `at` moved past white space and `//` comments, as MLIR's lexer skips them.
inline size_t skipIRSpace(llvm::StringRef text, size_t at) {
  while (at < text.size()) {
    if (llvm::isSpace(text[at])) {
      ++at;
    } else if (text.substr(at).starts_with("//")) {
      size_t end = text.find('\n', at);
      at = end == llvm::StringRef::npos ? text.size() : end;
    } else {
      break;
    }
  }
  return at;
}

/// Whether `text` at `at` holds `[v, v, ...]` (or `[]`) whose values are
/// int64 integers, as DenseI64ArrayAttr::parse reads it without failing.
inline bool isI64List(llvm::StringRef text, size_t at) {
  at = skipIRSpace(text, at);
  if (at >= text.size() || text[at] != '[')
    return false;
  at = skipIRSpace(text, at + 1);
  if (at < text.size() && text[at] == ']')
    return true;
  while (true) {
    size_t begin = at;
    if (at < text.size() && text[at] == '-')
      ++at;
    while (at < text.size() && llvm::isAlnum(text[at]))
      ++at;
    int64_t value;
    if (text.slice(begin, at).getAsInteger(0, value))
      return false;
    at = skipIRSpace(text, at);
    if (at >= text.size())
      return false;
    if (text[at] == ']')
      return true;
    if (text[at] != ',')
      return false;
    at = skipIRSpace(text, at + 1);
  }
}

} // namespace detail

/// The first place in `text` (outside string literals and `//` comments)
/// that MLIR 22's parser is known to crash on; std::nullopt when none.
inline std::optional<ParserCrash> findKnownParserCrash(llvm::StringRef text) {
  using detail::isIRIdentifierChar;
  unsigned line = 1;
  size_t lineStart = 0;
  // The last character outside white space, comments and strings: `{` or
  // `,` before a name means an attribute dictionary's entry.
  char lastSignificant = 0;
  auto crashAt = [&](size_t i, std::string what) {
    return ParserCrash{line, static_cast<unsigned>(i - lineStart + 1),
                       std::move(what)};
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
      continue;
    }
    if (llvm::isSpace(c))
      continue;
    if (c == '"') { // A string literal, with its escapes.
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i < text.size() && text[i] == '\n')
        --i; // The newline is counted above.
      lastSignificant = '"';
      continue;
    }
    if (c == '/' && text.substr(i).starts_with("//")) {
      size_t end = text.find('\n', i);
      i = (end == llvm::StringRef::npos ? text.size() : end) - 1;
      continue;
    }
    if (!isIRIdentifierChar(c) || (i > 0 && isIRIdentifierChar(text[i - 1]))) {
      lastSignificant = c;
      continue;
    }
    // A bare identifier (or number) starts here.
    size_t end = i;
    while (end < text.size() && isIRIdentifierChar(text[end]))
      ++end;
    llvm::StringRef word = text.slice(i, end);
    char before = lastSignificant;
    lastSignificant = text[end - 1];
    if (word == "array") {
      size_t at = end;
      while (at < text.size() && llvm::isSpace(text[at]))
        ++at;
      if (at >= text.size() || text[at] != '<')
        continue;
      for (++at; at < text.size() && llvm::isSpace(text[at]);)
        ++at;
      llvm::StringRef element = text.substr(at);
      if (element.starts_with("index") &&
          (element.size() == 5 || !isIRIdentifierChar(element[5])))
        return crashAt(i, "array<index: ...> is not a dense array int21 can "
                          "read (dense arrays hold integers or floats; MLIR "
                          "22's parser crashes on index)");
      continue;
    }
    if ((word == "dimensions" || word == "permutation") && before != '{' &&
        before != ',' && before != '%' && before != '@' && before != '#' &&
        before != '^' && before != '!') {
      size_t at = detail::skipIRSpace(text, end);
      if (at < text.size() && text[at] == '=' &&
          !detail::isI64List(text, at + 1))
        return crashAt(i, (word + " = must be followed by a list of int64 "
                                  "values such as [0, 1] (MLIR 22's parser "
                                  "of linalg.reduce, linalg.broadcast and "
                                  "linalg.transpose crashes on anything "
                                  "else)")
                              .str());
    }
    i = end - 1;
  }
  return std::nullopt;
}

} // namespace int21

#endif // INT21_SUPPORT_PARSERGUARD_H

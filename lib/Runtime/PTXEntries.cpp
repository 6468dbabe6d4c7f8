//===- PTXEntries.cpp - what a PTX text says about its kernels ------------===//
//
// Just enough of PTX to check a plan against its code: the `.entry`
// directives with the sizes of their parameters, and the `.target`.
//
//===----------------------------------------------------------------------===//

#include "int21/Runtime/GPUPlan.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace llvm;
using namespace int21::runtime;

/// The size in bytes of one `.param` declaration ("param .u64 .ptr .align 1
/// name", ".param .align 8 .b8 name[16]"), or 0 when it cannot be read.
static unsigned paramSize(StringRef decl) {
  SmallVector<StringRef> words;
  decl.split(words, ' ', -1, /*KeepEmpty=*/false);
  unsigned element = 0;
  for (StringRef word : words) {
    if (word.size() < 3 || word[0] != '.')
      continue;
    char c = word[1];
    unsigned bits;
    if ((c == 'u' || c == 's' || c == 'b' || c == 'f') &&
        !word.drop_front(2).getAsInteger(10, bits))
      element = bits / 8;
  }
  if (!element)
    return 0;
  StringRef last = words.empty() ? StringRef() : words.back();
  size_t open = last.find('[');
  if (open == StringRef::npos)
    return element;
  unsigned count;
  if (last.drop_front(open + 1)
          .take_until([](char c) { return c == ']'; })
          .getAsInteger(10, count))
    return 0;
  return element * count;
}

std::vector<PTXEntry> int21::runtime::listPTXEntries(StringRef ptx) {
  std::vector<PTXEntry> entries;
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != StringRef::npos) {
    StringRef rest = ptx.drop_front(pos + 6);
    pos += 6;
    if (rest.empty() || !isSpace(rest.front()))
      continue;
    rest = rest.ltrim();
    StringRef name = rest.take_while(
        [](char c) { return isAlnum(c) || c == '_' || c == '$' || c == '.'; });
    if (name.empty())
      continue;
    PTXEntry entry;
    entry.name = name.str();
    rest = rest.drop_front(name.size()).ltrim();
    if (rest.consume_front("(")) {
      StringRef params = rest.take_until([](char c) { return c == ')'; });
      SmallVector<StringRef> decls;
      params.split(decls, ',', -1, /*KeepEmpty=*/false);
      for (StringRef decl : decls) {
        std::string flat = decl.trim().str();
        std::replace_if(flat.begin(), flat.end(), isSpace, ' ');
        if (!flat.empty())
          entry.paramSizes.push_back(paramSize(flat));
      }
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string int21::runtime::ptxTarget(StringRef ptx) {
  size_t pos = ptx.find(".target");
  if (pos == StringRef::npos)
    return "";
  StringRef rest = ptx.drop_front(pos + 7).ltrim();
  return rest.take_while([](char c) { return isAlnum(c) || c == '_'; }).str();
}

//===- EngineSupport.h - the support code linked into every CPU engine ----===//
//
// lib/Runtime/EngineSupport.c (the engines' allocator) is compiled when int21
// is built, with the C compiler int21 is built with, and its object is kept
// here as bytes: the compiler links it into every CPU engine without a C
// compiler of its own.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_RUNTIME_ENGINESUPPORT_H
#define INT21_RUNTIME_ENGINESUPPORT_H

#include "llvm/ADT/StringRef.h"

namespace int21::runtime {

/// The support code as a relocatable, position-independent ELF object for the
/// machine int21 was built for. The bytes live as long as the program.
llvm::StringRef engineSupportObject();

} // namespace int21::runtime

#endif // INT21_RUNTIME_ENGINESUPPORT_H

//===- EngineSupport.cpp - the engine support object, embedded ------------===//

#include "int21/Runtime/EngineSupport.h"

/// EngineSupport.c's object, written out as bytes at build time
/// (EmbedBytes.cmake).
static constexpr unsigned char kEngineSupportObject[] = {
#include "EngineSupportObject.inc"
};

llvm::StringRef int21::runtime::engineSupportObject() {
  return llvm::StringRef(reinterpret_cast<const char *>(kEngineSupportObject),
                         sizeof(kEngineSupportObject));
}

//===- SanitizerLLVM.h - ASan builds of int21 against an uninstrumented LLVM -===//
//
// Force-included (-include) into every C++ file of an INT21_ENABLE_ASAN
// build. LLVM's BumpPtrAllocator poisons the rest of each slab and
// unpoisons what it hands out, when the code that instantiates it is built
// with AddressSanitizer (llvm/Support/Compiler.h). int21's instrumented
// code and Debian's uninstrumented libMLIR share allocators (an
// MLIRContext's StorageUniquer): a slab started by int21's instantiation is
// poisoned, and libMLIR's own allocations from it are never unpoisoned, so
// every later write to them is reported (use-after-poison, a false
// positive). int21 therefore leaves LLVM's containers unpoisoned, as the
// libraries it links do; its own heap, stack and globals stay checked.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_SUPPORT_SANITIZERLLVM_H
#define INT21_SUPPORT_SANITIZERLLVM_H

#if defined(__has_include)
#if __has_include(<sanitizer/asan_interface.h>)
// Declared first, so that the macros below only change the uses.
#include <sanitizer/asan_interface.h>
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))
#endif
#endif

#endif // INT21_SUPPORT_SANITIZERLLVM_H

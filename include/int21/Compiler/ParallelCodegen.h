//===- ParallelCodegen.h - LLVM on an engine's kernels, in parallel --------===//
//
// int21-outline-kernels makes every kernel of an engine a function of its
// own (`int21_kernel_<hash>`). Here the translated LLVM module is split into
// parts, one per kernel and one with the rest (the entry point and @main),
// and each part is optimised and compiled to object code on its own, on a
// thread pool, each in its own LLVMContext, with an object cache in front.
// The parts, their symbol names and their order depend only on the module,
// so an engine is the same bytes whether its objects came from the cache or
// not.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_COMPILER_PARALLELCODEGEN_H
#define INT21_COMPILER_PARALLELCODEGEN_H

#include "int21/Compiler/ObjectCache.h"

#include "mlir/Support/Timing.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>
#include <vector>

namespace int21 {

/// What decides the machine code LLVM makes of some LLVM IR.
struct CodegenTarget {
  std::string triple;
  std::string cpu;
  std::string features;
  /// LLVM optimisation level (0-3), for the IR passes and code generation.
  unsigned optLevel = 3;
};

/// A target machine for `target` (position-independent code), or null with
/// the reason in `error`. Safe to call from several threads.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const CodegenTarget &target, std::string &error);

/// Gives the kernel functions (`int21_kernel_*`) of a translated module the
/// linkage the split needs: external, hidden (one engine's kernels are not
/// exported, calls to them are direct) and never inlined (their code stays
/// in their own part).
void markKernels(llvm::Module &module);

struct CodegenOptions {
  CodegenTarget target;
  /// Threads the parts are compiled on; 0: one per core of the machine.
  unsigned threads = 0;
  /// Where objects are looked up and stored, when given.
  const ObjectCache *cache = nullptr;
  /// Where the split and the compilation report their time, when given;
  /// the latter's name says how many parts the cache held.
  mlir::TimingScope *timing = nullptr;
};

struct CodegenResult {
  /// The object files, in link order: the rest first, then the kernels in
  /// the module's order.
  std::vector<std::string> objects;
  /// Parts compiled, and of those how many came from the cache.
  unsigned parts = 0;
  unsigned cached = 0;
};

/// Splits `module` (translated, not yet optimised, with the target's data
/// layout and triple; markKernels applied) into parts and compiles them.
/// A kernel that uses a mutable internal global stays in the rest's part.
/// The module is left as it was.
llvm::Expected<CodegenResult> compileInParts(const llvm::Module &module,
                                             const CodegenOptions &options);

} // namespace int21

#endif // INT21_COMPILER_PARALLELCODEGEN_H

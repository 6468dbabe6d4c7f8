//===- Compiler.h - from an imported model to an engine -------------------===//
//
// The steps after import, shared by int21-compile, the Python package and the
// search: lower an int21 module to the LLVM dialect (int21-to-linalg, then
// int21-cpu-codegen), translate it to LLVM IR, emit object code for the CPU,
// link it into a shared object and write the engine file.
//
// Errors are reported through the module's MLIR diagnostics (the caller's
// handler prints them) and returned as failure().
//
//===----------------------------------------------------------------------===//

#ifndef INT21_COMPILER_COMPILER_H
#define INT21_COMPILER_COMPILER_H

#include "int21/Compiler/Target.h"
#include "int21/Runtime/EngineFile.h"
#include "int21/Transforms/Schedule.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <optional>
#include <string>

namespace int21 {

struct CompileOptions {
  /// Where the engine runs (this machine's CPU by default).
  Target target;
  /// Apply the default CPU schedule (tiles, threads, vectors); without it,
  /// the reference lowering: plain loops, one thread.
  bool schedule = true;
  /// Knob values over the default schedule's, TEMPLATE.NAME=VALUE,... (the
  /// `knobs` option of int21-cpu-schedule).
  std::string knobs;
  /// A fusion group whose `#int21.schedule` does not apply is an error
  /// instead of falling back to the default schedule (the search relies on
  /// it: a candidate must be what it says).
  bool strictSchedules = false;
  /// For a CPU target: schedule with the GPU templates of this chip (sm_80,
  /// sm_90) instead of the CPU ones, shared memory as plain buffers: the
  /// CPU-side check of the GPU schedules. None: the CPU schedules.
  std::optional<Target> gpuSchedules;
  /// LLVM optimisation level for the generated code (0-3).
  unsigned optLevel = 3;
  /// Threads LLVM compiles the engine's kernels on (each kernel is compiled
  /// on its own); 0: one per core of the machine.
  unsigned codegenThreads = 0;
  /// Look up and store the object code of every kernel in the object cache
  /// (see ObjectCache.h), so that a kernel compiled before, in this model or
  /// another, skips LLVM.
  bool objectCache = true;
  /// The object cache's directory; empty: ObjectCache::defaultDirectory()
  /// ($INT21_OBJECT_CACHE, "off" for none, else beside the knowledge base).
  std::string objectCacheDir;
  /// Where the phases report their time, when given.
  mlir::TimingScope *timing = nullptr;
};

/// Registers every dialect, interface and translation the compiler uses
/// (bufferization and tiling interfaces included) with `registry`.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// The compiler's version, recorded in every engine.
llvm::StringRef compilerVersion();

/// The engine dtype of an element type (signless integers are signed), or
/// std::nullopt for a type engines cannot hold.
std::optional<runtime::DType> engineDType(mlir::Type element);

/// Appends the data of a weight, the `int21.weight` value of one of @main's
/// arguments, to an engine's weights section (64-byte aligned) and lists it
/// in `meta` under its resource name (else weight_K). Returns its size in
/// bytes, or fails with an error on `at` when the value holds no data.
mlir::FailureOr<uint64_t> appendWeight(mlir::Operation *at,
                                       mlir::Attribute value,
                                       runtime::EngineMetadata &meta,
                                       std::string &weights);

/// The inputs and outputs of `module`'s @main as an engine records them.
mlir::FailureOr<runtime::EngineMetadata> describeEntry(mlir::ModuleOp module);

/// The vector registers of a CPU target, which the default CPU schedules
/// size their register tiles by (see schedule::VectorModel): on x86, 32 of
/// 512 bits with AVX-512, 16 of 256 with AVX, 16 of 128 without; on
/// AArch64, 32 of 128. The reference model for any other target.
schedule::VectorModel vectorModelFor(const Target &target);
/// Writes the vector registers of a CPU `target` on `module` for the
/// schedules, unless the module names its own (nothing for a GPU).
void annotateVectorModel(mlir::ModuleOp module, const Target &target);

/// Lowers an imported int21 `module`, in place, to the LLVM dialect. A module
/// already lowered to linalg (int21-to-linalg's output: linalg on tensors,
/// fusion groups allowed) starts at the CPU code generation.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module,
                                       const CompileOptions &options);

/// Lowers an imported int21 `module`, in place, for the GPU `options.target`
/// up to the host form the GPU engine's plan is read from: `func.func @main`
/// with bare memref arguments in the CPU engine's order (inputs, weights,
/// outputs, then one `memref<Nxi8>` workspace when there are temporaries),
/// whose body holds only arith.constant, static views of the arguments,
/// gpu.launch_func with constant grid and block sizes and memref.copy; the
/// kernels are in one gpu.module, still in the GPU dialect (see
/// lowerKernelsToPTX).
mlir::LogicalResult lowerToGPUHost(mlir::ModuleOp module,
                                   const CompileOptions &options);

/// Lowers the kernels of a module in host form (lowerToGPUHost) to PTX for
/// `chip`, in place (the gpu.module becomes a gpu.binary), and returns the
/// PTX: one module, one .entry per kernel.
mlir::FailureOr<std::string> lowerKernelsToPTX(mlir::ModuleOp module,
                                               llvm::StringRef chip);

/// Translates a module lowered by lowerToLLVMDialect to optimised LLVM IR
/// for the target. The weights are taken out of the module into `weights`
/// (64-byte aligned) and listed in `metadata`.
std::unique_ptr<llvm::Module>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &llvmContext,
                  const CompileOptions &options,
                  runtime::EngineMetadata &metadata, std::string &weights);

/// A CPU engine's pieces: its metadata, its code (a shared object) and its
/// weights section.
struct EngineCode {
  runtime::EngineMetadata metadata;
  std::string library;
  std::string weights;
};

/// Compiles an imported int21 `module` (changed in place) into the pieces of
/// a CPU engine.
mlir::FailureOr<EngineCode> compileToCode(mlir::ModuleOp module,
                                          const CompileOptions &options);

/// Writes the engine of `generic`'s code with the code of `specialized`, the
/// same model compiled for static input shapes, as its specialisations
/// (runtime::EngineSpecialization): one weights section holding each
/// distinct weight once.
void writeEngine(const EngineCode &generic,
                 llvm::ArrayRef<EngineCode> specialized,
                 llvm::raw_ostream &os);

/// Compiles an imported int21 `module` (changed in place) into an engine
/// written to `os`.
mlir::LogicalResult compileToEngine(mlir::ModuleOp module,
                                    const CompileOptions &options,
                                    llvm::raw_ostream &os);

} // namespace int21

#endif // INT21_COMPILER_COMPILER_H

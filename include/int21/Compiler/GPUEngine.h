//===- GPUEngine.h - GPU engines from a lowered host module ---------------===//
//
// The GPU compile path leaves the host side of a model in one form: a
// `func.func @main` whose bare memref arguments are the engine's inputs,
// weights (`int21.weight`), outputs and workspace (`int21.workspace`, last),
// with a body of constants, static views of those arguments,
// `gpu.launch_func` with constant sizes, `memref.copy` between views and the
// return; the kernels are in `gpu.binary` ops holding PTX for an NVVM target.
// From that form, buildGPUPlan extracts the engine's plan (GPUPlan.h), its
// PTX and its weights; writeGPUEngine writes the `.int21` file.
//
// Errors are MLIR diagnostics on the offending op (the caller's handler
// prints them), and failure().
//
//===----------------------------------------------------------------------===//

#ifndef INT21_COMPILER_GPUENGINE_H
#define INT21_COMPILER_GPUENGINE_H

#include "int21/Compiler/Compiler.h"
#include "int21/Runtime/EngineFile.h"
#include "int21/Runtime/GPUPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace int21 {

/// The PTX text of one gpu.binary (a plan module of the same name).
struct GPUModuleCode {
  std::string module;
  std::string ptx;
};

/// What an engine needs besides its metadata.
struct GPUEngineParts {
  runtime::GPUPlan plan;
  std::vector<GPUModuleCode> code;
  /// The weights section: every weight 64-byte aligned, as in CPU engines.
  std::string weights;
};

/// Extracts the plan, the PTX and the weights from a host-form `module`.
/// `meta` gives the target chip and the inputs and outputs as the model
/// describes them (describeEntry); it receives the weights and the workspace
/// size. Where `meta` has no inputs and outputs, they come from @main:
/// arguments marked `int21.output` are outputs, the other non-weight ones
/// inputs, named by their `onnx.name` (else input_K, output_K). Where it has
/// no target, the chip of the first gpu.binary object is taken.
mlir::FailureOr<GPUEngineParts> buildGPUPlan(mlir::ModuleOp module,
                                             runtime::EngineMetadata &meta);

/// Assembles PTX for a chip into a cubin (ptxas), or fails with a message.
using AssemblePTXFn = llvm::function_ref<mlir::FailureOr<std::string>(
    llvm::StringRef ptx, llvm::StringRef chip, std::string &error)>;

/// Writes the GPU engine of a host-form `module` to `os`: metadata, the PTX
/// of each module ("<module>.ptx"), the cubins `assemble` makes when given
/// ("<module>.<chip>.cubin"; a failure to assemble is an error), the plan
/// ("gpu.plan") and the weights.
mlir::LogicalResult writeGPUEngine(mlir::ModuleOp module,
                                   runtime::EngineMetadata meta,
                                   llvm::raw_ostream &os,
                                   AssemblePTXFn assemble = nullptr);

/// Lowers `module`, in place, to host form for the chip `options.target`
/// (lowerToGPUHost) unless it is in host form already (gpu.module or
/// gpu.binary ops), and returns the engine's metadata: the target and, for
/// an imported model, its inputs and outputs (describeEntry).
mlir::FailureOr<runtime::EngineMetadata>
lowerToGPUHostForm(mlir::ModuleOp module, const CompileOptions &options);

/// Compiles `module` (changed in place) into a GPU engine for the chip
/// `options.target`, written to `os`: an imported int21 module is lowered
/// to host form (lowerToGPUHost), one already in host form (gpu.module or
/// gpu.binary ops) is taken as it is; its kernels become PTX and, where
/// ptxas is found, the chip's cubin.
mlir::LogicalResult compileToGPUEngine(mlir::ModuleOp module,
                                       const CompileOptions &options,
                                       llvm::raw_ostream &os);

} // namespace int21

#endif // INT21_COMPILER_GPUENGINE_H

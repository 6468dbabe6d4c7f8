//===- Passes.h - int21 transformation passes -----------------------------===//

#ifndef INT21_TRANSFORMS_PASSES_H
#define INT21_TRANSFORMS_PASSES_H

#include "int21/Dialect/Int21/Int21Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace int21 {

#define GEN_PASS_DECL
#include "int21/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "int21/Transforms/Passes.h.inc"

/// The default path from imported int21 to linalg on tensors: canonicalise
/// (folding shape arithmetic), form fusion groups, lower to linalg.
/// `forGPU`: convolutions keep the named form the GPU templates schedule
/// (see int21-lower-to-linalg's filter-lanes option).
void buildInt21ToLinalgPipeline(OpPassManager &pm, bool forGPU = false);

/// The bytes of a constant as they lie in memory once bufferized (row-major,
/// one byte per i1), or std::nullopt when the attribute holds no data (a
/// `dense_resource` imported without its weights) or an element type without
/// a byte size.
std::optional<std::vector<char>> getConstantBytes(ElementsAttr value);

/// From linalg on tensors (int21-to-linalg's output) to the LLVM dialect:
/// weights outlined, fusion groups scheduled (`schedule`) and inlined, one-shot
/// bufferization with outputs as out-parameters, scf.forall on OpenMP, and
/// the engine entry point `int21_entry`.
/// With `gpuSchedules`, the groups are scheduled by int21-gpu-schedule with
/// those options instead (the CPU-side check of the GPU schedules).
void buildInt21CPUCodegenPipeline(
    OpPassManager &pm, bool schedule = true,
    const Int21CPUScheduleOptions &scheduleOptions = {},
    const Int21GPUScheduleOptions *gpuSchedules = nullptr);

/// The GPU counterpart of buildInt21CPUCodegenPipeline, up to the host form
/// that the GPU engine's plan is read from: weights outlined (every non-splat
/// constant), groups scheduled with the GPU templates (`schedule`), one-shot
/// bufferization with outputs as out-parameters and one workspace, block
/// loops mapped to gpu.launch and outlined into one gpu.module. The kernels
/// stay in the GPU dialect (see buildInt21GPUKernelLoweringPipeline).
void buildInt21GPUHostPipeline(OpPassManager &pm, bool schedule = true,
                               const Int21GPUScheduleOptions &options = {});

/// Lowers the outlined kernels to NVVM for `chip` (bare-pointer memref
/// arguments) and serializes them to PTX (gpu-module-to-binary,
/// format=isa): one gpu.binary holding every kernel.
void buildInt21GPUKernelLoweringPipeline(OpPassManager &pm, StringRef chip);

/// libdevice.10.bc of the CUDA toolkit ($INT21_CUDA_PATH, the one of
/// $INT21_PTXAS or of ptxas on PATH, /usr/local/cuda), or "" when none.
std::string findLibdevice();

/// The PTX ISA version feature used for `chip` (accepted by the ptxas of
/// CUDA 12.0 and later for sm_80 and sm_90).
StringRef getPTXFeatures(StringRef chip);

/// Decomposes every op in `scope` implementing linalg's
/// AggregatedOpInterface (linalg.softmax) into the ops it is made of; an op
/// that cannot be decomposed is reported and left, and the result is failure.
LogicalResult decomposeAggregateOps(Operation *scope);

/// Replaces transposes, reshapes and copies of constants by constants (the
/// first step of int21-outline-weights): weights are laid out at compile
/// time, not at every run.
void foldConstantDataMovement(func::FuncOp func);

/// Registers the pipelines above with the pass registry (as
/// `int21-to-linalg`) so that int21-opt can run them.
void registerInt21Pipelines();

} // namespace int21

#endif // INT21_TRANSFORMS_PASSES_H

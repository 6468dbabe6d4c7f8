//===- Pipelines.cpp - the named int21 pass pipelines ---------------------===//

#include "int21/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;

/// The scheduled fusion groups inlined, then bufferized with every result
/// written into a caller-provided output (static buffers hoisted), as CPU
/// and GPU engines both take their arguments.
static void addInlineAndBufferize(OpPassManager &pm) {
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(int21::createInt21InlineFusionGroups());
    func.addPass(int21::createInt21DecomposeAggregates());
    func.addPass(createCanonicalizerPass());
  }
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A loop (ONNX Loop and Scan) may carry a value its body computes afresh
  // each iteration; the deallocation pipeline frees the one it replaces.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
}

void int21::buildInt21ToLinalgPipeline(OpPassManager &pm, bool forGPU) {
  pm.addPass(createCanonicalizerPass());
  OpPassManager &func = pm.nest<func::FuncOp>();
  func.addPass(createInt21FormFusionGroups());
  Int21LowerToLinalgOptions lowering;
  lowering.filterLanes = !forGPU;
  func.addPass(createInt21LowerToLinalg(lowering));
  func.addPass(createCSEPass());
}

void int21::buildInt21CPUCodegenPipeline(
    OpPassManager &pm, bool schedule,
    const Int21CPUScheduleOptions &scheduleOptions,
    const Int21GPUScheduleOptions *gpuSchedules) {
  // Tensors: weights become arguments, the signature signless, every group
  // gets its default CPU schedule (tiles, threads, vectors).
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(createInt21OutlineWeights());
    func.addPass(createInt21SignlessSignature());
  }
  if (schedule && gpuSchedules)
    pm.addPass(createInt21GPUSchedule(*gpuSchedules));
  else if (schedule)
    pm.addPass(createInt21CPUSchedule(scheduleOptions));
  // Buffers: results written into caller-provided outputs, temporaries freed.
  addInlineAndBufferize(pm);
  pm.addNestedPass<func::FuncOp>(createInt21PlanWorkspace());
  pm.addPass(createInt21DynamicSignature());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createInt21InlineDeallocHelpers());

  // Loops: scf.forall runs on OpenMP threads, the rest sequentially.
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(createInt21DetachEmptyArguments());
    // The CPU-side check of the GPU schedules runs the GPU engine's copy
    // kernels too (as OpenMP loops), so their indexing is checked here.
    if (gpuSchedules)
      func.addPass(createInt21GPUExpandHostCopies());
    func.addPass(createInt21ExpandStridedCopies());
    func.addPass(createInt21DynamicExpandViews());
  }
  // Kernels: every loop nest a function of its own, for LLVM to compile
  // apart (in parallel, and cached: see lib/Compiler/ObjectCache.cpp).
  pm.addPass(createInt21OutlineKernels());
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(createForallToParallelLoopPass());
    func.addPass(createConvertLinalgToLoopsPass());
    func.addPass(vector::createLowerVectorMultiReductionPass());
    VectorTransferToSCFOptions transfers;
    transfers.enableFullUnroll(true);
    func.addPass(createConvertVectorToSCFPass(transfers));
  }
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToOpenMPPass());

  // exp, erf and tanh as vectorizable polynomials rather than one libm call
  // per element.
  pm.addNestedPass<func::FuncOp>(createInt21ApproximateMath());
  // LLVM: math first (libm calls unroll vector math into vector ops), scf
  // after memref (the alloca scopes scf-to-openmp makes must stay single
  // block until then), functions with bare pointers before OpenMP (whose
  // conversion would otherwise convert them itself), one entry point.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  // Temporaries go through the engine's own caching allocator
  // (lib/Runtime/EngineSupport.c), not malloc.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createInt21CPUEntryPoint());
}

StringRef int21::getPTXFeatures(StringRef chip) {
  // PTX ISA 8.0 (CUDA 12.0) covers sm_80 and sm_90.
  (void)chip;
  return "+ptx80";
}

std::string int21::findLibdevice() {
  SmallVector<std::string> roots;
  if (const char *env = std::getenv("INT21_CUDA_PATH"))
    roots.push_back(env);
  if (const char *env = std::getenv("INT21_PTXAS"))
    roots.push_back(llvm::sys::path::parent_path(
                        llvm::sys::path::parent_path(env))
                        .str());
  if (llvm::ErrorOr<std::string> ptxas = llvm::sys::findProgramByName("ptxas"))
    roots.push_back(llvm::sys::path::parent_path(
                        llvm::sys::path::parent_path(*ptxas))
                        .str());
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    SmallString<256> path(root);
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(path))
      return path.str().str();
  }
  return "";
}

void int21::buildInt21GPUHostPipeline(
    OpPassManager &pm, bool schedule,
    const Int21GPUScheduleOptions &scheduleOptions) {
  // Tensors: every non-splat constant becomes a weight (a constant the host
  // keeps would be host memory that kernels cannot read).
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    Int21OutlineWeightsOptions weights;
    weights.minElements = 1;
    func.addPass(createInt21OutlineWeights(weights));
    func.addPass(createInt21SignlessSignature());
  }
  if (schedule)
    pm.addPass(createInt21GPUSchedule(scheduleOptions));
  // Buffers: as on the CPU (the same argument order and workspace), without
  // deallocation: a kernel's temporaries are shared or private memory.
  addInlineAndBufferize(pm);
  // Canonicalization may hoist a block's buffer out of a one-block loop:
  // the workspace takes it then.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createInt21PlanWorkspace());

  // Kernels: strided host copies become block loops too (the plan only
  // copies contiguous bytes); block loops to gpu.launch, outlined into one
  // gpu.module.
  pm.addNestedPass<func::FuncOp>(createInt21GPUExpandHostCopies());
  pm.addNestedPass<func::FuncOp>(createInt21GPUMapForall());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createInt21GPUMergeModules());
  pm.addPass(createCanonicalizerPass());
}

void int21::buildInt21GPUKernelLoweringPipeline(OpPassManager &pm,
                                                      StringRef chip) {
  GpuNVVMAttachTargetOptions target;
  target.chip = chip.str();
  target.features = getPTXFeatures(chip).str();
  target.optLevel = 3;
  // Math functions in kernels (expf, erff, ...) are libdevice calls.
  std::string libdevice = findLibdevice();
  if (!libdevice.empty())
    target.linkLibs.push_back(libdevice);
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertLinalgToLoopsPass());
  // The templates' vectors (copies, register tiles) as 1-D loads and
  // stores, for convert-gpu-to-nvvm to make LLVM vectors of.
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll(true);
  kernels.addPass(createConvertVectorToSCFPass(transfers));
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createInt21GPULowerVectorTransfers());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createInt21GPUAlignArguments());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

namespace {
struct GPUCodegenOptions : PassPipelineOptions<GPUCodegenOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("sm_80 or sm_90"),
                           llvm::cl::init("sm_90")};
  Option<bool> kernels{*this, "kernels",
                       llvm::cl::desc("Lower the kernels to PTX too"),
                       llvm::cl::init(true)};
};
} // namespace

void int21::registerInt21Pipelines() {
  PassPipelineRegistration<GPUCodegenOptions>(
      "int21-gpu-codegen",
      "Compile linalg on tensors (the output of int21-to-linalg) for an "
      "NVIDIA GPU: the GPU schedules, bufferization, kernels mapped and "
      "outlined into one gpu.module and (kernels=true) lowered to PTX; the "
      "host code stays on memrefs",
      [](OpPassManager &pm, const GPUCodegenOptions &options) {
        Int21GPUScheduleOptions schedule;
        schedule.chip = options.chip;
        buildInt21GPUHostPipeline(pm, /*schedule=*/true, schedule);
        if (options.kernels)
          buildInt21GPUKernelLoweringPipeline(pm, options.chip);
      });
  PassPipelineRegistration<>(
      "int21-to-linalg",
      "Canonicalise, form fusion groups and lower int21 to linalg on tensors",
      [](OpPassManager &pm) { buildInt21ToLinalgPipeline(pm); });
  PassPipelineRegistration<>(
      "int21-cpu-codegen",
      "Compile linalg on tensors (the output of int21-to-linalg) to the LLVM "
      "dialect with the engine entry point int21_entry",
      [](OpPassManager &pm) { buildInt21CPUCodegenPipeline(pm); });
}

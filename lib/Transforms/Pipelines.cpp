//===- Pipelines.cpp - the named int21 pass pipelines ---------------------===//

#include "int21/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
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

using namespace mlir;

void mlir::int21::buildInt21ToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  OpPassManager &func = pm.nest<func::FuncOp>();
  func.addPass(createInt21FormFusionGroups());
  func.addPass(createInt21LowerToLinalg());
  func.addPass(createCSEPass());
}

void mlir::int21::buildInt21CPUCodegenPipeline(
    OpPassManager &pm, bool schedule,
    const Int21CPUScheduleOptions &scheduleOptions) {
  // Tensors: weights become arguments, the signature signless, every group
  // gets its default CPU schedule (tiles, threads, vectors).
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(createInt21OutlineWeights());
    func.addPass(createInt21SignlessSignature());
  }
  if (schedule)
    pm.addPass(createInt21CPUSchedule(scheduleOptions));
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(createInt21InlineFusionGroups());
    func.addPass(createInt21DecomposeAggregates());
    func.addPass(createCanonicalizerPass());
  }

  // Buffers: results written into caller-provided outputs, temporaries freed.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addNestedPass<func::FuncOp>(createInt21PlanWorkspace());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Loops: scf.forall runs on OpenMP threads, the rest sequentially.
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(createInt21DetachEmptyArguments());
    func.addPass(createInt21ExpandStridedCopies());
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

  // LLVM: math first (libm calls unroll vector math into vector ops), scf
  // after memref (the alloca scopes scf-to-openmp makes must stay single
  // block until then), functions with bare pointers before OpenMP (whose
  // conversion would otherwise convert them itself), one entry point.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  // Temporaries go through the engine's own caching allocator
  // (lib/Compiler/EngineSupport.inc), not malloc.
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

void mlir::int21::registerInt21Pipelines() {
  PassPipelineRegistration<>(
      "int21-to-linalg",
      "Canonicalise, form fusion groups and lower int21 to linalg on tensors",
      buildInt21ToLinalgPipeline);
  PassPipelineRegistration<>(
      "int21-cpu-codegen",
      "Compile linalg on tensors (the output of int21-to-linalg) to the LLVM "
      "dialect with the engine entry point int21_entry",
      [](OpPassManager &pm) { buildInt21CPUCodegenPipeline(pm); });
}

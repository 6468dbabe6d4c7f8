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

void mlir::int21::buildInt21CPUCodegenPipeline(OpPassManager &pm) {
  // Tensors: weights become arguments, the signature signless.
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(createInt21OutlineWeights());
    func.addPass(createInt21SignlessSignature());
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
  bufferization::buildBufferDeallocationPipeline(pm);

  // Loops: scf.forall runs on OpenMP threads, the rest sequentially.
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(createInt21ExpandStridedCopies());
    func.addPass(createForallToParallelLoopPass());
  }
  pm.addPass(createConvertSCFToOpenMPPass());
  {
    OpPassManager &func = pm.nest<func::FuncOp>();
    func.addPass(createConvertLinalgToLoopsPass());
    func.addPass(vector::createLowerVectorMultiReductionPass());
    VectorTransferToSCFOptions transfers;
    transfers.enableFullUnroll(true);
    func.addPass(createConvertVectorToSCFPass(transfers));
  }
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());

  // LLVM: every dialect lowered, @main with bare pointers, one entry point.
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  // After the functions: this pass would otherwise convert them itself,
  // without the bare-pointer convention.
  pm.addPass(createConvertOpenMPToLLVMPass());
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
      buildInt21CPUCodegenPipeline);
}

//===- Pipelines.cpp - the named int21 pass pipelines ---------------------===//

#include "int21/Transforms/Passes.h"

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

void mlir::int21::registerInt21Pipelines() {
  PassPipelineRegistration<>(
      "int21-to-linalg",
      "Canonicalise, form fusion groups and lower int21 to linalg on tensors",
      buildInt21ToLinalgPipeline);
}

//===- int21-opt.cpp - mlir-opt with the int21 dialect and passes ---------===//

#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Transforms/Schedule.h"
#include "int21/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::int21::registerInt21Passes();
  mlir::int21::registerInt21Pipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary (int21-gpu-codegen) translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::int21::Int21Dialect>();
  // The schedule templates, their transform ops and their contract (which
  // checks every #int21.schedule).
  mlir::int21::schedule::registerScheduleDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "int21 optimizer driver\n", registry));
}

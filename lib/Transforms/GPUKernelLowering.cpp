//===- GPUKernelLowering.cpp - int21's steps of the kernel lowering ------===//

#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace int21 {
#define GEN_PASS_DEF_INT21GPUALIGNARGUMENTS
#define GEN_PASS_DEF_INT21GPULOWERVECTORTRANSFERS
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;

namespace {

/// What the runtime guarantees for every buffer a kernel receives (see the
/// pass description); 16 bytes is all a vector load of 4 x f32 needs.
constexpr int64_t kArgumentAlign = 16;

struct GPUAlignArgumentsPass
    : int21::impl::Int21GPUAlignArgumentsBase<GPUAlignArgumentsPass> {
  using Base::Base;

  void runOnOperation() override {
    Builder b(&getContext());
    StringRef alignName = LLVM::LLVMDialect::getAlignAttrName();
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (!func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()) &&
          !func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        continue;
      for (auto [i, type] :
           llvm::enumerate(func.getFunctionType().getParams()))
        if (isa<LLVM::LLVMPointerType>(type) && !func.getArgAttr(i, alignName))
          func.setArgAttr(i, alignName, b.getI64IntegerAttr(kArgumentAlign));
    }
  }
};

struct GPULowerVectorTransfersPass
    : int21::impl::Int21GPULowerVectorTransfersBase<
          GPULowerVectorTransfersPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

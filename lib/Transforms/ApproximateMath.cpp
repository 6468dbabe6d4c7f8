//===- ApproximateMath.cpp - vectorizable exp, erf and tanh ----------------===//
//
// int21-approximate-math: the transcendental functions transformer models
// spend their elementwise time in (softmax's exp, GELU's erf, tanh) become
// polynomial approximations built from arithmetic, which LLVM vectorizes,
// instead of one libm call per element.
//
//===----------------------------------------------------------------------===//

#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"

namespace int21 {
#define GEN_PASS_DEF_INT21APPROXIMATEMATH
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;

namespace {
struct ApproximateMathPass
    : int21::impl::Int21ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    auto approximated = [](StringRef name) {
      return llvm::StringSwitch<bool>(name)
          .Cases({math::ExpOp::getOperationName(),
                  math::ErfOp::getOperationName(),
                  math::TanhOp::getOperationName()},
                 true)
          .Default(false);
    };
    RewritePatternSet patterns(&getContext());
    // Narrower floats are computed in f32 first, then approximated.
    populateMathF32ExpansionPatterns(patterns, approximated);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    // bf16 conversions as integer arithmetic (round to nearest even): the
    // engine links no compiler runtime for __truncsfbf2.
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

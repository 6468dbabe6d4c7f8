//===- Passes.h - int21 transformation passes -----------------------------===//

#ifndef INT21_TRANSFORMS_PASSES_H
#define INT21_TRANSFORMS_PASSES_H

#include "int21/Dialect/Int21/Int21Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::int21 {

#define GEN_PASS_DECL
#include "int21/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "int21/Transforms/Passes.h.inc"

/// The default path from imported int21 to linalg on tensors: canonicalise
/// (folding shape arithmetic), form fusion groups, lower to linalg.
void buildInt21ToLinalgPipeline(OpPassManager &pm);

/// Registers the pipelines above with the pass registry (as
/// `int21-to-linalg`) so that int21-opt can run them.
void registerInt21Pipelines();

} // namespace mlir::int21

#endif // INT21_TRANSFORMS_PASSES_H

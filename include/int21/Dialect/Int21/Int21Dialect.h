//===- Int21Dialect.h - the int21 dialect, its attributes and traits ------===//

#ifndef INT21_DIALECT_INT21_INT21DIALECT_H
#define INT21_DIALECT_INT21_INT21DIALECT_H

#include "int21/Support/LLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "int21/Dialect/Int21/Int21OpsDialect.h.inc"

#include "int21/Dialect/Int21/Int21Enums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "int21/Dialect/Int21/Int21Attrs.h.inc"

namespace int21 {
/// On an argument of the imported @main: what the nodes that index with it
/// directly (Gather's indices) require of its values, a list of
/// {min, max, node}; it becomes the engine input's index bounds. On a result
/// of @main (after the outputs) it marks an index check: the least and the
/// greatest of indices a node computed in the graph, which the engine checks
/// after each run (EngineMetadata::checks).
constexpr llvm::StringLiteral kIndexBoundsAttr = "onnx.index_bounds";
/// On an argument of the imported @main with dynamic dimensions: the ONNX
/// dim_param of each dimension ("" where the model names none, or the extent
/// is static). Inputs sharing a name share the extent at run time.
constexpr llvm::StringLiteral kDimParamsAttr = "onnx.dim_params";
/// The engine's random number generator (lib/Runtime/EngineSupport.c), which
/// int21.random lowers to a call of: `(pointer, count, seed or -1, normal)`,
/// all i64, filling `count` f64 at `pointer`. The importer declares it.
constexpr llvm::StringLiteral kRandomFunction = "int21_random";
/// Where an output sized by the run goes (lib/Runtime/EngineSupport.c):
/// `(pointer, bytes)`, both i64, copies `bytes` from `pointer` into a fresh
/// 64-byte aligned buffer and returns its address (0 when out of memory),
/// which the engine's caller owns and frees (int21-dynamic-signature).
constexpr llvm::StringLiteral kOutputFunction = "int21_output";
} // namespace int21

namespace int21::OpTrait {
/// Marks ops computed independently per element of their (broadcast) result.
/// Operands may have fewer dimensions or dimensions of 1 that broadcast.
template <typename ConcreteType>
class ElementwiseBroadcastable
    : public mlir::OpTrait::TraitBase<ConcreteType, ElementwiseBroadcastable> {
};

/// Requires static shapes of every tensor operand and result: the ops whose
/// inference and lowering read extents as numbers (all but those declared
/// with Int21_DynamicOp).
template <typename ConcreteType>
class StaticShapes
    : public mlir::OpTrait::TraitBase<ConcreteType, StaticShapes> {
public:
  static llvm::LogicalResult verifyTrait(mlir::Operation *op) {
    auto check = [&](mlir::Type type, llvm::StringRef what,
                     unsigned i) -> llvm::LogicalResult {
      auto shaped = llvm::dyn_cast<mlir::RankedTensorType>(type);
      if (!shaped || shaped.hasStaticShape())
        return llvm::success();
      return op->emitOpError()
             << "takes static shapes only, but " << what << " #" << i
             << " is " << type;
    };
    for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
      if (mlir::failed(check(type, "operand", i)))
        return llvm::failure();
    for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
      if (mlir::failed(check(type, "result", i)))
        return llvm::failure();
    return llvm::success();
  }
};
} // namespace int21::OpTrait

#endif // INT21_DIALECT_INT21_INT21DIALECT_H

//===- Int21Dialect.h - the int21 dialect, its attributes and traits ------===//

#ifndef INT21_DIALECT_INT21_INT21DIALECT_H
#define INT21_DIALECT_INT21_INT21DIALECT_H

#include "int21/Support/LLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
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
} // namespace int21

namespace int21::OpTrait {
/// Marks ops computed independently per element of their (broadcast) result.
/// Operands may have fewer dimensions or dimensions of 1 that broadcast.
template <typename ConcreteType>
class ElementwiseBroadcastable
    : public mlir::OpTrait::TraitBase<ConcreteType, ElementwiseBroadcastable> {
};
} // namespace int21::OpTrait

#endif // INT21_DIALECT_INT21_INT21DIALECT_H

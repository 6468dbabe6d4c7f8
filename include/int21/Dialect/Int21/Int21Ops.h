//===- Int21Ops.h - the ops of the int21 dialect --------------------------===//

#ifndef INT21_DIALECT_INT21_INT21OPS_H
#define INT21_DIALECT_INT21_INT21OPS_H

#include "int21/Dialect/Int21/Int21Dialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace int21 {
/// Infers the result of an elementwise op whose operands broadcast with ONNX
/// (numpy) rules: the broadcast shape with element type `elementType`. Emits
/// an error naming `opName` at `location` when the shapes do not broadcast.
LogicalResult inferBroadcastReturnType(std::optional<Location> location,
                                       StringRef opName, ValueRange operands,
                                       Type elementType,
                                       SmallVectorImpl<Type> &inferred);

/// The ONNX broadcast of two shapes, or failure when a pair of dimensions is
/// neither equal nor 1.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs);
} // namespace int21

#define GET_OP_CLASSES
#include "int21/Dialect/Int21/Int21Ops.h.inc"

#endif // INT21_DIALECT_INT21_INT21OPS_H

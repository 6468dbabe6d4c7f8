//===- LowerToLinalg.h - shared pieces of int21 -> linalg lowering --------===//
//
// Internal to lib/Transforms. The lowering is split by op family; each file
// contributes its patterns through one populate function.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_LIB_TRANSFORMS_LOWERTOLINALG_H
#define INT21_LIB_TRANSFORMS_LOWERTOLINALG_H

#include "int21/Dialect/Int21/Int21Ops.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::int21::lowering {

/// `tensor.empty` of `type`.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);

/// A tensor of `type` filled with `value` (linalg.fill of tensor.empty).
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value);

/// The indexing map that reads an operand of shape `operand` for every point
/// of an iteration space of shape `result` under ONNX broadcasting: operand
/// dimensions align on the right, and a dimension of 1 that broadcasts reads
/// index 0.
AffineMap broadcastIndexingMap(MLIRContext *ctx, ArrayRef<int64_t> operand,
                               ArrayRef<int64_t> result);

/// `value` reshaped to `type` (same number of elements) with
/// tensor.collapse_shape / tensor.expand_shape.
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType type);

/// Whether `type` is an element type the lowering handles: floats and
/// signless integers; ops on unsigned integers are reported, not lowered.
bool isLowerableElementType(Type type);

/// Fails the match of `op`, saying why, when any of `types` has an element
/// type the lowering does not handle.
LogicalResult checkElementTypes(Operation *op, TypeRange types,
                                ConversionPatternRewriter &rewriter);

void populateElementwiseLoweringPatterns(RewritePatternSet &patterns);
void populateStructuredLoweringPatterns(RewritePatternSet &patterns);
void populateNNLoweringPatterns(RewritePatternSet &patterns);
void populateNormalizationLoweringPatterns(RewritePatternSet &patterns);
void populateDataMovementLoweringPatterns(RewritePatternSet &patterns);

} // namespace mlir::int21::lowering

#endif // INT21_LIB_TRANSFORMS_LOWERTOLINALG_H

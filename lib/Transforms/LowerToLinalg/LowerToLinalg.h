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
#include "mlir/IR/OpDefinition.h"
#include "mlir/Transforms/DialectConversion.h"

namespace int21::lowering {

/// `tensor.empty` of `type`, whose dynamic extents are `dynamicSizes` (one
/// `index` per dynamic dimension, in order).
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange dynamicSizes = {});

/// A tensor of `type` filled with `value` (linalg.fill of tensor.empty).
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value, ValueRange dynamicSizes = {});

/// Asserts (cf.assert) that the extent `actual` equals `expected`, which
/// the lowering assumed: a dynamic extent read as the extent it broadcasts
/// with, or the K of a product. int21-dynamic-signature moves the check into
/// the engine's shape function, which refuses the inputs with `what`.
void assertExtent(OpBuilder &b, Location loc, Value actual,
                  mlir::OpFoldResult expected, const Twine &what);

/// Asserts (cf.assert) that `holds` (an i1) is true; `what` says what the
/// lowering relies on. Like assertExtent's, the check runs before the run
/// when it depends on extents only.
void assertHolds(OpBuilder &b, Location loc, Value holds, const Twine &what);

/// The number of elements of a tensor like `value` (an `index`): its
/// static extents times its dynamic ones, which are `sizes` when given (one
/// per dynamic dimension) and `value`'s own otherwise.
Value elementCount(OpBuilder &b, Location loc, Value value,
                   ValueRange sizes = {});

/// `tensor.dim` of each dynamic dimension of `value` (whose type has the
/// extents of the tensor to create), in order.
SmallVector<Value> dynamicSizesOf(OpBuilder &b, Location loc, Value value);

/// The dynamic extents of `type`, the shape `inputs` broadcast to with ONNX
/// rules: each from the first input whose aligned dimension is dynamic too
/// (a dynamic extent broadcasts against 1 only, so any such input has it).
/// Empty for a static `type`.
SmallVector<Value> broadcastSizes(OpBuilder &b, Location loc,
                                  RankedTensorType type, ValueRange inputs);

/// The indexing map that reads an operand of shape `operand` for every point
/// of an iteration space of shape `result` under ONNX broadcasting: operand
/// dimensions align on the right, and a dimension of 1 that broadcasts reads
/// index 0.
AffineMap broadcastIndexingMap(MLIRContext *ctx, ArrayRef<int64_t> operand,
                               ArrayRef<int64_t> result);

/// A linalg.generic producing a fresh tensor of `type`, parallel in every
/// dimension: `inputs` are read through `maps` (one each), the output at the
/// identity, and `body` computes one element from the input elements.
Value parallelGeneric(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    ArrayRef<AffineMap> maps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body,
    ValueRange dynamicSizes = {});

/// parallelGeneric whose inputs broadcast to `type` with ONNX rules
/// (broadcastIndexingMap).
Value broadcastingGeneric(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// `index` (an integer of any width, or an index) as an `index` into a
/// dimension of `size`: negative values count from the end, and the result
/// is clamped into [0, size), so that whatever the input, it never reaches
/// outside the dimension (ONNX calls out-of-range indices an error).
Value normalizeIndex(OpBuilder &b, Location loc, Value index, int64_t size);

/// `value` reshaped to `type` (same number of elements) with
/// tensor.collapse_shape / tensor.expand_shape.
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType type);

/// `value` transposed by `perm` (linalg.transpose into a tensor.empty of
/// the permuted shape).
Value transposeTensor(OpBuilder &b, Location loc, Value value,
                      ArrayRef<int64_t> perm);

/// The panels of 16 columns of a constant [K, N] operand, [N/16, K, 16]
/// (folded into a constant by int21-outline-weights): a register tile of
/// the CPU's panel templates reads one as consecutive vectors. With
/// `transposed`, `matrix` is [N, K] and the panels are those of its
/// transpose.
Value columnPanels(OpBuilder &b, Location loc, Value matrix, bool transposed);

/// `lhs` [M, K] (read as [K, M] when `lhsTransposed`) times `panels` [N/16,
/// K, 16], accumulated into `init` [M, N/16, 16]: a float generic over
/// (m, nb, ni, k), the form @cpu.matmul_panels and
/// @cpu.matmul_panels_transposed schedule.
Value panelProduct(OpBuilder &b, Location loc, Value lhs, bool lhsTransposed,
                   Value panels, Value init);

/// Whether `type` is an element type the lowering handles: floats, signless
/// integers and unsigned integers (computed on as signless, see
/// `signlessType`); anything else, explicitly signed integers included, is
/// reported, not lowered.
bool isLowerableElementType(Type type);

/// Whether the element type of `type` (or `type` itself) is an unsigned
/// integer: the lowering then picks the unsigned arith ops.
bool isUnsignedElementType(Type type);

/// `type` with an unsigned integer element type (or an unsigned integer)
/// replaced by the signless integer of the same width, the type the lowered
/// code computes in; any other type unchanged.
Type signlessType(Type type);

/// Converts the tensors the int21 ops carry to the ones the lowered ops
/// compute on (unsigned elements become signless) and materializes the
/// boundaries in between as `tensor.bitcast`, so that function signatures
/// keep their unsigned types.
class SignlessTypeConverter : public TypeConverter {
public:
  SignlessTypeConverter();
};

/// Fails the match of `op`, saying why, when any of `types` has an element
/// type the lowering does not handle.
LogicalResult checkElementTypes(Operation *op, TypeRange types,
                                ConversionPatternRewriter &rewriter);

// Every pattern takes `converter`: its adaptor's operands and the result
// types it builds are the converted (signless) ones.
void populateElementwiseLoweringPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
/// `panels`: products with a constant right operand lay it out in panels of
/// 16 columns for the CPU's @cpu.matmul_panels (see Structured.cpp), else
/// linalg.matmul.
void populateStructuredLoweringPatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        bool panels = true);
/// `filterLanes`: one-group 2-D convolutions with a constant weight whose
/// filters fill whole vectors in the blocked form of the CPU's
/// @cpu.conv2d_filter_lanes (see NN.cpp), else the named convolution.
void populateNNLoweringPatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns,
                                bool filterLanes = true);
void populateNormalizationLoweringPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns);
void populateDataMovementLoweringPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns);
void populateIndexingLoweringPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns);
void populateResamplingLoweringPatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns);
void populateScanLoweringPatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns);
void populateDataDependentLoweringPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns);

} // namespace int21::lowering

#endif // INT21_LIB_TRANSFORMS_LOWERTOLINALG_H

//===- EntryPoint.cpp - prepare an entry function for an engine -----------===//
//
// Three small passes around bufferization that turn `@main` into what an
// engine runs: weights as arguments (int21-outline-weights), a signless
// signature (int21-signless-signature) and, in the LLVM dialect, one entry
// point with a fixed C signature (int21-cpu-entry-point).
//
//===----------------------------------------------------------------------===//

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/ADT/DenseMap.h"

namespace int21 {
#define GEN_PASS_DEF_INT21OUTLINEWEIGHTS
#define GEN_PASS_DEF_INT21DECOMPOSEAGGREGATES
#define GEN_PASS_DEF_INT21EXPANDSTRIDEDCOPIES
#define GEN_PASS_DEF_INT21SIGNLESSSIGNATURE
#define GEN_PASS_DEF_INT21PLANWORKSPACE
#define GEN_PASS_DEF_INT21DETACHEMPTYARGUMENTS
#define GEN_PASS_DEF_INT21INLINEDEALLOCHELPERS
#define GEN_PASS_DEF_INT21CPUENTRYPOINT
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;
using namespace int21;

std::optional<std::vector<char>> int21::getConstantBytes(ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  Type element = type.getElementType();
  if (!element.isIntOrFloat())
    return std::nullopt;
  unsigned bits = element.getIntOrFloatBitWidth();
  int64_t count = type.getNumElements();
  if (bits == 1) {
    auto dense = dyn_cast<DenseElementsAttr>(value);
    std::vector<char> out;
    if (dense) {
      out.reserve(count);
      for (bool b : dense.getValues<bool>())
        out.push_back(b ? 1 : 0);
      return out;
    }
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob || (int64_t)blob->getData().size() != count)
        return std::nullopt;
      ArrayRef<char> data = blob->getData();
      return std::vector<char>(data.begin(), data.end());
    }
    return std::nullopt;
  }
  if (bits % 8 != 0)
    return std::nullopt;
  size_t size = static_cast<size_t>(count) * (bits / 8);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != size)
      return std::nullopt;
    ArrayRef<char> data = blob->getData();
    return std::vector<char>(data.begin(), data.end());
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return std::nullopt;
  ArrayRef<char> raw = dense.getRawData();
  std::vector<char> out;
  out.reserve(size);
  if (dense.isSplat()) {
    for (int64_t i = 0; i < count; ++i)
      out.insert(out.end(), raw.begin(), raw.begin() + bits / 8);
  } else {
    if (raw.size() != size)
      return std::nullopt;
    out.assign(raw.begin(), raw.end());
  }
  return out;
}

LogicalResult int21::decomposeAggregateOps(Operation *scope) {
  SmallVector<linalg::AggregatedOpInterface> ops;
  scope->walk([&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
  IRRewriter rewriter(scope->getContext());
  bool failedAny = false;
  for (linalg::AggregatedOpInterface op : ops) {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> values = op.decomposeOperation(rewriter);
    if (failed(values) || values->size() != op->getNumResults()) {
      op->emitError("cannot decompose this op");
      failedAny = true;
      continue;
    }
    rewriter.replaceOp(op, *values);
  }
  return failure(failedAny);
}

namespace {
/// A new `dense_resource` of `type` holding `bytes`, named after `hint`.
ElementsAttr makeResource(ShapedType type, StringRef hint,
                          ArrayRef<char> bytes) {
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      bytes, alignof(uint64_t), /*dataIsMutable=*/false);
  return DenseResourceElementsAttr::get(type, hint, std::move(blob));
}

/// The name a constant's data goes by: its blob key or `fallback`.
std::string constantName(ElementsAttr value, StringRef fallback) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return resource.getRawHandle().getKey().str();
  return fallback.str();
}

/// Calls `visit(index, linear)` for every index of `shape` in row-major
/// order (`linear` counting them).
void forEachIndex(ArrayRef<int64_t> shape,
                  llvm::function_ref<void(ArrayRef<int64_t>, int64_t)> visit) {
  int64_t rank = shape.size(), total = 1;
  for (int64_t d : shape)
    total *= d;
  SmallVector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < total; ++linear) {
    visit(index, linear);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// Transposes `bytes` (of `inType`, elements of `elemSize` bytes) by `perm`.
std::vector<char> transposeBytes(ArrayRef<char> bytes, ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> perm, size_t elemSize) {
  int64_t rank = shape.size();
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * shape[d + 1];
  SmallVector<int64_t> outShape(rank);
  for (int64_t d = 0; d < rank; ++d)
    outShape[d] = shape[perm[d]];
  std::vector<char> out(bytes.size());
  forEachIndex(outShape, [&](ArrayRef<int64_t> index, int64_t linear) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src += index[d] * inStrides[perm[d]];
    std::memcpy(out.data() + linear * elemSize, bytes.data() + src * elemSize,
                elemSize);
  });
  return out;
}

/// The bytes of the constant `value` whose elements are `element`s of whole
/// bytes, with the size of one; none for other elements or where the data
/// is not available.
std::optional<std::pair<std::vector<char>, size_t>>
wholeByteElements(ElementsAttr value, Type element) {
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  std::optional<std::vector<char>> bytes = getConstantBytes(value);
  if (!bytes)
    return std::nullopt;
  return std::make_pair(std::move(*bytes),
                        size_t(element.getIntOrFloatBitWidth() / 8));
}

/// The constant `value` padded by `pad` (static sizes, a constant padding
/// value), or null.
ElementsAttr padBytes(tensor::PadOp pad, ElementsAttr value) {
  auto resultType = cast<ShapedType>(pad.getResult().getType());
  Type element = resultType.getElementType();
  Value padValue = pad.getConstantPaddingValue();
  Attribute padAttr;
  if (!resultType.hasStaticShape() || !padValue ||
      !matchPattern(padValue, m_Constant(&padAttr)))
    return {};
  APInt bits;
  if (auto f = dyn_cast<FloatAttr>(padAttr))
    bits = f.getValue().bitcastToAPInt();
  else if (auto i = dyn_cast<IntegerAttr>(padAttr))
    bits = i.getValue();
  else
    return {};
  auto data = wholeByteElements(value, element);
  if (!data)
    return {};
  auto &[bytes, elemSize] = *data;
  ArrayRef<int64_t> inShape = cast<ShapedType>(value.getType()).getShape(),
                    outShape = resultType.getShape();
  SmallVector<int64_t> low(pad.getStaticLow());
  if (llvm::any_of(low, ShapedType::isDynamic))
    return {};
  std::vector<char> out(resultType.getNumElements() * elemSize);
  // The padding value in every element (little-endian, as the host).
  std::vector<char> fill(elemSize);
  for (size_t b = 0; b < elemSize; ++b)
    fill[b] = static_cast<char>(bits.extractBitsAsZExtValue(8, 8 * b));
  for (size_t e = 0; e < out.size(); e += elemSize)
    std::memcpy(out.data() + e, fill.data(), elemSize);
  int64_t rank = inShape.size();
  forEachIndex(inShape, [&](ArrayRef<int64_t> index, int64_t linear) {
    int64_t dst = 0;
    for (int64_t d = 0; d < rank; ++d)
      dst = dst * outShape[d] + index[d] + low[d];
    std::memcpy(out.data() + dst * elemSize, bytes.data() + linear * elemSize,
                elemSize);
  });
  return makeResource(resultType, constantName(value, "constant") + ".pad",
                      out);
}

/// Whether `op` is a slice of static offsets, sizes and strides that keeps
/// the rank (a part of a weight: PyTorch's attention splits one projection
/// weight into q, k and v).
bool isStaticSlice(Operation *op) {
  auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(op);
  return slice && slice.getType().hasStaticShape() &&
         slice.getSourceType().getRank() == slice.getType().getRank() &&
         llvm::none_of(slice.getStaticOffsets(), ShapedType::isDynamic) &&
         llvm::none_of(slice.getStaticStrides(), ShapedType::isDynamic);
}

/// The constant `value` sliced by `slice` (isStaticSlice), or null.
ElementsAttr sliceBytes(tensor::ExtractSliceOp slice, ElementsAttr value) {
  auto resultType = cast<ShapedType>(slice.getType());
  auto data = wholeByteElements(value, resultType.getElementType());
  if (!data)
    return {};
  auto &[bytes, elemSize] = *data;
  ArrayRef<int64_t> inShape = cast<ShapedType>(value.getType()).getShape(),
                    outShape = resultType.getShape(),
                    offsets = slice.getStaticOffsets(),
                    strides = slice.getStaticStrides();
  int64_t rank = outShape.size();
  std::vector<char> out(resultType.getNumElements() * elemSize);
  forEachIndex(outShape, [&](ArrayRef<int64_t> index, int64_t linear) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src = src * inShape[d] + offsets[d] + index[d] * strides[d];
    std::memcpy(out.data() + linear * elemSize, bytes.data() + src * elemSize,
                elemSize);
  });
  return makeResource(resultType, constantName(value, "constant") + ".slice",
                      out);
}

/// The constant `value` seen through `op` (a transpose, reshape, static
/// slice, copy or constant padding of it), or null when `op` is none of
/// these or the data is not available.
ElementsAttr foldThrough(Operation *op, ElementsAttr value) {
  auto resultType = cast<ShapedType>(op->getResult(0).getType());
  if (isStaticSlice(op))
    return sliceBytes(cast<tensor::ExtractSliceOp>(op), value);
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
      return DenseResourceElementsAttr::get(resultType,
                                            resource.getRawHandle());
    if (auto dense = dyn_cast<DenseElementsAttr>(value))
      return dense.reshape(resultType);
    return {};
  }
  if (isa<linalg::CopyOp>(op))
    return value;
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return padBytes(pad, value);
  auto transpose = dyn_cast<linalg::TransposeOp>(op);
  if (!transpose)
    return {};
  auto data = wholeByteElements(value, resultType.getElementType());
  if (!data)
    return {};
  std::vector<char> out =
      transposeBytes(data->first, cast<ShapedType>(value.getType()).getShape(),
                     transpose.getPermutation(), data->second);
  return makeResource(resultType, constantName(value, "constant") + ".T", out);
}

} // namespace

void int21::foldConstantDataMovement(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  SmallVector<Operation *> candidates;
  func.walk([&](Operation *op) {
    if (isa<linalg::TransposeOp, linalg::CopyOp, tensor::PadOp>(op))
      candidates.push_back(op);
  });
  // Producers come before consumers in the walk, so chains fold in one go.
  // A reshape or a slice alone stays (a view of the constant, free at run
  // time): the constant keeps its place and its type, whatever pass reshapes
  // it and when, so that the weights are laid out alike whichever way the
  // module was scheduled; a data movement behind reshapes and slices folds
  // through them (the slice's part of the weight, laid out anew).
  auto isReshape = [](Operation *op) {
    return isa_and_present<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
               op) ||
           isStaticSlice(op);
  };
  for (Operation *op : candidates) {
    if (op->getNumResults() != 1 || op->getNumOperands() < 1)
      continue;
    SmallVector<Operation *> reshapes;
    Value source = op->getOperand(0);
    while (isReshape(source.getDefiningOp())) {
      reshapes.push_back(source.getDefiningOp());
      source = source.getDefiningOp()->getOperand(0);
    }
    auto constant = source.getDefiningOp<arith::ConstantOp>();
    if (!constant)
      continue;
    auto value = dyn_cast<ElementsAttr>(constant.getValue());
    for (Operation *reshape : llvm::reverse(reshapes))
      value = value ? foldThrough(reshape, value) : value;
    if (!value)
      continue;
    ElementsAttr folded = foldThrough(op, value);
    if (!folded)
      continue;
    rewriter.setInsertionPoint(op);
    auto replacement = arith::ConstantOp::create(
        rewriter, op->getLoc(), cast<TypedAttr>(folded));
    rewriter.replaceOp(op, replacement.getResult());
    for (Operation *reshape : reshapes)
      if (reshape->use_empty())
        rewriter.eraseOp(reshape);
    if (constant->use_empty())
      rewriter.eraseOp(constant);
  }
}

namespace {

struct OutlineWeightsPass
    : int21::impl::Int21OutlineWeightsBase<OutlineWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    foldConstantDataMovement(func);
    outline(func);
  }

  void outline(func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    auto readOnly = StringAttr::get(
        ctx, bufferization::BufferizationDialect::kWritableAttrName);
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      func.setArgAttr(i, readOnly, BoolAttr::get(ctx, false));

    SmallVector<arith::ConstantOp> constants;
    func.walk([&](arith::ConstantOp op) {
      auto type = dyn_cast<RankedTensorType>(op.getType());
      auto value = dyn_cast<ElementsAttr>(op.getValue());
      if (!type || !value || type.getNumElements() < minElements)
        return;
      if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat())
        return;
      constants.push_back(op);
    });
    // One argument per distinct value, in the order of their names (then
    // of their appearance): the weights are laid out alike whichever way the
    // module was lowered and scheduled (a knowledge base read before the
    // codegen pipeline folds and moves constants earlier than it does).
    llvm::stable_sort(constants, [](arith::ConstantOp a, arith::ConstantOp b) {
      return constantName(cast<ElementsAttr>(a.getValue()), "") <
             constantName(cast<ElementsAttr>(b.getValue()), "");
    });
    llvm::DenseMap<Attribute, BlockArgument> arguments;
    for (arith::ConstantOp op : constants) {
      Attribute value = op.getValue();
      auto [it, inserted] = arguments.try_emplace(value);
      if (inserted) {
        unsigned index = func.getNumArguments();
        NamedAttrList attrs;
        attrs.append("int21.weight", value);
        attrs.append(readOnly, BoolAttr::get(ctx, false));
        if (failed(func.insertArgument(index, op.getType(),
                                       attrs.getDictionary(ctx), op.getLoc()))) {
          op.emitError("cannot add a weight argument to ") << func.getName();
          return signalPassFailure();
        }
        it->second = func.getArgument(index);
      }
      op.getResult().replaceAllUsesWith(it->second);
      op.erase();
    }
  }
};

struct DecomposeAggregatesPass
    : int21::impl::Int21DecomposeAggregatesBase<DecomposeAggregatesPass> {
  void runOnOperation() override {
    if (failed(decomposeAggregateOps(getOperation())))
      signalPassFailure();
  }
};

/// `copy` as a loop nest over all dimensions but the innermost, each row
/// moved in vectors of 512 bits (a dynamic row's rest in one more: the
/// row's last whole vector, or a masked one where the row is shorter than a
/// vector; a static row's last one masked), or in one vector when the row
/// is short and static. Copies the rows of padded windows, concats
/// and slices at vector speed where a scalar loop moved one element a step.
/// Fails (nothing created) where a row is not contiguous on both sides or
/// the elements are not integers or floats of 8 bits or more.
static LogicalResult copyByRows(RewriterBase &rewriter, memref::CopyOp copy) {
  auto source = cast<MemRefType>(copy.getSource().getType());
  auto target = cast<MemRefType>(copy.getTarget().getType());
  Type element = source.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8 ||
      source.getRank() == 0 || !source.isLastDimUnitStride() ||
      !target.isLastDimUnitStride())
    return failure();
  Location loc = copy.getLoc();
  int64_t rank = source.getRank();
  constexpr int64_t kVectorBits = 512;
  int64_t lanes = std::max<int64_t>(kVectorBits / element.getIntOrFloatBitWidth(), 1);
  int64_t width = source.getShape().back();
  if (ShapedType::isDynamic(width))
    width = target.getShape().back();
  // A static row of up to four vectors moves in one (split by LLVM, the
  // tail masked by a constant); longer or dynamic rows in a loop.
  bool whole = !ShapedType::isDynamic(width) && width <= 4 * lanes;
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value padding = arith::ConstantOp::create(
      rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(element)));
  auto size = [&](int64_t d) {
    return getValueOrCreateConstantIndexOp(
        rewriter, loc, memref::getMixedSize(rewriter, loc, copy.getSource(), d));
  };
  SmallVector<Value> lower(rank - 1, zero), upper, steps(rank - 1, one);
  for (int64_t d = 0; d + 1 < rank; ++d)
    upper.push_back(size(d));
  Value rowSize = size(rank - 1);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, lanes);
  auto row = [&](OpBuilder &b, Location loc, ValueRange outer) {
    auto move = [&](OpBuilder &b, Value column, VectorType type,
                    bool inBounds) {
      SmallVector<Value> at(outer.begin(), outer.end());
      at.push_back(column);
      SmallVector<bool> bounds(1, inBounds);
      Value values = vector::TransferReadOp::create(
          b, loc, type, copy.getSource(), at, padding, bounds);
      vector::TransferWriteOp::create(b, loc, values, copy.getTarget(), at,
                                      bounds);
    };
    if (whole) {
      move(b, zero, VectorType::get({width}, element), /*inBounds=*/true);
      return;
    }
    VectorType vector = VectorType::get({lanes}, element);
    // A long static row: every step masked by a constant (LLVM drops the
    // masks of the whole vectors). (Not measured against the scheme below,
    // which would change the code of static models.)
    if (!ShapedType::isDynamic(width)) {
      scf::ForOp::create(b, loc, zero, rowSize, step, ValueRange{},
                         [&](OpBuilder &b, Location loc, Value column,
                             ValueRange) {
                           move(b, column, vector, /*inBounds=*/false);
                           scf::YieldOp::create(b, loc);
                         });
      return;
    }
    // Whole vectors up to the last one that fits, then the rest of the row:
    // the last whole vector of the row again (overlapping the previous
    // one: a copy writes the same values twice) where the row holds one,
    // a masked vector otherwise. (Masked every step, a row cost a mask and
    // a masked store a vector; a masked store is microcoded on AMD's cores:
    // the padded planes of a dynamic depthwise convolution took 3x their
    // copy's time.)
    Value rest = b.createOrFold<arith::RemUIOp>(loc, rowSize, step);
    Value full = b.createOrFold<arith::SubIOp>(loc, rowSize, rest);
    scf::ForOp::create(b, loc, zero, full, step, ValueRange{},
                       [&](OpBuilder &b, Location loc, Value column,
                           ValueRange) {
                         move(b, column, vector, /*inBounds=*/true);
                         scf::YieldOp::create(b, loc);
                       });
    Value partial = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          rest, zero);
    scf::IfOp::create(b, loc, partial, [&](OpBuilder &b, Location loc) {
      Value holds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          rowSize, step);
      scf::IfOp::create(
          b, loc, holds,
          [&](OpBuilder &b, Location loc) {
            Value last = arith::SubIOp::create(b, loc, rowSize, step);
            move(b, last, vector, /*inBounds=*/true);
            scf::YieldOp::create(b, loc);
          },
          [&](OpBuilder &b, Location loc) {
            move(b, zero, vector, /*inBounds=*/false);
            scf::YieldOp::create(b, loc);
          });
      scf::YieldOp::create(b, loc);
    });
  };
  scf::buildLoopNest(rewriter, loc, lower, upper, steps, row);
  rewriter.eraseOp(copy);
  return success();
}

struct ExpandStridedCopiesPass
    : int21::impl::Int21ExpandStridedCopiesBase<ExpandStridedCopiesPass> {
  void runOnOperation() override {
    auto contiguous = [](Value v) {
      auto type = dyn_cast<MemRefType>(v.getType());
      return type && type.getLayout().isIdentity();
    };
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!contiguous(copy.getSource()) || !contiguous(copy.getTarget()))
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      if (succeeded(copyByRows(rewriter, copy)))
        continue;
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      rewriter.eraseOp(copy);
    }
  }
};

struct SignlessSignaturePass
    : int21::impl::Int21SignlessSignatureBase<SignlessSignaturePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    auto signless = [](Type type) -> Type {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !tensor.getElementType().isUnsignedInteger())
        return type;
      return tensor.clone(IntegerType::get(
          type.getContext(), tensor.getElementType().getIntOrFloatBitWidth()));
    };
    Block &entry = func.getBody().front();
    // Fusion groups yield signless values cast to unsigned: yield them as
    // they are, and drop the casts back that their users start with. The
    // groups are collected first: a cast back may be the op after a group,
    // which a walk would already have stepped to when it is erased.
    SmallVector<FusionGroupOp> groups;
    func.walk([&](FusionGroupOp group) { groups.push_back(group); });
    for (FusionGroupOp group : groups) {
      YieldOp yield = group.getYield();
      for (OpOperand &operand : yield->getOpOperands()) {
        auto cast = operand.get().getDefiningOp<tensor::BitcastOp>();
        Value result = group->getResult(operand.getOperandNumber());
        if (!cast || cast.getSource().getType() != signless(result.getType()) ||
            cast.getSource().getType() == result.getType())
          continue;
        operand.set(cast.getSource());
        if (cast->use_empty())
          cast.erase();
        result.setType(signless(result.getType()));
        for (Operation *user : llvm::make_early_inc_range(result.getUsers()))
          if (auto back = dyn_cast<tensor::BitcastOp>(user);
              back && back.getType() == result.getType()) {
            back.replaceAllUsesWith(result);
            back.erase();
          }
      }
    }
    for (BlockArgument arg : entry.getArguments()) {
      Type type = signless(arg.getType());
      if (type == arg.getType())
        continue;
      arg.setType(type);
      // Casts into the (already signless) body are now identities.
      for (Operation *user : llvm::make_early_inc_range(arg.getUsers()))
        if (auto cast = dyn_cast<tensor::BitcastOp>(user);
            cast && cast.getType() == type) {
          cast.replaceAllUsesWith(arg);
          cast.erase();
        }
    }
    func.walk([&](func::ReturnOp ret) {
      for (OpOperand &operand : ret->getOpOperands()) {
        auto cast = operand.get().getDefiningOp<tensor::BitcastOp>();
        if (cast && cast.getSource().getType() == signless(cast.getType())) {
          operand.set(cast.getSource());
          if (cast->use_empty())
            cast.erase();
        }
      }
    });
    bool bad = false;
    func.walk([&](tensor::BitcastOp cast) {
      if (getElementTypeOrSelf(cast.getSource().getType()).isUnsignedInteger() ||
          getElementTypeOrSelf(cast.getType()).isUnsignedInteger()) {
        cast.emitError("unsigned tensor left inside the function body");
        bad = true;
      }
    });
    if (bad)
      return signalPassFailure();
    SmallVector<Type> results;
    for (Type t : func.getResultTypes())
      results.push_back(signless(t));
    func.setType(FunctionType::get(&getContext(), entry.getArgumentTypes(),
                                   results));
    func.walk([&](func::ReturnOp ret) {
      for (auto [value, type] : llvm::zip(ret.getOperands(), results))
        if (value.getType() != type) {
          ret.emitError("returns ") << value.getType() << " where the "
                                    << "signless signature says " << type;
          bad = true;
        }
    });
    if (bad)
      return signalPassFailure();
    // Each result its own buffer: a value returned twice (two outputs of
    // one value, or two index checks of the same indices) is copied for
    // every return after the first. Bufferization would otherwise turn both
    // into one out-parameter's allocation (it crashed doing so).
    func.walk([&](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> returned;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        auto tensor = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!tensor || returned.insert(operand.get()).second)
          continue;
        auto copy = bufferization::AllocTensorOp::create(
            b, ret.getLoc(), tensor, ValueRange(), operand.get());
        operand.set(copy);
      }
    });
  }
};

struct PlanWorkspacePass
    : int21::impl::Int21PlanWorkspaceBase<PlanWorkspacePass> {
  static constexpr int64_t kAlign = 64;

  struct Buffer {
    memref::AllocOp alloc;
    int64_t size = 0, start = 0, end = 0, offset = 0;
  };

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    if (!llvm::hasSingleElement(func.getBody()))
      return;
    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(body))
      position[&op] = i;
    int64_t last = body.getOperations().size();

    std::vector<Buffer> buffers;
    for (Operation &op : body) {
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc)
        continue;
      MemRefType type = alloc.getType();
      Type element = type.getElementType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !alloc.getDynamicSizes().empty() || !alloc.getSymbolOperands().empty() ||
          !element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0 ||
          (type.getMemorySpace() && !isa<IntegerAttr>(type.getMemorySpace())))
        continue;
      Buffer buffer;
      buffer.alloc = alloc;
      buffer.size = type.getNumElements() * (element.getIntOrFloatBitWidth() / 8);
      buffer.start = position[alloc];
      buffer.end = lastUse(alloc.getResult(), body, position, last);
      if (buffer.end < 0)
        continue; // Freed or escaping in ways not followed: leave it alone.
      buffers.push_back(buffer);
    }
    if (buffers.empty())
      return;

    // First fit in order of first use: a buffer takes the lowest offset that
    // no buffer alive at the same time occupies.
    int64_t total = 0;
    for (size_t i = 0; i < buffers.size(); ++i) {
      SmallVector<std::pair<int64_t, int64_t>> busy;
      for (size_t j = 0; j < i; ++j)
        if (buffers[j].start <= buffers[i].end &&
            buffers[i].start <= buffers[j].end)
          busy.push_back({buffers[j].offset, buffers[j].offset + buffers[j].size});
      llvm::sort(busy);
      int64_t offset = 0;
      for (auto [lo, hi] : busy) {
        if (offset + buffers[i].size <= lo)
          break;
        offset = std::max<int64_t>(offset, llvm::alignTo(hi, kAlign));
      }
      buffers[i].offset = offset;
      total = std::max(total, offset + buffers[i].size);
    }
    total = static_cast<int64_t>(llvm::alignTo(std::max<int64_t>(total, 1), kAlign));

    MLIRContext *ctx = &getContext();
    auto workspaceType = MemRefType::get({total}, IntegerType::get(ctx, 8));
    unsigned index = func.getNumArguments();
    NamedAttrList attrs;
    attrs.append("int21.workspace",
                 IntegerAttr::get(IntegerType::get(ctx, 64), total));
    if (failed(func.insertArgument(index, workspaceType,
                                   attrs.getDictionary(ctx), func.getLoc()))) {
      func.emitError("cannot add the workspace argument");
      return signalPassFailure();
    }
    Value workspace = func.getArgument(index);
    IRRewriter rewriter(ctx);
    for (Buffer &buffer : buffers) {
      rewriter.setInsertionPoint(buffer.alloc);
      Value offset = arith::ConstantIndexOp::create(rewriter, buffer.alloc.getLoc(),
                                                    buffer.offset);
      auto view = memref::ViewOp::create(rewriter, buffer.alloc.getLoc(),
                                         buffer.alloc.getType(), workspace,
                                         offset, ValueRange{});
      rewriter.replaceOp(buffer.alloc, view.getResult());
    }
  }

  /// The position of the last op of `body` that uses `value` or a view of
  /// it, or -1 when the buffer is freed or reaches something not followed
  /// (returned, stored, passed to a call).
  static int64_t lastUse(Value value, Block &body,
                         const DenseMap<Operation *, int64_t> &position,
                         int64_t last) {
    int64_t end = 0;
    SmallVector<Value> worklist = {value};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (isa<memref::DeallocOp, func::ReturnOp, func::CallOp>(user))
          return -1;
        if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
          if (view.getViewSource() == v)
            for (Value result : user->getResults())
              if (isa<BaseMemRefType>(result.getType()))
                worklist.push_back(result);
        } else if (llvm::any_of(user->getResultTypes(), [](Type t) {
                     return isa<BaseMemRefType>(t);
                   })) {
          return -1; // Some other op deriving a buffer from this one.
        }
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!top)
          return -1;
        // A use inside a loop lasts the whole loop, which `top` is.
        auto it = position.find(top);
        end = std::max(end, it == position.end() ? last : it->second);
      }
    }
    return end;
  }
};

struct InlineDeallocHelpersPass
    : int21::impl::Int21InlineDeallocHelpersBase<InlineDeallocHelpersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> helpers;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.getSymName().starts_with("dealloc_helper") &&
          func.isPrivate() && !func.isExternal())
        helpers.push_back(func);
    for (func::FuncOp helper : helpers) {
      if (!helper.getBody().hasOneBlock()) {
        helper.emitError("a deallocation helper of more than one block");
        return signalPassFailure();
      }
      Block &body = helper.getBody().front();
      auto ret = cast<func::ReturnOp>(body.getTerminator());
      SmallVector<func::CallOp> calls;
      module.walk([&](func::CallOp call) {
        if (call.getCallee() == helper.getSymName())
          calls.push_back(call);
      });
      for (func::CallOp call : calls) {
        IRMapping mapping;
        mapping.map(body.getArguments(), call.getOperands());
        OpBuilder b(call);
        for (Operation &op : body.without_terminator())
          b.clone(op, mapping);
        for (auto [result, value] :
             llvm::zip(call.getResults(), ret.getOperands()))
          result.replaceAllUsesWith(mapping.lookupOrDefault(value));
        call.erase();
      }
      helper.erase();
    }
  }
};

struct DetachEmptyArgumentsPass
    : int21::impl::Int21DetachEmptyArgumentsBase<DetachEmptyArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    MLIRContext *ctx = &getContext();
    auto placeholder = MemRefType::get(
        {0}, IntegerType::get(ctx, 8),
        StridedLayoutAttr::get(ctx, /*offset=*/0, /*strides=*/{1}));
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    SmallVector<Type> argTypes(func.getArgumentTypes());
    bool changed = false;
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() != 0 ||
          type == placeholder)
        continue;
      if (!arg.use_empty()) {
        if (!type.getLayout().isIdentity()) {
          func.emitError("argument #")
              << arg.getArgNumber() << " has no elements and a layout ("
              << type << "); expected the identity layout";
          return signalPassFailure();
        }
        auto local = memref::AllocaOp::create(b, func.getLoc(), type);
        arg.replaceAllUsesWith(local.getResult());
      }
      arg.setType(placeholder);
      argTypes[arg.getArgNumber()] = placeholder;
      changed = true;
    }
    if (changed)
      func.setType(
          FunctionType::get(ctx, argTypes, func.getFunctionType().getResults()));
  }
};

struct CPUEntryPointPass
    : int21::impl::Int21CPUEntryPointBase<CPUEntryPointPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<LLVM::LLVMFuncOp>("main");
    if (!main || main.isExternal()) {
      module.emitError("no llvm.func @main with a body to wrap");
      return signalPassFailure();
    }
    LLVM::LLVMFunctionType type = main.getFunctionType();
    if (!isa<LLVM::LLVMVoidType>(type.getReturnType())) {
      main.emitError("@main still returns values: run "
                     "buffer-results-to-out-params first");
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    for (Type param : type.getParams())
      if (param != ptr) {
        main.emitError("@main takes ")
            << param << ": use the bare-pointer calling convention";
        return signalPassFailure();
      }
    if (module.lookupSymbol("int21_entry")) {
      module.emitError("the module already defines int21_entry");
      return signalPassFailure();
    }
    main.setLinkage(LLVM::Linkage::Internal);

    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    Location loc = main.getLoc();
    auto entryType =
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr});
    auto entry = LLVM::LLVMFuncOp::create(b, loc, "int21_entry", entryType);
    Block *body = entry.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    SmallVector<Value> args;
    Value argv = body->getArgument(0);
    for (unsigned i = 0, e = type.getNumParams(); i < e; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, argv,
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
      args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
    }
    LLVM::CallOp::create(b, loc, main, args);
    LLVM::ReturnOp::create(b, loc, ValueRange{});

    // A dynamic model's @int21_shapes(extents, arguments...) behind
    // `int32_t int21_shapes(int64_t *extents, void **args)`, args laid out
    // as int21_entry's (the outputs' not needed).
    if (auto shapes = module.lookupSymbol<LLVM::LLVMFuncOp>("int21_shapes")) {
      LLVM::LLVMFunctionType shapesType = shapes.getFunctionType();
      if (shapesType.getNumParams() < 1 ||
          llvm::any_of(shapesType.getParams(),
                       [&](Type t) { return t != ptr; })) {
        shapes.emitError("@int21_shapes takes other than pointers");
        return signalPassFailure();
      }
      shapes.setSymName("int21_shapes_impl");
      shapes.setLinkage(LLVM::Linkage::Internal);
      b.setInsertionPointToEnd(module.getBody());
      auto wrapperType = LLVM::LLVMFunctionType::get(
          shapesType.getReturnType(), {ptr, ptr});
      auto wrapper =
          LLVM::LLVMFuncOp::create(b, loc, "int21_shapes", wrapperType);
      Block *wrapperBody = wrapper.addEntryBlock(b);
      b.setInsertionPointToStart(wrapperBody);
      SmallVector<Value> shapeArgs = {wrapperBody->getArgument(0)};
      Value shapeArgv = wrapperBody->getArgument(1);
      for (unsigned i = 1, e = shapesType.getNumParams(); i < e; ++i) {
        Value slot =
            LLVM::GEPOp::create(b, loc, ptr, ptr, shapeArgv,
                                ArrayRef<LLVM::GEPArg>{(int32_t)(i - 1)});
        shapeArgs.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
      }
      auto call = LLVM::CallOp::create(b, loc, shapes, shapeArgs);
      LLVM::ReturnOp::create(b, loc, call.getResults());
    }
  }
};
} // namespace

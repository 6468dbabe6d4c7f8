//===- GPUHostCopies.cpp - host copies and fills become wide kernels ------===//
//
// int21-gpu-expand-host-copies: a GPU engine's plan copies bytes with
// cuMemcpy, which moves one contiguous range. A host copy between views that
// are not contiguous (a slice of a fused projection, the interior of a padded
// buffer) becomes a block loop here, before int21-gpu-map-forall maps and
// outlines it with the other kernels; so does a host fill (the zeros around
// a padded buffer), which int21-gpu-map-forall would otherwise run in a
// single block.
//
//===----------------------------------------------------------------------===//

#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace int21 {
#define GEN_PASS_DEF_INT21GPUEXPANDHOSTCOPIES
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;

namespace {

/// Whether the plan can move `value`'s elements with one cuMemcpy (the test
/// the GPU engine's plan builder applies).
bool isPlanCopyable(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && memref::isStaticShapeAndContiguousRowMajor(type);
}

/// Replaces `op`, which writes every element of a buffer of `type` (static
/// shape, some elements), by a block loop of `blockSize`-thread blocks, one
/// element a thread; `moveElement` writes the element at the indices.
void expandElementwise(
    RewriterBase &rewriter, Operation *op, MemRefType type, int64_t blockSize,
    function_ref<void(OpBuilder &, Location, ValueRange)> moveElement) {
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t elements = type.getNumElements();
  // A copy smaller than a block needs no more threads than elements.
  int64_t threads = std::min(blockSize, elements);
  int64_t blocks = llvm::divideCeil(elements, threads);

  rewriter.setInsertionPoint(op);
  auto blockLoop = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(blocks)},
      ValueRange{},
      rewriter.getArrayAttr(
          {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)}));
  rewriter.setInsertionPoint(blockLoop.getBody()->getTerminator());
  auto threadLoop = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(threads)},
      ValueRange{},
      rewriter.getArrayAttr(
          {gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX)}));
  rewriter.setInsertionPoint(threadLoop.getBody()->getTerminator());

  // The linear (row-major) index of this thread's element; it stays below
  // blocks * threads, which fits an index: no wrap.
  auto noWrap =
      arith::IntegerOverflowFlags::nuw | arith::IntegerOverflowFlags::nsw;
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value linear = arith::MulIOp::create(
      rewriter, loc, blockLoop.getInductionVar(0), constant(threads), noWrap);
  linear = arith::AddIOp::create(rewriter, loc, linear,
                                 threadLoop.getInductionVar(0), noWrap);
  if (elements % threads != 0) {
    // The last block runs past the end.
    Value inBounds = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, linear, constant(elements));
    auto guard = scf::IfOp::create(rewriter, loc, inBounds,
                                   /*withElseRegion=*/false);
    rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
  }

  // Row-major delinearization, innermost dimension first; the outermost
  // takes what is left (below its size, as linear < elements). Unsigned
  // division by constants: no sign fix-ups in the kernel.
  SmallVector<Value> indices(shape.size());
  Value rest = linear;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (shape[d] == 1) {
      indices[d] = constant(0);
      continue;
    }
    if (llvm::all_of(shape.take_front(d),
                     [](int64_t size) { return size == 1; })) {
      indices[d] = rest;
      break;
    }
    Value size = constant(shape[d]);
    indices[d] = arith::RemUIOp::create(rewriter, loc, rest, size);
    rest = arith::DivUIOp::create(rewriter, loc, rest, size);
  }
  for (Value &index : indices)
    if (!index)
      index = constant(0);
  moveElement(rewriter, loc, indices);
  rewriter.eraseOp(op);
}

/// The static-shaped buffer type of `value`, or null.
MemRefType staticBuffer(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.hasStaticShape() ? type : MemRefType();
}

/// Whether `op` computes each element of its one static buffer from the
/// elements at the same indices of its buffer operands and from scalars (a
/// fill, a map, an elementwise generic): one thread an element computes it.
bool isElementwiseOnBuffers(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !staticBuffer(op.getDpsInitOperand(0)->get()) ||
      !op.getBlock()->getOps<linalg::IndexOp>().empty())
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<ShapedType>(operand.get().getType()))
      continue;
    if (!staticBuffer(operand.get()) ||
        !op.getMatchingIndexingMap(&operand).isIdentity())
      return false;
  }
  return true;
}

/// The element `op` computes at `indices`: its operands' elements there (the
/// output's only where the body reads it) through its body.
void computeElement(OpBuilder &b, Location loc, linalg::LinalgOp op,
                    ValueRange indices) {
  Block *body = op.getBlock();
  IRMapping mapping;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    Value value = operand.get();
    if (isa<ShapedType>(value.getType())) {
      if (arg.use_empty())
        continue;
      value = memref::LoadOp::create(b, loc, value, indices);
    }
    mapping.map(arg, value);
  }
  for (Operation &inner : body->without_terminator())
    b.clone(inner, mapping);
  Value result = mapping.lookupOrDefault(
      cast<linalg::YieldOp>(body->getTerminator()).getValues()[0]);
  memref::StoreOp::create(b, loc, result, op.getDpsInitOperand(0)->get(),
                          indices);
}

struct GPUExpandHostCopiesPass
    : int21::impl::Int21GPUExpandHostCopiesBase<GPUExpandHostCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // CUDA's limit on the threads of a block.
    if (blockSize <= 0 || blockSize > 1024) {
      func.emitError("int21-gpu-expand-host-copies: block-size must be "
                     "between 1 and 1024, got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    // Copies and elementwise ops of the function body only: those inside
    // kernels are spread over the block's threads by int21-gpu-map-forall.
    SmallVector<Operation *> ops;
    for (Operation &op : func.getFunctionBody().getOps()) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        if (staticBuffer(copy.getSource()) &&
            copy.getSource() != copy.getTarget() &&
            !(isPlanCopyable(copy.getSource()) &&
              isPlanCopyable(copy.getTarget())))
          ops.push_back(copy);
      } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        if (isElementwiseOnBuffers(linalgOp))
          ops.push_back(linalgOp);
      }
    }
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        MemRefType type = staticBuffer(copy.getSource());
        if (type.getNumElements() == 0) {
          rewriter.eraseOp(copy);
          continue;
        }
        Value source = copy.getSource(), target = copy.getTarget();
        expandElementwise(
            rewriter, copy, type, blockSize,
            [&](OpBuilder &b, Location loc, ValueRange indices) {
              Value element = memref::LoadOp::create(b, loc, source, indices);
              memref::StoreOp::create(b, loc, element, target, indices);
            });
        continue;
      }
      auto linalgOp = cast<linalg::LinalgOp>(op);
      MemRefType type = staticBuffer(linalgOp.getDpsInitOperand(0)->get());
      if (type.getNumElements() == 0) {
        rewriter.eraseOp(linalgOp);
        continue;
      }
      expandElementwise(rewriter, linalgOp, type, blockSize,
                        [&](OpBuilder &b, Location loc, ValueRange indices) {
                          computeElement(b, loc, linalgOp, indices);
                        });
    }
  }
};

} // namespace

//===- GPUStridedCopies.cpp - strided host copies become copy kernels -----===//
//
// int21-gpu-expand-strided-copies: a GPU engine's plan copies bytes with
// cuMemcpy, which moves one contiguous range. A host copy between views that
// are not contiguous (a slice of a fused projection, the interior of a padded
// buffer) becomes a block loop here, before int21-gpu-map-forall maps and
// outlines it with the other kernels.
//
//===----------------------------------------------------------------------===//

#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::int21 {
#define GEN_PASS_DEF_INT21GPUEXPANDSTRIDEDCOPIES
#include "int21/Transforms/Passes.h.inc"
} // namespace mlir::int21

using namespace mlir;

namespace {

/// Whether the plan can move `value`'s elements with one cuMemcpy (the test
/// the GPU engine's plan builder applies).
bool isPlanCopyable(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && memref::isStaticShapeAndContiguousRowMajor(type);
}

/// Replaces `copy` (static shapes, some elements) by a block loop of
/// `blockSize`-thread blocks, one element a thread.
void expandCopy(RewriterBase &rewriter, memref::CopyOp copy,
                int64_t blockSize) {
  MLIRContext *ctx = copy.getContext();
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(copy.getSource().getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t elements = type.getNumElements();
  // A copy smaller than a block needs no more threads than elements.
  int64_t threads = std::min(blockSize, elements);
  int64_t blocks = llvm::divideCeil(elements, threads);

  rewriter.setInsertionPoint(copy);
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
  Value element =
      memref::LoadOp::create(rewriter, loc, copy.getSource(), indices);
  memref::StoreOp::create(rewriter, loc, element, copy.getTarget(), indices);
  rewriter.eraseOp(copy);
}

struct GPUExpandStridedCopiesPass
    : int21::impl::Int21GPUExpandStridedCopiesBase<GPUExpandStridedCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // CUDA's limit on the threads of a block.
    if (blockSize <= 0 || blockSize > 1024) {
      func.emitError("int21-gpu-expand-strided-copies: block-size must be "
                     "between 1 and 1024, got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    // Copies of the function body only: those inside kernels become
    // linalg.copy spread over the block's threads (int21-gpu-map-forall).
    SmallVector<memref::CopyOp> copies;
    for (auto copy : func.getFunctionBody().getOps<memref::CopyOp>()) {
      auto type = dyn_cast<MemRefType>(copy.getSource().getType());
      if (!type || copy.getSource() == copy.getTarget() ||
          !type.hasStaticShape() ||
          (isPlanCopyable(copy.getSource()) &&
           isPlanCopyable(copy.getTarget())))
        continue;
      copies.push_back(copy);
    }
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      if (cast<MemRefType>(copy.getSource().getType()).getNumElements() == 0) {
        rewriter.eraseOp(copy);
        continue;
      }
      expandCopy(rewriter, copy, blockSize);
    }
  }
};

} // namespace

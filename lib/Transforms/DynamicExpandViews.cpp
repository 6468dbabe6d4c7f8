//===- DynamicExpandViews.cpp - expand_shape of several dynamic extents ---===//
//
// int21-dynamic-expand-views: a memref.expand_shape whose reassociation
// group holds two or more dynamic extents (upstream's expand-strided-metadata
// cannot lower it) becomes a memref.reinterpret_cast of the source's base
// buffer, with the strides the expansion gives: within a group, the
// innermost dimension keeps the source dimension's stride and each outer
// one is the next inner stride times that dimension's extent.
//
//===----------------------------------------------------------------------===//

#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace int21 {
#define GEN_PASS_DEF_INT21DYNAMICEXPANDVIEWS
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;

namespace {

struct ViewDynamicExpand : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    MemRefType resultType = expand.getResultType();
    bool needed = false;
    for (const ReassociationIndices &group :
         expand.getReassociationIndices())
      needed |= llvm::count_if(group, [&](int64_t d) {
                  return resultType.isDynamicDim(d);
                }) > 1;
    if (!needed)
      return failure();
    Location loc = expand.getLoc();
    auto metadata = memref::ExtractStridedMetadataOp::create(
        rewriter, loc, expand.getSrc());
    SmallVector<OpFoldResult> sizes = expand.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(resultType.getRank());
    for (auto [source, group] :
         llvm::enumerate(expand.getReassociationIndices())) {
      OpFoldResult stride = metadata.getConstifiedMixedStrides()[source];
      for (int64_t d : llvm::reverse(group)) {
        strides[d] = stride;
        std::optional<int64_t> a = getConstantIntValue(stride),
                               b = getConstantIntValue(sizes[d]);
        if (a && b) {
          stride = rewriter.getIndexAttr(*a * *b);
          continue;
        }
        stride = arith::MulIOp::create(
                     rewriter, loc,
                     getValueOrCreateConstantIndexOp(rewriter, loc, stride),
                     getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]))
                     .getResult();
      }
    }
    // The result type's own layout (static strides where it has them) is
    // what the cast produces.
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        expand, resultType, metadata.getBaseBuffer(),
        metadata.getConstifiedMixedOffset(), sizes, strides);
    return success();
  }
};

struct DynamicExpandViewsPass
    : int21::impl::Int21DynamicExpandViewsBase<DynamicExpandViewsPass> {
  void runOnOperation() override {
    // The expansions only: the rest of the function is left as it is (no
    // folding, no constants moved), so that a static model's code is not
    // touched.
    SmallVector<memref::ExpandShapeOp> expands;
    getOperation().walk(
        [&](memref::ExpandShapeOp expand) { expands.push_back(expand); });
    ViewDynamicExpand pattern(&getContext());
    PatternRewriter rewriter(&getContext());
    for (memref::ExpandShapeOp expand : expands) {
      rewriter.setInsertionPoint(expand);
      (void)pattern.matchAndRewrite(expand, rewriter);
    }
  }
};

} // namespace

//===- DynamicSignature.cpp - pass dynamic extents to an engine's code ----===//
//
// The bare-pointer calling convention passes a memref as one pointer, so a
// buffer's dynamic extents must reach the code some other way. After
// bufferization, int21-dynamic-signature gives @main one more argument, the
// extents array (`memref<Kxi64>`): every dynamic extent of every input, then
// of every output, in argument order. Each dynamic argument becomes a rank-0
// memref (its pointer) viewed at its extents with memref.reinterpret_cast.
// The outputs' extents are computed from the inputs' by a function of their
// own, `@int21_shapes(extents, arguments...)`, which the runtime calls first
// (to allocate the outputs, as TensorRT's and ONNX Runtime's output-shape
// queries do): the part of @main that computes the extents of the buffers
// copied into the outputs, which must depend on the inputs' extents and on
// the values of inputs of static shape only (a Reshape's shape given as
// data); the module's `int21.shape_value_arguments` lists those inputs.
//===----------------------------------------------------------------------===//

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace int21 {
#define GEN_PASS_DEF_INT21DYNAMICSIGNATURE
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;
using namespace int21;

namespace {

bool isDynamicMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && !memref.hasStaticShape();
}

/// The copy that writes argument `arg` (an output), if any.
memref::CopyOp copyInto(BlockArgument arg) {
  for (Operation *user : arg.getUsers())
    if (auto copy = dyn_cast<memref::CopyOp>(user))
      if (copy.getTarget() == arg)
        return copy;
  return {};
}

/// The extent of a view from the extents of what it views: a collapsed
/// dimension is the product of the dimensions it joins, an expanded one is
/// given by the expand op, a cast keeps them (the upstream patterns resolve
/// allocations and subviews).
struct DimOfView : OpRewritePattern<memref::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::DimOp dim,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return failure();
    Location loc = dim.getLoc();
    Operation *def = dim.getSource().getDefiningOp();
    if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(def)) {
      Value product = arith::ConstantIndexOp::create(rewriter, loc, 1);
      for (int64_t d : collapse.getReassociationIndices()[*index])
        product = arith::MulIOp::create(
            rewriter, loc, product,
            memref::DimOp::create(rewriter, loc, collapse.getSrc(), d));
      rewriter.replaceOp(dim, product);
      return success();
    }
    if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(def)) {
      OpFoldResult size = expand.getMixedOutputShape()[*index];
      rewriter.replaceOp(dim, getValueOrCreateConstantIndexOp(rewriter, loc,
                                                              size));
      return success();
    }
    if (auto cast = dyn_cast_or_null<memref::CastOp>(def)) {
      rewriter.replaceOpWithNewOp<memref::DimOp>(dim, cast.getSource(), *index);
      return success();
    }
    // A view's extent is its size (a slice computed at run time).
    if (auto subview = dyn_cast_or_null<memref::SubViewOp>(def)) {
      llvm::SmallBitVector dropped = subview.getDroppedDims();
      SmallVector<OpFoldResult> sizes;
      for (auto [d, size] : llvm::enumerate(subview.getMixedSizes()))
        if (!dropped.test(d))
          sizes.push_back(size);
      if (*index >= (int64_t)sizes.size())
        return failure();
      rewriter.replaceOp(dim, getValueOrCreateConstantIndexOp(rewriter, loc,
                                                              sizes[*index]));
      return success();
    }
    return failure();
  }
};

/// The buffer `value` is at run time when it is a result of loops and
/// branches that carry one buffer through unchanged (bufferized in place: a
/// loop that fills the positions of NonZero), else `value`.
Value carriedBuffer(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result || !isa<MemRefType>(value.getType()))
    return value;
  unsigned i = result.getResultNumber();
  if (auto loop = dyn_cast<scf::ForOp>(result.getOwner())) {
    Value yielded = loop.getYieldedValues()[i];
    if (carriedBuffer(yielded) != loop.getRegionIterArgs()[i])
      return value;
    return carriedBuffer(loop.getInitArgs()[i]);
  }
  if (auto branch = dyn_cast<scf::IfOp>(result.getOwner())) {
    if (branch.getElseRegion().empty())
      return value;
    Value then = carriedBuffer(branch.thenYield().getOperand(i));
    Value otherwise = carriedBuffer(branch.elseYield().getOperand(i));
    return then == otherwise ? then : value;
  }
  return value;
}

/// The extent of a buffer carried through loops is its initial buffer's.
struct DimOfCarriedBuffer : OpRewritePattern<memref::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::DimOp dim,
                                PatternRewriter &rewriter) const override {
    Value buffer = carriedBuffer(dim.getSource());
    if (buffer == dim.getSource())
      return failure();
    rewriter.modifyOpInPlace(
        dim, [&] { dim.getSourceMutable().assign(buffer); });
    return success();
  }
};

/// The extent of an scf.if's result (ONNX If's branches giving different
/// extents): the branch's, chosen by the condition, where each branch's is
/// known outside it (static, or of a buffer defined before the if).
struct DimOfIfResult : OpRewritePattern<memref::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::DimOp dim,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> index = dim.getConstantIndex();
    auto result = dyn_cast<OpResult>(dim.getSource());
    auto ifOp = result ? dyn_cast<scf::IfOp>(result.getOwner()) : scf::IfOp();
    if (!index || !ifOp || ifOp.getElseRegion().empty())
      return failure();
    Location loc = dim.getLoc();
    SmallVector<Value> extents;
    for (Block *block : {ifOp.thenBlock(), ifOp.elseBlock()}) {
      Value yielded =
          block->getTerminator()->getOperand(result.getResultNumber());
      // Through casts to the result's type.
      while (auto cast = yielded.getDefiningOp<memref::CastOp>())
        yielded = cast.getSource();
      auto type = dyn_cast<MemRefType>(yielded.getType());
      if (!type)
        return failure();
      if (!type.isDynamicDim(*index)) {
        extents.push_back(arith::ConstantIndexOp::create(
            rewriter, loc, type.getDimSize(*index)));
        continue;
      }
      if (ifOp->isAncestor(yielded.getParentRegion()->getParentOp()))
        return failure();
      extents.push_back(memref::DimOp::create(rewriter, loc, yielded, *index));
    }
    rewriter.replaceOpWithNewOp<arith::SelectOp>(dim, ifOp.getCondition(),
                                                 extents[0], extents[1]);
    return success();
  }
};

struct DynamicSignaturePass
    : int21::impl::Int21DynamicSignatureBase<DynamicSignaturePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isExternal())
      return;
    if (!llvm::any_of(main.getArgumentTypes(), isDynamicMemRef))
      return resolveBoundedExtents(main);
    if (!main.getBody().hasOneBlock())
      return fail(main, "@main has more than one block");
    if (module.lookupSymbol("int21_shapes"))
      return fail(module, "the module already defines @int21_shapes");
    Block &body = main.getBody().front();
    MLIRContext *ctx = &getContext();

    // The extents array: inputs' dynamic extents first, then outputs'.
    struct Extent {
      BlockArgument arg;
      int64_t dim;
    };
    SmallVector<Extent> inputExtents, outputExtents;
    DenseMap<BlockArgument, memref::CopyOp> outputs;
    for (BlockArgument arg : body.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.hasStaticShape())
        continue;
      if (!type.getLayout().isIdentity())
        return fail(main, "argument #" + Twine(arg.getArgNumber()) +
                              " has dynamic extents and a layout");
      memref::CopyOp copy = copyInto(arg);
      if (copy)
        outputs[arg] = copy;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          (copy ? outputExtents : inputExtents).push_back({arg, d});
    }
    SmallVector<Extent> extents(inputExtents);
    llvm::append_range(extents, outputExtents);
    auto slotOf = [&](BlockArgument arg, int64_t dim) -> int64_t {
      for (auto [i, e] : llvm::enumerate(extents))
        if (e.arg == arg && e.dim == dim)
          return i;
      return -1;
    };
    auto extentsType =
        MemRefType::get({(int64_t)extents.size()}, IntegerType::get(ctx, 64));

    // Each output's extents, as values computed in @main, reduced to
    // arithmetic on the inputs' extents.
    IRRewriter rewriter(ctx);
    SmallVector<std::pair<int64_t, Value>> outputValues;
    SmallVector<Operation *> dims;
    for (const Extent &e : outputExtents) {
      memref::CopyOp copy = outputs[e.arg];
      rewriter.setInsertionPoint(copy);
      auto dim = memref::DimOp::create(rewriter, copy.getLoc(),
                                       copy.getSource(), e.dim);
      dims.push_back(dim);
    }
    {
      RewritePatternSet patterns(ctx);
      memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
      memref::populateResolveShapedTypeResultDimsPatterns(patterns);
      memref::DimOp::getCanonicalizationPatterns(patterns, ctx);
      patterns.add<DimOfView, DimOfCarriedBuffer, DimOfIfResult>(ctx);
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      // The dim ops may fold away: follow their values through a
      // placeholder use.
      OpBuilder b(ctx);
      b.setInsertionPoint(body.getTerminator());
      SmallVector<Value> keep;
      for (Operation *dim : dims)
        keep.push_back(dim->getResult(0));
      auto anchor = UnrealizedConversionCastOp::create(
          b, main.getLoc(), TypeRange(), keep);
      // (The extents of the buffers they read, views' included, resolved
      // too: an allocation sized by the extents of a slice.)
      SmallVector<Operation *> queries(dims);
      body.walk([&](memref::DimOp query) {
        if (!llvm::is_contained(dims, query.getOperation()))
          queries.push_back(query);
      });
      (void)applyOpPatternsGreedily(queries, std::move(patterns), config);
      for (auto [i, e] : llvm::enumerate(outputExtents))
        outputValues.push_back(
            {slotOf(e.arg, e.dim), anchor->getOperand(i)});
      anchor->erase();
    }

    // The lowering's extent checks (cf.assert on extents) move into
    // @int21_shapes too: the engine refuses the inputs before the run.
    SmallVector<cf::AssertOp> checks;
    for (Operation &op : body)
      if (auto check = dyn_cast<cf::AssertOp>(op))
        checks.push_back(check);

    // @int21_shapes: the slice of @main those values need, which may read
    // the inputs' extents and the values of inputs, and nothing else.
    SetVector<Operation *> slice;
    auto isOutput = [&](BlockArgument arg) { return outputs.count(arg) != 0; };
    for (cf::AssertOp check : checks) {
      std::string why;
      if (failed(collectSlice(check.getArg(), main, isOutput, slice, why)))
        return fail(check, "the check '" + check.getMsg() +
                               "' depends on " + why +
                               ": int21 checks extents before the run only");
    }
    // Each output extent's slice. An output with an extent that no
    // arithmetic on the inputs' extents and values gives, nor bounds (one a
    // loop carries and grows, a slice at a position computed in the run), is
    // sized by the run, which allocates it (int21_output) and gives its
    // extents in the extents array.
    struct ExtentSlice {
      SetVector<Operation *> ops;
      bool fromData = false;
    };
    SmallVector<ExtentSlice> extentSlices(outputValues.size());
    llvm::SmallSetVector<BlockArgument, 4> runSized;
    for (auto [k, pair] : llvm::enumerate(outputValues)) {
      std::string why;
      if (failed(collectSlice(pair.second, main, isOutput, extentSlices[k].ops,
                              why, &extentSlices[k].fromData)))
        runSized.insert(extents[pair.first].arg);
    }
    // The other outputs' slices go into @int21_shapes; the slots of the
    // extents the run computes from data (and the outputs they belong to):
    // @int21_shapes gives their bounds.
    SmallVector<int64_t> dataSlots;
    llvm::SmallDenseSet<BlockArgument> dataOutputs;
    for (auto [k, pair] : llvm::enumerate(outputValues)) {
      BlockArgument arg = extents[pair.first].arg;
      if (runSized.contains(arg))
        continue;
      slice.insert(extentSlices[k].ops.begin(), extentSlices[k].ops.end());
      if (extentSlices[k].fromData) {
        dataSlots.push_back(pair.first);
        dataOutputs.insert(arg);
      }
    }
    // @int21_shapes(extents, @main's arguments...): the arguments as @main
    // takes them (a dynamic one as a pointer), of which it reads the values
    // of inputs whose elements are extents (a Reshape's shape, a range's
    // limit). The engine passes the inputs, the weights and no outputs.
    SmallVector<Type> shapeArgTypes = {extentsType};
    for (BlockArgument arg : body.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      shapeArgTypes.push_back(type && !type.hasStaticShape()
                                  ? MemRefType::get({}, type.getElementType())
                                  : arg.getType());
    }
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto shapes = func::FuncOp::create(
        b, main.getLoc(), "int21_shapes",
        FunctionType::get(ctx, shapeArgTypes, {b.getI32Type()}));
    Block *entry = shapes.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value shapeExtents = entry->getArgument(0);
    SmallVector<Attribute> valueInputs;
    for (Operation *op : slice)
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        auto arg = cast<BlockArgument>(load.getMemRef());
        auto index = b.getI64IntegerAttr(arg.getArgNumber());
        if (!llvm::is_contained(valueInputs, index))
          valueInputs.push_back(index);
      }
    if (!valueInputs.empty())
      module->setAttr("int21.shape_value_arguments",
                      ArrayAttr::get(ctx, valueInputs));
    auto loadExtent = [&](OpBuilder &builder, Location loc, Value array,
                          int64_t slot) -> Value {
      Value index = arith::ConstantIndexOp::create(builder, loc, slot);
      Value raw = memref::LoadOp::create(builder, loc, array, index);
      return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                        raw);
    };
    IRMapping mapping;
    auto sorted = topologicalOrder(slice);
    for (Operation *op : sorted) {
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        auto arg = cast<BlockArgument>(load.getMemRef());
        mapping.map(arg, entry->getArgument(arg.getArgNumber() + 1));
        b.clone(*op, mapping);
        continue;
      }
      // The shape query answers a bound of an extent computed from data.
      if (auto bounded = dyn_cast<BoundedExtentOp>(op)) {
        mapping.map(bounded.getResult(),
                    mapping.lookupOrDefault(bounded.getBound()));
        continue;
      }
      if (auto dim = dyn_cast<memref::DimOp>(op)) {
        auto arg = cast<BlockArgument>(dim.getSource());
        std::optional<int64_t> index = dim.getConstantIndex();
        int64_t slot = index ? slotOf(arg, *index) : -1;
        Value value;
        if (slot >= 0)
          value = loadExtent(b, dim.getLoc(), shapeExtents, slot);
        else
          value = arith::ConstantIndexOp::create(
              b, dim.getLoc(),
              cast<MemRefType>(arg.getType()).getDimSize(*index));
        mapping.map(dim.getResult(), value);
        continue;
      }
      b.clone(*op, mapping);
    }
    for (auto &[slot, value] : outputValues) {
      Value raw;
      if (runSized.contains(extents[slot].arg)) {
        // Known after the run only.
        raw = arith::ConstantIntOp::create(b, main.getLoc(), b.getI64Type(),
                                           -1);
      } else {
        Value v = mapping.lookupOrDefault(value);
        if (auto constant = getConstantIntValue(value))
          v = arith::ConstantIndexOp::create(b, main.getLoc(), *constant);
        raw = arith::IndexCastOp::create(b, main.getLoc(), b.getI64Type(), v);
      }
      Value index = arith::ConstantIndexOp::create(b, main.getLoc(), slot);
      memref::StoreOp::create(b, main.getLoc(), raw, shapeExtents, index);
    }
    // The status: 0 when every check holds, else the number of the first
    // that fails (1-based, in the order of int21.extent_checks).
    Location loc = main.getLoc();
    Value status = arith::ConstantIntOp::create(b, loc, 0, 32);
    SmallVector<Attribute> messages;
    for (auto [k, check] : llvm::enumerate(checks)) {
      Value holds = mapping.lookupOrDefault(check.getArg());
      Value none = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, status,
          arith::ConstantIntOp::create(b, loc, 0, 32));
      Value failed = arith::AndIOp::create(
          b, loc, none,
          arith::XOrIOp::create(b, loc, holds,
                                arith::ConstantIntOp::create(b, loc, 1, 1)));
      status = arith::SelectOp::create(
          b, loc, failed, arith::ConstantIntOp::create(b, loc, k + 1, 32),
          status);
      messages.push_back(check.getMsgAttr());
    }
    func::ReturnOp::create(b, loc, ValueRange{status});
    if (!messages.empty())
      module->setAttr("int21.extent_checks", ArrayAttr::get(ctx, messages));
    if (!dataSlots.empty()) {
      SmallVector<Attribute> slots;
      for (int64_t slot : dataSlots)
        slots.push_back(b.getI64IntegerAttr(slot));
      module->setAttr("int21.data_extents", ArrayAttr::get(ctx, slots));
    }
    if (!runSized.empty()) {
      SmallVector<Attribute> args;
      for (BlockArgument arg : runSized)
        args.push_back(b.getI64IntegerAttr(arg.getArgNumber()));
      module->setAttr("int21.run_sized_arguments", ArrayAttr::get(ctx, args));
    }
    for (cf::AssertOp check : checks)
      check->erase();

    // @main: the extents array last; every dynamic argument a pointer viewed
    // at its extents.
    unsigned extentsIndex = main.getNumArguments();
    NamedAttrList attrs;
    attrs.append("int21.extents",
                 IntegerAttr::get(IntegerType::get(ctx, 64), extents.size()));
    if (failed(main.insertArgument(extentsIndex, extentsType,
                                   attrs.getDictionary(ctx), main.getLoc())))
      return fail(main, "cannot add the extents argument");
    Value array = main.getArgument(extentsIndex);
    rewriter.setInsertionPointToStart(&body);
    SmallVector<Type> argTypes(main.getArgumentTypes());
    auto valueOfSlot = [&](int64_t slot) -> Value {
      for (auto &[s, value] : outputValues)
        if (s == slot)
          return value;
      return {};
    };
    for (BlockArgument arg : body.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.hasStaticShape())
        continue;
      Location loc = arg.getLoc();
      if (runSized.contains(arg)) {
        if (failed(handOver(module, arg, outputs[arg], array, slotOf)))
          return;
        outputs.erase(arg);
        argTypes[arg.getArgNumber()] = arg.getType();
        continue;
      }
      // An output with extents computed from data is viewed at them where
      // it is written, and the run gives them back in the extents array.
      bool fromData = dataOutputs.contains(arg);
      OpBuilder::InsertPoint start = rewriter.saveInsertionPoint();
      if (fromData)
        rewriter.setInsertionPoint(outputs[arg]);
      SmallVector<OpFoldResult> sizes, strides(type.getRank());
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d)) {
          sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
          continue;
        }
        int64_t slot = slotOf(arg, d);
        if (!fromData) {
          sizes.push_back(loadExtent(rewriter, loc, array, slot));
          continue;
        }
        Value extent = valueOfSlot(slot);
        if (auto constant = getConstantIntValue(extent))
          extent = arith::ConstantIndexOp::create(rewriter, loc, *constant);
        memref::StoreOp::create(
            rewriter, loc,
            arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                       extent),
            array,
            ValueRange{arith::ConstantIndexOp::create(rewriter, loc, slot)});
        sizes.push_back(extent);
      }
      // Row-major strides: products of the extents after each dimension.
      OpFoldResult stride = rewriter.getIndexAttr(1);
      for (int64_t d = type.getRank() - 1; d >= 0; --d) {
        strides[d] = stride;
        if (d > 0)
          stride = mulIndex(rewriter, loc, stride, sizes[d]);
      }
      auto pointer = MemRefType::get({}, type.getElementType());
      arg.setType(pointer);
      argTypes[arg.getArgNumber()] = pointer;
      auto view = memref::ReinterpretCastOp::create(
          rewriter, loc, type, arg, rewriter.getIndexAttr(0), sizes, strides);
      rewriter.replaceAllUsesExcept(arg, view.getResult(), view);
      if (fromData)
        rewriter.restoreInsertionPoint(start);
    }
    main.setType(FunctionType::get(ctx, argTypes,
                                   main.getFunctionType().getResults()));

    // An output computed into a buffer of its own is computed in place
    // instead (what buffer-results-to-out-params does for static shapes).
    for (auto &[arg, copy] : outputs) {
      auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
      Value target = copy.getTarget();
      if (!alloc || alloc->getBlock() != &body ||
          alloc.getType() != target.getType() ||
          !target.getDefiningOp()->isBeforeInBlock(alloc))
        continue;
      rewriter.eraseOp(copy);
      rewriter.replaceOp(alloc, target);
    }
    resolveBoundedExtents(main);
  }

  /// Output `arg`, sized by the run, written by `copy`: the run gives its
  /// extents in `array` (slots by `slotOf`) and its elements in a buffer of
  /// the engine's (int21_output, lib/Runtime/EngineSupport.c, copies them),
  /// whose address it stores in `arg`, which becomes a pointer to an i64.
  LogicalResult
  handOver(ModuleOp module, BlockArgument arg, memref::CopyOp copy,
           Value array,
           llvm::function_ref<int64_t(BlockArgument, int64_t)> slotOf) {
    auto type = cast<MemRefType>(arg.getType());
    for (Operation *user : arg.getUsers())
      if (user != copy.getOperation())
        return fail(user, "output #" + Twine(arg.getArgNumber()) +
                              " is sized by the run and read in @main"),
               failure();
    MLIRContext *ctx = module.getContext();
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    Type i64 = b.getI64Type();
    auto callee = module.lookupSymbol<func::FuncOp>(kOutputFunction);
    if (!callee) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(module.getBody());
      callee = func::FuncOp::create(
          b, module.getLoc(), kOutputFunction,
          FunctionType::get(ctx, {i64, i64}, {i64}));
      callee.setPrivate();
    }
    Value source = copy.getSource();
    auto sourceType = cast<MemRefType>(source.getType());
    SmallVector<Value> sizes;
    Value count = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value extent = memref::DimOp::create(b, loc, source, d);
      if (type.isDynamicDim(d)) {
        sizes.push_back(extent);
        memref::StoreOp::create(
            b, loc, arith::IndexCastOp::create(b, loc, i64, extent), array,
            ValueRange{arith::ConstantIndexOp::create(b, loc,
                                                      slotOf(arg, d))});
      }
      count = arith::MulIOp::create(b, loc, count, extent);
    }
    // A view (a slice of a larger buffer) is gathered into a buffer of its
    // own first (which the deallocation pipeline, after this pass, frees).
    Value contiguous = source;
    if (!sourceType.getLayout().isIdentity()) {
      contiguous = memref::AllocOp::create(
          b, loc, MemRefType::get(type.getShape(), type.getElementType()),
          sizes);
      memref::CopyOp::create(b, loc, source, contiguous);
    }
    unsigned bits = type.getElementType().getIntOrFloatBitWidth();
    Value bytes = arith::MulIOp::create(
        b, loc, count, arith::ConstantIndexOp::create(b, loc, (bits + 7) / 8));
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, contiguous);
    Value address =
        func::CallOp::create(
            b, loc, callee,
            ValueRange{arith::IndexCastOp::create(b, loc, i64, pointer),
                       arith::IndexCastOp::create(b, loc, i64, bytes)})
            .getResult(0);
    arg.setType(MemRefType::get({}, i64));
    memref::StoreOp::create(b, loc, address, arg);
    copy->erase();
    return success();
  }

  /// @main computes the extents the run computes from data.
  static void resolveBoundedExtents(func::FuncOp main) {
    main.walk([](BoundedExtentOp op) {
      op.getResult().replaceAllUsesWith(op.getExtent());
      op->erase();
    });
  }

  /// Adds to `slice` the ops of @main that `value` is computed from, when
  /// they are pure arithmetic on the extents of @main's arguments and the
  /// elements of its inputs of static shape; else says what it depends on
  /// in `why`.
  /// An extent the run computes from data (int21.bounded_extent) is
  /// allowed where `fromData` is given, which is then set: the slice computes
  /// its bound.
  static LogicalResult
  collectSlice(Value value, func::FuncOp main,
               llvm::function_ref<bool(BlockArgument)> isOutput,
               SetVector<Operation *> &slice, std::string &why,
               bool *fromData = nullptr) {
    SmallVector<Value> worklist = {value};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def) {
        why = "a value that is not an extent";
        return failure();
      }
      if (auto bounded = dyn_cast<BoundedExtentOp>(def)) {
        if (!fromData) {
          why = "an extent computed from the values of a tensor";
          return failure();
        }
        *fromData = true;
        slice.insert(def);
        worklist.push_back(bounded.getBound());
        continue;
      }
      if (slice.contains(def))
        continue;
      if (auto dim = dyn_cast<memref::DimOp>(def)) {
        auto arg = dyn_cast<BlockArgument>(dim.getSource());
        if (!arg || arg.getOwner()->getParentOp() != main ||
            !dim.getConstantIndex()) {
          why = "the extent of a buffer computed in the model";
          return failure();
        }
        slice.insert(def);
        continue;
      }
      // An element of an input of static shape (a shape given as data).
      if (auto load = dyn_cast<memref::LoadOp>(def)) {
        auto arg = dyn_cast<BlockArgument>(load.getMemRef());
        if (!arg || arg.getOwner()->getParentOp() != main || isOutput(arg)) {
          why = "the values of a buffer computed in the model";
          return failure();
        }
        if (!load.getMemRefType().hasStaticShape()) {
          why = "the values of an input of dynamic shape";
          return failure();
        }
        slice.insert(def);
        llvm::append_range(worklist, load.getIndices());
        continue;
      }
      bool arithmetic =
          isa<arith::ArithDialect, affine::AffineDialect>(def->getDialect()) &&
          def->getNumRegions() == 0 && isMemoryEffectFree(def);
      if (!arithmetic) {
        why = "'" + def->getName().getStringRef().str() + "'";
        return failure();
      }
      slice.insert(def);
      llvm::append_range(worklist, def->getOperands());
    }
    return success();
  }

  /// `ops` in the order they appear in their block.
  static SmallVector<Operation *> topologicalOrder(SetVector<Operation *> &ops) {
    SmallVector<Operation *> sorted(ops.begin(), ops.end());
    llvm::sort(sorted, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    return sorted;
  }

  static OpFoldResult mulIndex(OpBuilder &b, Location loc, OpFoldResult x,
                               OpFoldResult y) {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return b.getIndexAttr(*cx * *cy);
    auto value = [&](OpFoldResult f) -> Value {
      if (auto v = dyn_cast<Value>(f))
        return v;
      return arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(f));
    };
    return arith::MulIOp::create(b, loc, value(x), value(y)).getResult();
  }

  void fail(Operation *op, const Twine &message) {
    op->emitError(message);
    signalPassFailure();
  }
};
} // namespace

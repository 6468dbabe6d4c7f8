//===- InlineFusionGroups.cpp - dissolve groups, outline kernels ----------===//

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

namespace int21 {
#define GEN_PASS_DEF_INT21INLINEFUSIONGROUPS
#define GEN_PASS_DEF_INT21OUTLINEKERNELS
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;
using namespace int21;

namespace {
struct InlineFusionGroupsPass
    : int21::impl::Int21InlineFusionGroupsBase<InlineFusionGroupsPass> {
  void runOnOperation() override {
    SmallVector<FusionGroupOp> groups;
    getOperation().walk([&](FusionGroupOp group) { groups.push_back(group); });
    IRRewriter rewriter(&getContext());
    // The walk is post-order, so nested groups are dissolved first.
    for (FusionGroupOp group : groups) {
      YieldOp yield = group.getYield();
      SmallVector<Value> values(yield.getValues());
      rewriter.eraseOp(yield);
      rewriter.inlineBlockBefore(&group.getBody().front(), group);
      rewriter.replaceOp(group, values);
    }
  }
};
} // namespace

namespace {
/// Whether a kernel can take `value` as an argument: a scalar, or a memref
/// the bare-pointer calling convention passes (static shape, strides and
/// offset, default memory space).
bool isKernelArgument(Value value) {
  Type type = value.getType();
  if (type.isIntOrIndexOrFloat())
    return true;
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || memref.getMemorySpace())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return false;
  return ShapedType::isStatic(offset) &&
         llvm::all_of(strides, ShapedType::isStatic);
}

/// Whether a kernel can take `value` through its strided metadata: a memref
/// of dynamic extents (a dynamic model's), strided, in the default memory
/// space. The kernel takes its base buffer (a rank-0 memref) and its dynamic
/// offset, sizes and strides, and views the base as `value` again.
bool isDynamicKernelArgument(Value value) {
  auto memref = dyn_cast<MemRefType>(value.getType());
  if (!memref || memref.getMemorySpace() || isKernelArgument(value))
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(memref.getStridesAndOffset(strides, offset));
}

/// Whether the op defining `value` is cloned into a kernel rather than passed
/// to it: a constant or a global's address.
bool isClonedIntoKernel(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         isMemoryEffectFree(def);
}

/// The text a kernel's name hashes: its body, printed the same way whatever
/// the tool's printing options (no locations, nothing elided).
std::string kernelText(func::FuncOp kernel) {
  OpPrintingFlags flags;
  flags.enableDebugInfo(false)
      .elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
      .printGenericOpForm(false)
      .skipRegions(false);
  std::string text;
  llvm::raw_string_ostream os(text);
  kernel.print(os, flags);
  return text;
}

struct OutlineKernelsPass
    : int21::impl::Int21OutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func.getSymName().starts_with(kPrefix) &&
          func.getBody().hasOneBlock())
        funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      Block &block = func.getBody().front();
      for (Block::iterator it = block.begin(); it != block.end();) {
        SmallVector<Operation *> kernel = kernelAt(block, it);
        if (kernel.empty()) {
          ++it;
          continue;
        }
        it = std::next(Block::iterator(kernel.back()));
        outline(kernel, symbols);
      }
    }
  }

private:
  static constexpr StringLiteral kPrefix = "int21_kernel_";

  /// The kernel that starts at `start`: from an op with regions (a loop
  /// nest, a linalg op) up to the last op that uses a value it defines (the
  /// write of a loop's vector result, say), so that no value crosses the
  /// kernel's end. Empty when there is no kernel here.
  static SmallVector<Operation *> kernelAt(Block &block, Block::iterator start) {
    Operation &first = *start;
    if (first.getNumRegions() == 0 ||
        first.hasTrait<::mlir::OpTrait::IsTerminator>() ||
        first.hasTrait<::mlir::OpTrait::IsIsolatedFromAbove>())
      return {};
    SmallVector<Operation *> ops;
    Operation *last = &first;
    for (Block::iterator it = start; it != block.end(); ++it) {
      if (it->hasTrait<::mlir::OpTrait::IsTerminator>())
        return {};
      ops.push_back(&*it);
      for (Operation *user : it->getUsers())
        if (Operation *top = block.findAncestorOpInBlock(*user))
          if (last->isBeforeInBlock(top))
            last = top;
      if (&*it == last)
        return ops;
    }
    return {};
  }

  void outline(ArrayRef<Operation *> ops, SymbolTable &symbols) {
    Block &block = *ops.front()->getBlock();
    llvm::SmallPtrSet<Operation *, 8> inside(ops.begin(), ops.end());
    auto definedInside = [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (!def)
        def = value.getParentBlock()->getParentOp();
      Operation *top = block.findAncestorOpInBlock(*def);
      return top && inside.contains(top);
    };
    // The values the kernel uses from the function, in the order of first
    // use.
    llvm::SetVector<Value> used;
    for (Operation *op : ops)
      op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
        for (Value operand : inner->getOperands())
          if (!definedInside(operand))
            used.insert(operand);
      });
    SmallVector<Value> arguments, cloned, viewed;
    for (Value value : used) {
      if (isClonedIntoKernel(value))
        cloned.push_back(value);
      else if (isKernelArgument(value))
        arguments.push_back(value);
      else if (isDynamicKernelArgument(value))
        viewed.push_back(value);
      else
        return;
    }
    Operation &op = *ops.front();
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    // A dynamic memref goes as its base buffer and its dynamic offset,
    // sizes and strides, in that order, after the other arguments.
    OpBuilder outer(&op);
    SmallVector<Value> callArguments = arguments;
    for (Value value : viewed) {
      auto metadata =
          memref::ExtractStridedMetadataOp::create(outer, loc, value);
      auto type = cast<MemRefType>(value.getType());
      SmallVector<int64_t> strides;
      int64_t offset;
      (void)type.getStridesAndOffset(strides, offset);
      callArguments.push_back(metadata.getBaseBuffer());
      if (ShapedType::isDynamic(offset))
        callArguments.push_back(metadata.getOffset());
      for (auto [size, value] : llvm::zip(type.getShape(), metadata.getSizes()))
        if (ShapedType::isDynamic(size))
          callArguments.push_back(value);
      for (auto [stride, value] : llvm::zip(strides, metadata.getStrides()))
        if (ShapedType::isDynamic(stride))
          callArguments.push_back(value);
    }
    auto type =
        FunctionType::get(ctx, ValueRange(callArguments).getTypes(), {});
    auto kernel = func::FuncOp::create(loc, kPrefix, type);
    Block *entry = kernel.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    IRMapping mapping;
    for (auto [value, argument] : llvm::zip(arguments, entry->getArguments()))
      mapping.map(value, argument);
    // Each dynamic memref viewed again from its base and metadata.
    unsigned next = arguments.size();
    for (Value value : viewed) {
      auto type = cast<MemRefType>(value.getType());
      SmallVector<int64_t> strides;
      int64_t offset;
      (void)type.getStridesAndOffset(strides, offset);
      Value base = entry->getArgument(next++);
      auto index = [&](int64_t fixed) -> OpFoldResult {
        if (ShapedType::isDynamic(fixed))
          return entry->getArgument(next++);
        return b.getIndexAttr(fixed);
      };
      OpFoldResult viewOffset = index(offset);
      SmallVector<OpFoldResult> sizes, viewStrides;
      for (int64_t size : type.getShape())
        sizes.push_back(index(size));
      for (int64_t stride : strides)
        viewStrides.push_back(index(stride));
      mapping.map(value, memref::ReinterpretCastOp::create(
                             b, loc, type, base, viewOffset, sizes,
                             viewStrides)
                             .getResult());
    }
    for (Value value : cloned)
      if (!mapping.contains(value))
        b.clone(*value.getDefiningOp(), mapping);
    for (Operation *inner : ops)
      b.clone(*inner, mapping);
    func::ReturnOp::create(b, loc);

    // Named by its body; a kernel already there under the name is reused
    // when it is the same kernel (the hash alone could collide).
    uint64_t hash = llvm::xxh3_64bits(kernelText(kernel));
    std::string base;
    llvm::raw_string_ostream(base) << kPrefix << llvm::format_hex_no_prefix(
                                          hash, 16);
    func::FuncOp target;
    for (unsigned suffix = 0; !target; ++suffix) {
      std::string name =
          suffix ? base + "_" + std::to_string(suffix) : base;
      kernel.setSymName(name);
      auto existing = symbols.lookup<func::FuncOp>(name);
      if (!existing) {
        symbols.insert(kernel);
        target = kernel;
      } else if (OperationEquivalence::isEquivalentTo(
                     existing, kernel,
                     OperationEquivalence::IgnoreLocations)) {
        kernel.erase();
        target = existing;
      }
    }
    b.setInsertionPoint(&op);
    func::CallOp::create(b, loc, target, callArguments);
    for (Operation *inner : llvm::reverse(ops))
      inner->erase();
  }
};
} // namespace

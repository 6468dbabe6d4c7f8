//===- GPUMapping.cpp - bufferized block loops to gpu.launch, one module --===//
//
// int21-gpu-map-forall turns the block loops that the GPU schedules leave
// (bufferized) into gpu.launch ops, after making every kernel safe to map:
// nothing a block runs outside its thread loops may be run by all of its
// threads at once (copies and temporaries), and nothing may stay on the host.
// int21-gpu-merge-modules puts the outlined kernels into one gpu.module.
//
//===----------------------------------------------------------------------===//

#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FormatVariadic.h"

namespace int21 {
#define GEN_PASS_DEF_INT21GPUMAPFORALL
#define GEN_PASS_DEF_INT21GPUMERGEMODULES
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;

namespace {

/// Threads a kernel that no template scheduled (one block) runs with.
constexpr int64_t kFallbackThreads = 256;

bool hasMapping(Operation *op, function_ref<bool(Attribute)> pred) {
  auto forall = dyn_cast_or_null<scf::ForallOp>(op);
  if (!forall)
    return false;
  std::optional<ArrayAttr> mapping = forall.getMapping();
  return mapping && !mapping->empty() && pred((*mapping)[0]);
}

bool isBlockLoop(Operation *op) {
  return hasMapping(
      op, [](Attribute a) { return isa<gpu::GPUBlockMappingAttr>(a); });
}

bool isThreadLoop(Operation *op) {
  return hasMapping(
      op, [](Attribute a) { return isa<gpu::GPUThreadMappingAttr>(a); });
}

/// Whether `op` lies in a thread loop of `kernel`.
bool inThreadLoop(Operation *op, Operation *kernel) {
  for (Operation *p = op->getParentOp(); p && p != kernel; p = p->getParentOp())
    if (isThreadLoop(p))
      return true;
  return false;
}

std::optional<int64_t> staticTripCount(scf::ForallOp loop, unsigned i) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getMixedLowerBound()[i]);
  std::optional<int64_t> ub = getConstantIntValue(loop.getMixedUpperBound()[i]);
  std::optional<int64_t> step = getConstantIntValue(loop.getMixedStep()[i]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, llvm::divideCeil(*ub - *lb, *step));
}

/// The block size (x, y, z) that the thread loops of `kernel` need.
FailureOr<SmallVector<int64_t, 3>> getBlockDims(scf::ForallOp kernel) {
  SmallVector<int64_t, 3> dims = {1, 1, 1};
  bool ok = true;
  kernel.walk([&](scf::ForallOp loop) {
    if (!isThreadLoop(loop))
      return;
    for (auto [i, attr] : llvm::enumerate(*loop.getMapping())) {
      auto thread = cast<gpu::GPUThreadMappingAttr>(attr);
      auto id = static_cast<int64_t>(thread.getThread());
      std::optional<int64_t> count = staticTripCount(loop, i);
      if (!count || id > 2) {
        loop.emitError("thread loop with a dynamic trip count or a linear "
                       "mapping cannot be mapped to the GPU");
        ok = false;
        return;
      }
      dims[id] = std::max(dims[id], *count);
    }
  });
  if (!ok)
    return failure();
  return dims;
}

/// Spreads `op` (a linalg op a block runs outside its thread loops) over
/// the block's threads: its innermost parallel dimensions get the x, y, z
/// threads. An op without parallel dimensions runs on thread 0 alone.
LogicalResult distributeOverThreads(RewriterBase &rewriter, linalg::LinalgOp op,
                                    ArrayRef<int64_t> blockDims) {
  MLIRContext *ctx = op->getContext();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<OpFoldResult> numThreads(iterators.size(),
                                       rewriter.getIndexAttr(0));
  SmallVector<std::pair<unsigned, gpu::MappingId>> tiled;
  unsigned next = 0;
  for (int64_t d = iterators.size() - 1; d >= 0 && next < 3; --d) {
    if (iterators[d] != utils::IteratorType::parallel)
      continue;
    while (next < 3 && blockDims[next] == 1)
      ++next;
    if (next == 3)
      break;
    numThreads[d] = rewriter.getIndexAttr(blockDims[next]);
    tiled.push_back(
        {static_cast<unsigned>(d), static_cast<gpu::MappingId>(next)});
    ++next;
  }
  rewriter.setInsertionPoint(op);
  if (tiled.empty()) {
    // Thread 0 only (the other threads skip a loop of one iteration).
    auto loop = scf::ForallOp::create(
        rewriter, op.getLoc(), ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
        ValueRange{},
        rewriter.getArrayAttr(
            {gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX)}));
    op->moveBefore(loop.getBody()->getTerminator());
    return success();
  }
  // Mapping attributes in the order of the loop dimensions.
  llvm::sort(tiled, [](auto a, auto b) { return a.first < b.first; });
  SmallVector<Attribute> mapping;
  for (auto [d, id] : tiled)
    mapping.push_back(gpu::GPUThreadMappingAttr::get(ctx, id));
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp)
      .setNumThreads(numThreads)
      .setMapping(mapping);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result))
    return op.emitError("cannot spread this op over the GPU threads");
  rewriter.eraseOp(op);
  return success();
}

/// Wraps `op` (compute left on the host) into a kernel of one block.
LogicalResult wrapInKernel(RewriterBase &rewriter, Operation *op) {
  if (op->getNumResults() != 0)
    return op->emitError("cannot map '")
           << op->getName() << "' to the GPU: its results stay on the host";
  rewriter.setInsertionPoint(op);
  auto kernel = scf::ForallOp::create(
      rewriter, op->getLoc(), ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
      ValueRange{},
      rewriter.getArrayAttr({gpu::GPUBlockMappingAttr::get(
          op->getContext(), gpu::MappingId::DimX)}));
  op->moveBefore(kernel.getBody()->getTerminator());
  return success();
}

bool isAllowedOnHost(Operation *op) {
  return isa<arith::ConstantOp, memref::ViewOp, memref::SubViewOp,
             memref::ReinterpretCastOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp, memref::CastOp, memref::CopyOp,
             gpu::LaunchOp, gpu::LaunchFuncOp, func::ReturnOp>(op);
}

/// Compute that must not stay on the host: linalg ops, loops and anything
/// else that writes memory.
bool isHostCompute(Operation *op) {
  if (isAllowedOnHost(op) || isBlockLoop(op) ||
      isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op))
    return false;
  if (isa<linalg::LinalgOp>(op) || op->getNumRegions() > 0)
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return !effects || effects.hasEffect<MemoryEffects::Write>();
}

struct GPUMapForallPass : int21::impl::Int21GPUMapForallBase<GPUMapForallPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    gpu::registerTransformDialectExtension(registry);
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);

    // Self-copies (a tile bufferized in place) do nothing.
    func.walk([&](memref::CopyOp copy) {
      if (copy.getSource() == copy.getTarget())
        copy.erase();
    });

    // Poison (the padding of vectorized transfers, hoisted to the function
    // by canonicalization) is rematerialized at each use: kept on the host
    // it would become a kernel argument.
    SmallVector<ub::PoisonOp> poisons(func.getBody().front().getOps<ub::PoisonOp>());
    for (ub::PoisonOp poison : poisons) {
      for (OpOperand &use : llvm::make_early_inc_range(poison->getUses())) {
        rewriter.setInsertionPoint(use.getOwner());
        use.set(rewriter.clone(*poison)->getResult(0));
      }
      rewriter.eraseOp(poison);
    }

    if (failed(moveAllocsToWorkspace(func)))
      return signalPassFailure();

    // Compute left on the host becomes a kernel of its own.
    for (Operation &op :
         llvm::make_early_inc_range(func.getBody().front().getOperations()))
      if (isHostCompute(&op)) {
        if (failed(wrapInKernel(rewriter, &op)))
          return signalPassFailure();
      }

    SmallVector<scf::ForallOp> kernels;
    for (Operation &op : func.getBody().front())
      if (isBlockLoop(&op))
        kernels.push_back(cast<scf::ForallOp>(op));
    for (scf::ForallOp kernel : kernels)
      if (failed(prepareKernel(rewriter, kernel)))
        return signalPassFailure();
    for (scf::ForallOp kernel : kernels)
      if (failed(mapKernel(kernel)))
        return signalPassFailure();

    for (Operation &op : func.getBody().front())
      if (!isAllowedOnHost(&op)) {
        op.emitError("cannot map '")
            << op.getName() << "' to the GPU: it would stay on the host";
        return signalPassFailure();
      }
  }

  /// Host buffers int21-plan-workspace left (those of booleans, whose
  /// elements are not whole bytes for it) are appended to the workspace
  /// argument (one byte per element, as kernels store them), so that no
  /// allocation stays on the host.
  LogicalResult moveAllocsToWorkspace(func::FuncOp func) {
    SmallVector<memref::AllocOp> allocs;
    for (auto alloc : func.getBody().front().getOps<memref::AllocOp>()) {
      MemRefType type = alloc.getType();
      if (type.hasStaticShape() && type.getLayout().isIdentity() &&
          !type.getMemorySpace() && type.getElementType().isIntOrFloat())
        allocs.push_back(alloc);
    }
    if (allocs.empty())
      return success();
    MLIRContext *ctx = func.getContext();
    constexpr int64_t kAlign = 64;
    unsigned last = func.getNumArguments();
    int64_t size = 0;
    if (last > 0)
      if (auto attr = func.getArgAttrOfType<IntegerAttr>(last - 1,
                                                         "int21.workspace"))
        size = attr.getInt();
    if (size == 0 && (last == 0 || !func.getArgAttr(last - 1,
                                                    "int21.workspace"))) {
      if (failed(func.insertArgument(
              last, MemRefType::get({0}, IntegerType::get(ctx, 8)),
              DictionaryAttr::get(ctx), func.getLoc())))
        return failure();
      last = func.getNumArguments();
    }
    BlockArgument workspace = func.getArgument(last - 1);
    OpBuilder b(ctx);
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      int64_t bytes = type.getNumElements() *
                      std::max<int64_t>(
                          1, type.getElementType().getIntOrFloatBitWidth() / 8);
      size = llvm::alignTo(size, kAlign);
      b.setInsertionPoint(alloc);
      Value offset = arith::ConstantIndexOp::create(b, alloc.getLoc(), size);
      auto view = memref::ViewOp::create(b, alloc.getLoc(), type, workspace,
                                         offset, ValueRange{});
      alloc.replaceAllUsesWith(view.getResult());
      alloc.erase();
      size += bytes;
    }
    auto wsType = MemRefType::get({size}, IntegerType::get(ctx, 8));
    workspace.setType(wsType);
    SmallVector<Type> inputs(func.getBody().front().getArgumentTypes());
    func.setType(FunctionType::get(ctx, inputs, func.getResultTypes()));
    func.setArgAttr(last - 1, "int21.workspace",
                    IntegerAttr::get(IntegerType::get(ctx, 64), size));
    return success();
  }

  /// Makes `kernel` safe to map (see the pass description).
  LogicalResult prepareKernel(RewriterBase &rewriter, scf::ForallOp kernel) {
    MLIRContext *ctx = kernel->getContext();
    // The runtime's memref.copy does not exist on the device.
    SmallVector<memref::CopyOp> copies;
    kernel.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      rewriter.eraseOp(copy);
    }

    FailureOr<SmallVector<int64_t, 3>> dims = getBlockDims(kernel);
    if (failed(dims))
      return failure();
    bool scheduled = (*dims)[0] * (*dims)[1] * (*dims)[2] > 1;
    if (!scheduled) {
      // No thread loops: what a template left unscheduled. Its ops get the
      // threads of one block.
      (*dims)[0] = kFallbackThreads;
    }
    SmallVector<linalg::LinalgOp> blockOps;
    kernel.walk([&](linalg::LinalgOp op) {
      if (!inThreadLoop(op, kernel))
        blockOps.push_back(op);
    });
    for (linalg::LinalgOp op : blockOps)
      if (failed(distributeOverThreads(rewriter, op, *dims)))
        return failure();

    // Other writes a block runs outside its thread loops (stores of a scan
    // or scatter that no template scheduled) are made by thread 0 alone:
    // all threads writing at once would race on read-modify-writes.
    SmallVector<Operation *> writers;
    kernel.walk([&](Operation *op) {
      if (op == kernel.getOperation() || op->getNumRegions() > 0 ||
          op->getNumResults() > 0 || isa<linalg::LinalgOp>(op) ||
          inThreadLoop(op, kernel))
        return;
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (effects && effects.hasEffect<MemoryEffects::Write>() &&
          !isa<memref::DeallocOp>(op))
        writers.push_back(op);
    });
    for (Operation *op : writers) {
      rewriter.setInsertionPoint(op);
      auto loop = scf::ForallOp::create(
          rewriter, op->getLoc(),
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)}, ValueRange{},
          rewriter.getArrayAttr(
              {gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX)}));
      op->moveBefore(loop.getBody()->getTerminator());
    }

    // Temporaries: a thread's own are private (hoisted to the kernel's
    // entry), a block's are shared memory.
    Attribute workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    SmallVector<memref::AllocOp> allocs;
    kernel.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape())
        return alloc.emitError("a kernel's temporary needs a static shape");
      if (type.getMemorySpace() == workgroup)
        continue;
      if (inThreadLoop(alloc, kernel)) {
        rewriter.setInsertionPointToStart(kernel.getBody());
        auto alloca = memref::AllocaOp::create(rewriter, alloc.getLoc(), type);
        rewriter.replaceOp(alloc, alloca.getResult());
        continue;
      }
      if (type.getMemorySpace())
        return alloc.emitError("a kernel's temporary in memory space ")
               << type.getMemorySpace() << " cannot be mapped";
      rewriter.setInsertionPoint(alloc);
      auto shared = memref::AllocOp::create(
          rewriter, alloc.getLoc(),
          MemRefType::get(type.getShape(), type.getElementType(),
                          type.getLayout(), workgroup));
      auto cast = memref::MemorySpaceCastOp::create(rewriter, alloc.getLoc(),
                                                    type, shared);
      rewriter.replaceOp(alloc, cast.getResult());
    }
    kernel.walk([&](memref::DeallocOp dealloc) { dealloc.erase(); });
    kernel->setAttr("int21.block_dims", rewriter.getDenseI64ArrayAttr(*dims));
    return success();
  }

  /// Maps `kernel` to a gpu.launch with the upstream transform ops and makes
  /// its shared buffers workgroup attributions.
  LogicalResult mapKernel(scf::ForallOp kernel) {
    MLIRContext *ctx = kernel->getContext();
    auto dims = kernel->getAttrOfType<DenseI64ArrayAttr>("int21.block_dims");
    kernel->removeAttr("int21.block_dims");
    std::string text = llvm::formatv(
        R"mlir(module attributes {{transform.with_named_sequence} {
  transform.named_sequence @map(%kernel: !transform.any_op {{transform.consumed}) {
    %launch = transform.gpu.map_forall_to_blocks %kernel generate_gpu_launch
      : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %launch block_dims = [{0}, {1}, {2}]
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
})mlir",
        dims[0], dims[1], dims[2]);
    OwningOpRef<ModuleOp> transforms = parseSourceString<ModuleOp>(text, ctx);
    if (!transforms)
      return failure();
    auto sequence = transforms->lookupSymbol<transform::NamedSequenceOp>("map");
    Block *block = kernel->getBlock();
    Location loc = kernel.getLoc();
    DenseSet<Operation *> existing;
    for (auto launch : block->getOps<gpu::LaunchOp>())
      existing.insert(launch);
    if (failed(transform::applyTransformNamedSequence(
            kernel, sequence, *transforms, transform::TransformOptions())))
      return emitError(loc, "cannot map this kernel to the GPU");
    gpu::LaunchOp launch;
    for (auto candidate : block->getOps<gpu::LaunchOp>())
      if (!existing.contains(candidate))
        launch = candidate;
    if (!launch)
      return emitError(loc, "mapping this kernel made no gpu.launch");
    Attribute workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    SmallVector<memref::AllocOp> shared;
    launch.walk([&](memref::AllocOp alloc) {
      if (alloc.getType().getMemorySpace() == workgroup)
        shared.push_back(alloc);
    });
    for (memref::AllocOp alloc : shared) {
      BlockArgument buffer =
          launch.addWorkgroupAttribution(alloc.getType(), alloc.getLoc());
      alloc.replaceAllUsesWith(buffer);
      alloc.erase();
    }
    return success();
  }
};

struct GPUMergeModulesPass
    : int21::impl::Int21GPUMergeModulesBase<GPUMergeModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<gpu::GPUModuleOp> modules(module.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return;
    constexpr StringLiteral kName = "int21_kernels";
    // Outlining names every kernel after its function (@main_kernel in
    // @main_kernel, @main_kernel_0, ...): a kernel takes its module's name,
    // unique in the parent module.
    DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    gpu::GPUModuleOp dest = modules.front();
    for (gpu::GPUModuleOp other : modules) {
      StringAttr moduleName = other.getNameAttr();
      for (auto func : other.getOps<gpu::GPUFuncOp>()) {
        renamed[{moduleName, func.getNameAttr()}] = moduleName;
        SymbolTable::setSymbolName(func, moduleName);
      }
      if (other == dest)
        continue;
      for (Operation &op :
           llvm::make_early_inc_range(other.getBody()->getOperations()))
        op.moveBefore(dest.getBody(), dest.getBody()->end());
    }
    bool ok = true;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it =
          renamed.find({launch.getKernelModuleName(), launch.getKernelName()});
      if (it == renamed.end()) {
        launch.emitError("launches a kernel that is not outlined");
        ok = false;
        return;
      }
      launch.setKernelAttr(
          SymbolRefAttr::get(ctx, kName, {FlatSymbolRefAttr::get(it->second)}));
    });
    if (!ok)
      return signalPassFailure();
    for (gpu::GPUModuleOp other : llvm::drop_begin(modules))
      other.erase();
    SymbolTable::setSymbolName(dest, kName);
  }
};

} // namespace

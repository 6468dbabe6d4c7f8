//===- GPUEngine.cpp - GPU engines from a lowered host module -------------===//
//
// Follows every memref in @main back to an argument and a byte offset, so
// that each launch and copy becomes a plan step on the engine's buffers.
// Kernels take bare pointers: a memref operand passes its aligned pointer,
// and the kernel adds the static offset of its type itself, so a pointer's
// offset is the sum of the memref.view shifts on the way, while the bytes it
// may reach also count the static offset and the extent of the type.
//
//===----------------------------------------------------------------------===//

#include "int21/Compiler/GPUEngine.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Compiler/PTX.h"
#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
namespace runtime = ::int21::runtime;
using runtime::ArgKind;
using runtime::BufferKind;
using runtime::BufferRef;
using runtime::DType;
using runtime::EngineMetadata;
using runtime::GPUStep;
using runtime::KernelArg;
using runtime::TensorSpec;

namespace {

/// Where a memref value points: its aligned pointer is `offset` bytes into
/// buffer `index` of `kind`.
struct Place {
  BufferKind kind;
  unsigned index;
  uint64_t offset;
};

class PlanBuilder {
public:
  PlanBuilder(ModuleOp module, func::FuncOp main, EngineMetadata &meta)
      : module(module), main(main), meta(meta) {}

  FailureOr<::int21::GPUEngineParts> build();

private:
  LogicalResult classifyArguments();
  LogicalResult visit(Operation *op);
  LogicalResult visitView(Operation *op, Value source, uint64_t shift);
  LogicalResult visitLaunch(gpu::LaunchFuncOp launch);
  LogicalResult visitCopy(memref::CopyOp copy);
  FailureOr<BufferRef> pointerTo(Operation *user, Value value);
  FailureOr<uint64_t> constantOf(Operation *user, Value value, StringRef what);
  LogicalResult collectCode();

  ModuleOp module;
  func::FuncOp main;
  EngineMetadata &meta;
  ::int21::GPUEngineParts parts;
  DenseMap<Value, Place> places;
  /// The modules (gpu.binary names) used, in first-use order.
  DenseMap<StringAttr, unsigned> moduleIndex;
};

} // namespace

/// Bytes of one element of `type` as engines store it (i1 in a byte).
static uint64_t elementBytes(Type type) {
  if (!type.isIntOrFloat())
    return 0;
  return std::max<uint64_t>(1,
                            llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
}

/// The bytes from its aligned pointer that a memref of `type` may reach: its
/// static offset plus its extent, or failure for a dynamic layout.
static FailureOr<uint64_t> reachOf(MemRefType type) {
  if (!type.hasStaticShape())
    return failure();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || offset < 0 ||
      llvm::any_of(strides,
                   [](int64_t s) { return ShapedType::isDynamic(s) || s < 0; }))
    return failure();
  uint64_t esize = elementBytes(type.getElementType());
  if (!esize)
    return failure();
  if (type.getNumElements() == 0)
    return 0;
  uint64_t last = offset;
  for (auto [dim, stride] : llvm::zip(type.getShape(), strides))
    last += static_cast<uint64_t>(dim - 1) * stride;
  return (last + 1) * esize;
}

LogicalResult PlanBuilder::classifyArguments() {
  unsigned numArgs = main.getNumArguments();
  for (unsigned i = 0; i < numArgs; ++i)
    if (!isa<MemRefType>(main.getArgument(i).getType()))
      return main.emitError("argument ")
             << i << " of @main is " << main.getArgument(i).getType()
             << ", not a memref: the host function of a GPU engine takes "
                "the engine's buffers only";
  meta.workspaceSize = 0;
  unsigned numBuffers = numArgs;
  if (numArgs > 0)
    if (auto workspace = main.getArgAttrOfType<IntegerAttr>(
            numArgs - 1, "int21.workspace")) {
      auto type = cast<MemRefType>(main.getArgument(numArgs - 1).getType());
      if (!type.hasStaticShape() || type.getRank() != 1 ||
          !type.getElementType().isInteger(8) ||
          type.getNumElements() != workspace.getInt())
        return main.emitError("the workspace argument must be memref<")
               << workspace.getInt() << "xi8>, not " << type;
      meta.workspaceSize = workspace.getInt();
      places[main.getArgument(numArgs - 1)] = {BufferKind::Workspace, 0, 0};
      --numBuffers;
    }

  bool given = !meta.inputs.empty() || !meta.outputs.empty();
  std::vector<TensorSpec> inputs, outputs;
  meta.weights.clear();
  parts.weights.clear();
  enum class Role { Input, Weight, Output };
  SmallVector<Role> roles;
  size_t nonWeights = 0;
  for (unsigned i = 0; i < numBuffers; ++i) {
    auto type = cast<MemRefType>(main.getArgument(i).getType());
    if (Attribute value = main.getArgAttr(i, "int21.weight")) {
      auto index = static_cast<unsigned>(meta.weights.size());
      FailureOr<uint64_t> size =
          ::int21::appendWeight(main, value, meta, parts.weights);
      if (failed(size))
        return failure();
      FailureOr<uint64_t> reach = reachOf(type);
      if (failed(reach) || *reach != *size)
        return main.emitError("weight '")
               << meta.weights.back().name << "' has " << *size
               << " bytes of data, its argument is " << type;
      places[main.getArgument(i)] = {BufferKind::Weight, index, 0};
      roles.push_back(Role::Weight);
      continue;
    }
    if (given) {
      roles.push_back(nonWeights++ < meta.inputs.size() ? Role::Input
                                                        : Role::Output);
      continue;
    }
    bool isOutput = static_cast<bool>(main.getArgAttr(i, "int21.output"));
    roles.push_back(isOutput ? Role::Output : Role::Input);
  }

  // The order engines take buffers in: inputs, weights, outputs.
  for (size_t i = 1; i < roles.size(); ++i)
    if (roles[i] < roles[i - 1])
      return main.emitError("argument ")
             << i << " of @main is "
             << (roles[i] == Role::Input ? "an input" : "a weight") << " after "
             << (roles[i - 1] == Role::Output ? "an output" : "a weight")
             << ": the order is inputs, weights, outputs, workspace";

  unsigned numIn = 0, numOut = 0;
  for (unsigned i = 0; i < numBuffers; ++i) {
    if (roles[i] == Role::Weight)
      continue;
    auto type = cast<MemRefType>(main.getArgument(i).getType());
    bool isInput = roles[i] == Role::Input;
    unsigned index = isInput ? numIn++ : numOut++;
    places[main.getArgument(i)] = {
        isInput ? BufferKind::Input : BufferKind::Output, index, 0};
    if (given)
      continue;
    TensorSpec spec;
    auto name = main.getArgAttrOfType<StringAttr>(i, "onnx.name");
    spec.name = name ? name.str()
                     : ((isInput ? "input_" : "output_") + Twine(index)).str();
    std::optional<DType> dtype = ::int21::engineDType(type.getElementType());
    if (!dtype || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return main.emitError("argument ")
             << i
             << " of @main must be a memref of a static shape, an "
                "identity layout and an engine dtype, not "
             << type;
    spec.dtype = *dtype;
    spec.shape.assign(type.getShape().begin(), type.getShape().end());
    (isInput ? inputs : outputs).push_back(std::move(spec));
  }
  if (!given) {
    meta.inputs = std::move(inputs);
    meta.outputs = std::move(outputs);
  }
  if (numIn != meta.inputs.size() || numOut != meta.numResultBuffers()) {
    InFlightDiagnostic error = main.emitError("@main has ");
    error << numBuffers << " buffer arguments, expected " << meta.inputs.size()
          << " inputs, " << meta.weights.size() << " weights and "
          << meta.outputs.size() << " outputs";
    if (!meta.checks.empty())
      error << " and " << meta.checks.size() << " index checks";
    return error;
  }
  // Each argument must hold what the metadata says (element types may
  // differ in signedness only: the host form is signless).
  for (unsigned i = 0; i < numBuffers; ++i) {
    Place place = places[main.getArgument(i)];
    if (place.kind == BufferKind::Weight)
      continue;
    auto type = cast<MemRefType>(main.getArgument(i).getType());
    const TensorSpec &spec = place.kind == BufferKind::Input
                                 ? meta.inputs[place.index]
                                 : meta.resultBuffer(place.index);
    FailureOr<uint64_t> reach = reachOf(type);
    std::optional<uint64_t> size =
        runtime::bufferSize(meta, place.kind, place.index);
    // A buffer without elements may have become a placeholder type
    // (int21-detach-empty-arguments): nothing is read or written through it.
    if (*size == 0 && succeeded(reach) && *reach == 0)
      continue;
    if (failed(reach) || !type.getLayout().isIdentity() ||
        type.getShape() != ArrayRef<int64_t>(spec.shape) || *reach != *size) {
      std::string shape;
      for (auto [d, dim] : llvm::enumerate(spec.shape))
        shape += (d ? "x" : "") + std::to_string(dim);
      return main.emitError("argument ")
             << i << " of @main is " << type << ", but "
             << runtime::bufferKindName(place.kind) << " '" << spec.name
             << "' is " << runtime::dtypeName(spec.dtype) << "[" << shape
             << "]";
    }
  }
  return success();
}

FailureOr<uint64_t> PlanBuilder::constantOf(Operation *user, Value value,
                                            StringRef what) {
  auto op = value.getDefiningOp<arith::ConstantOp>();
  auto attr = op ? dyn_cast<IntegerAttr>(op.getValue()) : IntegerAttr();
  if (!attr || attr.getValue().isNegative())
    return user->emitError() << what << " must be a non-negative constant";
  return attr.getValue().getZExtValue();
}

FailureOr<BufferRef> PlanBuilder::pointerTo(Operation *user, Value value) {
  auto it = places.find(value);
  if (it == places.end())
    return user->emitError()
           << "operand is not an argument of @main or a static view of one";
  auto type = cast<MemRefType>(value.getType());
  FailureOr<uint64_t> reach = reachOf(type);
  if (failed(reach))
    return user->emitError() << "operand type " << type
                             << " has no static shape, strides and offset";
  BufferRef ref;
  ref.kind = it->second.kind;
  ref.index = it->second.index;
  ref.offset = it->second.offset;
  ref.size = *reach;
  return ref;
}

LogicalResult PlanBuilder::visitView(Operation *op, Value source,
                                     uint64_t shift) {
  auto it = places.find(source);
  if (it == places.end())
    return op->emitError()
           << "views something other than an argument of @main or a view of "
              "one";
  auto type = dyn_cast<MemRefType>(op->getResult(0).getType());
  if (!type || failed(reachOf(type)))
    return op->emitError() << "result " << op->getResult(0).getType()
                           << " has no static shape, strides and offset";
  Place place = it->second;
  place.offset += shift;
  places[op->getResult(0)] = place;
  return success();
}

LogicalResult PlanBuilder::visitLaunch(gpu::LaunchFuncOp launch) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError(
        "asynchronous launches are not supported: the plan runs its steps "
        "in order on one stream");
  if (launch.hasClusterSize())
    return launch.emitError("thread block clusters are not supported");
  GPUStep step;
  step.kind = GPUStep::Kind::Launch;
  step.module = launch.getKernelModuleName().str();
  step.kernel = launch.getKernelName().str();
  if (!module.lookupSymbol<gpu::BinaryOp>(launch.getKernelModuleName()))
    return launch.emitError("kernel module @")
           << step.module
           << " is not a gpu.binary (run gpu-module-to-binary first)";
  Value grid[] = {launch.getGridSizeX(), launch.getGridSizeY(),
                  launch.getGridSizeZ()};
  Value block[] = {launch.getBlockSizeX(), launch.getBlockSizeY(),
                   launch.getBlockSizeZ()};
  for (unsigned d = 0; d < 3; ++d) {
    FailureOr<uint64_t> g = constantOf(launch, grid[d], "grid size");
    FailureOr<uint64_t> b = constantOf(launch, block[d], "block size");
    if (failed(g) || failed(b))
      return failure();
    if (*g > UINT32_MAX || *b > UINT32_MAX)
      return launch.emitError("grid or block size beyond 32 bits");
    step.grid[d] = static_cast<uint32_t>(*g);
    step.block[d] = static_cast<uint32_t>(*b);
  }
  if (Value shared = launch.getDynamicSharedMemorySize()) {
    FailureOr<uint64_t> bytes =
        constantOf(launch, shared, "dynamic shared memory size");
    if (failed(bytes))
      return failure();
    step.sharedBytes = static_cast<uint32_t>(*bytes);
  }
  std::vector<ArgKind> params;
  for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
    Type type = operand.getType();
    if (isa<MemRefType>(type)) {
      FailureOr<BufferRef> ref = pointerTo(launch, operand);
      if (failed(ref))
        return failure();
      step.args.push_back(KernelArg::ptr(*ref));
      params.push_back(ArgKind::Pointer);
      continue;
    }
    auto constant = operand.getDefiningOp<arith::ConstantOp>();
    if (!constant)
      return launch.emitError("kernel operand ")
             << i << " is neither a memref nor a constant";
    Attribute value = constant.getValue();
    if (auto integer = dyn_cast<IntegerAttr>(value)) {
      unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
      if (width == 64) {
        step.args.push_back(KernelArg::i64(integer.getValue().getSExtValue()));
        params.push_back(ArgKind::I64);
        continue;
      }
      if (width == 32) {
        step.args.push_back(KernelArg::i32(
            static_cast<int32_t>(integer.getValue().getSExtValue())));
        params.push_back(ArgKind::I32);
        continue;
      }
    } else if (auto fp = dyn_cast<FloatAttr>(value)) {
      if (type.isF32()) {
        step.args.push_back(KernelArg::f32(fp.getValue().convertToFloat()));
        params.push_back(ArgKind::F32);
        continue;
      }
      if (type.isF64()) {
        step.args.push_back(KernelArg::f64(fp.getValue().convertToDouble()));
        params.push_back(ArgKind::F64);
        continue;
      }
    }
    return launch.emitError("kernel operand ")
           << i << " has type " << type
           << "; scalars passed to kernels must be i32, i64, index, f32 or "
              "f64";
  }

  // The module and kernel, with the parameters the first launch gives.
  auto [it, inserted] = moduleIndex.try_emplace(launch.getKernelModuleName(),
                                                parts.plan.modules.size());
  if (inserted)
    parts.plan.modules.push_back({step.module, {}});
  runtime::GPUModule &gpuModule = parts.plan.modules[it->second];
  auto kernel =
      llvm::find_if(gpuModule.kernels, [&](const runtime::GPUKernel &k) {
        return k.name == step.kernel;
      });
  if (kernel == gpuModule.kernels.end())
    gpuModule.kernels.push_back({step.kernel, params});
  else if (kernel->params != params)
    return launch.emitError("kernel @")
           << step.module << "::@" << step.kernel
           << " is launched with operands of other kinds than before";
  parts.plan.steps.push_back(std::move(step));
  return success();
}

LogicalResult PlanBuilder::visitCopy(memref::CopyOp copy) {
  auto sourceType = cast<MemRefType>(copy.getSource().getType());
  auto targetType = cast<MemRefType>(copy.getTarget().getType());
  if (!memref::isStaticShapeAndContiguousRowMajor(sourceType) ||
      !memref::isStaticShapeAndContiguousRowMajor(targetType))
    return copy.emitError("copies between buffers that are not both "
                          "contiguous: ")
           << sourceType << " to " << targetType;
  FailureOr<BufferRef> src = pointerTo(copy, copy.getSource());
  FailureOr<BufferRef> dst = pointerTo(copy, copy.getTarget());
  if (failed(src) || failed(dst))
    return failure();
  uint64_t bytes = static_cast<uint64_t>(sourceType.getNumElements()) *
                   elementBytes(sourceType.getElementType());
  if (bytes == 0)
    return success();
  // A copy moves the bytes its views start at: the static offset counts.
  auto startOf = [&](BufferRef &ref, uint64_t reach) {
    ref.offset += reach - bytes;
    ref.size = bytes;
  };
  startOf(*src, src->size);
  startOf(*dst, dst->size);
  GPUStep step;
  step.kind = GPUStep::Kind::Copy;
  step.src = *src;
  step.dst = *dst;
  step.bytes = bytes;
  parts.plan.steps.push_back(std::move(step));
  return success();
}

LogicalResult PlanBuilder::visit(Operation *op) {
  if (isa<arith::ConstantOp>(op))
    return success();
  if (auto view = dyn_cast<memref::ViewOp>(op)) {
    if (!view.getSizes().empty())
      return op->emitError("memref.view with dynamic sizes is not supported");
    FailureOr<uint64_t> shift =
        constantOf(op, view.getByteShift(), "the byte shift of memref.view");
    if (failed(shift))
      return failure();
    return visitView(op, view.getSource(), *shift);
  }
  if (isa<memref::SubViewOp, memref::ReinterpretCastOp, memref::ExpandShapeOp,
          memref::CollapseShapeOp, memref::CastOp>(op)) {
    // The aligned pointer stays; the type carries the new offset.
    if (auto cast = dyn_cast<memref::ReinterpretCastOp>(op))
      if (!cast.getOffsets().empty() || !cast.getSizes().empty() ||
          !cast.getStrides().empty())
        return op->emitError("memref.reinterpret_cast with dynamic offsets, "
                             "sizes or strides is not supported");
    if (auto subview = dyn_cast<memref::SubViewOp>(op))
      if (!subview.getOffsets().empty() || !subview.getSizes().empty() ||
          !subview.getStrides().empty())
        return op->emitError("memref.subview with dynamic offsets, sizes or "
                             "strides is not supported");
    return visitView(op, op->getOperand(0), 0);
  }
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
    return visitLaunch(launch);
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return visitCopy(copy);
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    if (ret.getNumOperands() != 0)
      return op->emitError("@main of a GPU engine returns nothing: its "
                           "outputs are arguments");
    return success();
  }
  return op->emitError("'")
         << op->getName()
         << "' cannot be part of a GPU engine's host plan (expected "
            "arith.constant, static memref views, gpu.launch_func, "
            "memref.copy and func.return)";
}

LogicalResult PlanBuilder::collectCode() {
  for (runtime::GPUModule &gpuModule : parts.plan.modules) {
    auto binary = module.lookupSymbol<gpu::BinaryOp>(gpuModule.name);
    std::string chips;
    gpu::ObjectAttr chosen;
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      auto target = object ? dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget())
                           : NVVM::NVVMTargetAttr();
      if (!target)
        continue;
      chips += (chips.empty() ? "" : ", ") + target.getChip().str();
      if (meta.target.empty())
        meta.target = target.getChip().str();
      if (target.getChip() == meta.target && !chosen)
        chosen = object;
    }
    if (!chosen)
      return binary.emitError("has no NVVM object for ")
             << meta.target << " (it has: " << (chips.empty() ? "none" : chips)
             << ")";
    if (chosen.getFormat() != gpu::CompilationTarget::Assembly)
      return binary.emitError("holds ")
             << gpu::stringifyCompilationTarget(chosen.getFormat()) << " for "
             << meta.target
             << ", not PTX: run gpu-module-to-binary with format=isa";
    std::string ptx = chosen.getObject().str();
    // Every kernel must be an entry of the PTX with parameters of the sizes
    // the launches pass.
    std::vector<runtime::PTXEntry> entries = runtime::listPTXEntries(ptx);
    for (const runtime::GPUKernel &kernel : gpuModule.kernels) {
      auto entry = llvm::find_if(entries, [&](const runtime::PTXEntry &e) {
        return e.name == kernel.name;
      });
      if (entry == entries.end())
        return binary.emitError("PTX has no entry '") << kernel.name << "'";
      if (entry->paramSizes.size() != kernel.params.size())
        return binary.emitError("kernel '")
               << kernel.name << "' takes " << entry->paramSizes.size()
               << " parameters in its PTX, its launches pass "
               << kernel.params.size()
               << " (kernels must use the bare-pointer calling convention: "
                  "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1})";
      for (auto [i, kind] : llvm::enumerate(kernel.params))
        if (entry->paramSizes[i] != runtime::argKindSize(kind))
          return binary.emitError("kernel '")
                 << kernel.name << "' takes " << entry->paramSizes[i]
                 << " bytes for parameter " << i
                 << " in its PTX, its launches pass "
                 << runtime::argKindName(kind) << " ("
                 << runtime::argKindSize(kind) << " bytes)";
    }
    parts.code.push_back({gpuModule.name, std::move(ptx)});
  }
  return success();
}

FailureOr<::int21::GPUEngineParts> PlanBuilder::build() {
  if (!main.getBody().hasOneBlock())
    return main.emitError("@main of a GPU engine must be one block");
  if (failed(classifyArguments()))
    return failure();
  for (Operation &op : main.getBody().front())
    if (failed(visit(&op)))
      return failure();
  if (!meta.target.empty() && !runtime::isGPUTarget(meta.target))
    return module.emitError("target '")
           << meta.target << "' is not an NVIDIA chip (sm_XY)";
  if (failed(collectCode()))
    return failure();
  if (meta.target.empty())
    return module.emitError("the module launches no kernel and names no "
                            "chip: give a target");
  if (llvm::Error error = runtime::validateGPUPlan(parts.plan, meta, "plan"))
    return module.emitError("the extracted plan is invalid: ")
           << llvm::toString(std::move(error));
  return std::move(parts);
}

auto ::int21::buildGPUPlan(ModuleOp module, EngineMetadata &meta)
    -> FailureOr<GPUEngineParts> {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main || main.isExternal())
    return module.emitError("the host module has no func.func @main");
  if (main.getNumResults() != 0)
    return main.emitError("@main of a GPU engine returns nothing: its "
                          "outputs are arguments");
  return PlanBuilder(module, main, meta).build();
}

auto ::int21::writeGPUEngine(ModuleOp module, EngineMetadata meta,
                             llvm::raw_ostream &os, AssemblePTXFn assemble)
    -> LogicalResult {
  if (meta.compilerVersion.empty())
    meta.compilerVersion = compilerVersion().str();
  FailureOr<GPUEngineParts> parts = buildGPUPlan(module, meta);
  if (failed(parts))
    return failure();
  std::string planText = runtime::gpuPlanToString(parts->plan);
  // The cubins outlive the sections that point at them.
  std::vector<std::string> cubins;
  cubins.reserve(parts->code.size());
  std::vector<runtime::Section> sections;
  for (const GPUModuleCode &code : parts->code) {
    sections.push_back(
        {runtime::SectionKind::Code, code.module + ".ptx", code.ptx});
    if (!assemble)
      continue;
    std::string error;
    FailureOr<std::string> cubin = assemble(code.ptx, meta.target, error);
    if (failed(cubin))
      return module.emitError("assembling the PTX of @")
             << code.module << " for " << meta.target << " failed: " << error;
    cubins.push_back(std::move(*cubin));
    sections.push_back({runtime::SectionKind::Code,
                        code.module + "." + meta.target + ".cubin",
                        cubins.back()});
  }
  sections.push_back(
      {runtime::SectionKind::Plan, runtime::kGPUPlanSection.str(), planText});
  if (!meta.weights.empty())
    sections.push_back(
        {runtime::SectionKind::Weights, "weights", parts->weights});
  runtime::writeEngineFile(meta, sections, os);
  return success();
}

auto ::int21::lowerToGPUHostForm(ModuleOp module,
                                 const ::int21::CompileOptions &options)
    -> FailureOr<runtime::EngineMetadata> {
  if (!options.target.isGPU())
    return module.emitError("the target '")
           << options.target.name() << "' is not a GPU";
  // The engine's inputs and outputs as the model names them; a module
  // already in host form (launches from @main) is taken as it is.
  bool hostForm = false;
  module->walk([&](Operation *op) {
    if (isa<gpu::GPUModuleOp, gpu::BinaryOp>(op))
      hostForm = true;
  });
  runtime::EngineMetadata meta;
  if (!hostForm) {
    FailureOr<runtime::EngineMetadata> described =
        ::int21::describeEntry(module);
    if (failed(described))
      return failure();
    // The GPU plan's buffer sizes are static (GPUPlan.h).
    for (const runtime::TensorSpec &input : described->inputs)
      if (input.isDynamic())
        return module.emitError("input '")
               << input.name << "' has dynamic dimensions: GPU engines take "
               << "static shapes; give them with --input-shape NAME=DIMS";
    // Control flow and random numbers run on the host's side of a CPU
    // engine only.
    Operation *hostOnly = nullptr;
    module->walk([&](Operation *op) {
      // (The imported model: scf ops are an If's, a Loop's or a Scan's.)
      if (isa<RandomOp, scf::IfOp, scf::WhileOp, scf::ForOp>(op) &&
          !op->getParentOfType<FusionGroupOp>()) {
        hostOnly = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (hostOnly)
      return hostOnly->emitError(
          isa<RandomOp>(hostOnly)
              ? "draws random numbers (Dropout in training mode, "
                "RandomUniform, RandomNormal): GPU engines do not yet; "
                "compile for --target=cpu"
              : "is control flow (If, Loop, Scan): GPU engines run none "
                "yet; compile for --target=cpu");
    // Extents the run computes from data (NonZero's count).
    Operation *fromData = nullptr;
    module->walk([&](Operation *op) {
      if (isa<NonZeroOp, UniqueOp, NonMaxSuppressionOp, BoundedExtentOp>(op)) {
        fromData = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (fromData)
      return fromData->emitError(
          "sizes a tensor by its data (NonZero, Compress, Unique): GPU "
          "engines take static shapes; compile for --target=cpu");
    // Inputs of static shape whose values shape an output (Resize's scales
    // read at run time, a Reshape's shape given as data).
    for (const runtime::TensorSpec &output : described->outputs)
      if (output.isDynamic())
        return module.emitError("output '")
               << output.name << "' has a shape computed at run time from "
               << "the values of inputs: GPU engines take static shapes; "
               << "freeze those inputs with --freeze-input NAME=FILE.pb";
    if (failed(::int21::lowerToGPUHost(module, options)))
      return failure();
    meta = std::move(*described);
  }
  meta.target = options.target.name();
  return meta;
}

auto ::int21::compileToGPUEngine(ModuleOp module,
                                 const ::int21::CompileOptions &options,
                                 llvm::raw_ostream &os) -> LogicalResult {
  FailureOr<runtime::EngineMetadata> meta =
      ::int21::lowerToGPUHostForm(module, options);
  if (failed(meta) ||
      failed(::int21::lowerKernelsToPTX(module, options.target.chip())))
    return failure();
  // The cubin travels with the PTX where ptxas is found; the driver
  // compiles the PTX for other chips (or without one).
  auto assemble = [](StringRef code, StringRef chip,
                     std::string &message) -> FailureOr<std::string> {
    llvm::Expected<::int21::PTXAssembly> cubin =
        ::int21::assemblePTX(code, chip);
    if (!cubin) {
      message = llvm::toString(cubin.takeError());
      return failure();
    }
    return cubin->cubin;
  };
  ::int21::AssemblePTXFn assembler;
  if (::int21::findPtxas())
    assembler = assemble;
  return ::int21::writeGPUEngine(module, std::move(*meta), os, assembler);
}

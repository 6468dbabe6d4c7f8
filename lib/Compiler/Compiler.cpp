//===- Compiler.cpp - from an imported model to an engine -----------------===//

#include "int21/Compiler/Compiler.h"
#include "int21/Runtime/EngineSupport.h"
#include "int21/Compiler/ObjectCache.h"
#include "int21/Compiler/ParallelCodegen.h"
#include "int21/Runtime/GPUPlan.h"
#include "int21/Transforms/Schedule.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Dialect/Int21/Int21Ops.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;
using ::int21::runtime::DType;
using ::int21::runtime::EngineMetadata;
using ::int21::runtime::TensorSpec;
namespace runtime = ::int21::runtime;

#ifndef INT21_VERSION
#define INT21_VERSION "0.0.0"
#endif
#ifndef INT21_OPENMP_LIBDIR
#define INT21_OPENMP_LIBDIR "/usr/lib/llvm-22/lib"
#endif

static constexpr size_t kWeightAlign = 64;

#ifndef INT21_ENGINE_LIBS
#define INT21_ENGINE_LIBS ""
#endif
#ifndef INT21_LLD
#define INT21_LLD "/usr/lib/llvm-22/bin/ld.lld"
#endif

auto ::int21::compilerVersion() -> StringRef {
  return "int21 " INT21_VERSION " (LLVM " LLVM_VERSION_STRING ")";
}

auto ::int21::registerCompilerDialects(DialectRegistry &registry) -> void {
  registry.insert<int21::Int21Dialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // The schedule templates, their transform ops and their contract (which
  // checks every #int21.schedule).
  int21::schedule::registerScheduleDialects(registry);
  registerAllToLLVMIRTranslations(registry);
}

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

auto ::int21::engineDType(Type element) -> std::optional<DType> {
  if (element.isF16())
    return DType::F16;
  if (element.isBF16())
    return DType::BF16;
  if (element.isF32())
    return DType::F32;
  if (element.isF64())
    return DType::F64;
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 1:
    return DType::Bool;
  case 8:
    return isUnsigned ? DType::U8 : DType::I8;
  case 16:
    return isUnsigned ? DType::U16 : DType::I16;
  case 32:
    return isUnsigned ? DType::U32 : DType::I32;
  case 64:
    return isUnsigned ? DType::U64 : DType::I64;
  default:
    return std::nullopt;
  }
}

static FailureOr<TensorSpec> specOf(Operation *where, Type type,
                                    DictionaryAttr attrs, StringRef kind,
                                    unsigned index) {
  TensorSpec spec;
  auto name = attrs ? attrs.getAs<StringAttr>("onnx.name") : StringAttr();
  spec.name = name ? name.str() : (kind + "_" + Twine(index)).str();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return where->emitError() << kind << " '" << spec.name
                              << "' is not a ranked tensor: " << type;
  if (!tensor.hasStaticShape()) {
    // The model's names of the dynamic extents (the importer's dim_params).
    auto names = attrs ? attrs.getAs<ArrayAttr>(int21::kDimParamsAttr)
                       : ArrayAttr();
    for (int64_t d = 0; d < tensor.getRank(); ++d) {
      auto name = names && d < (int64_t)names.size()
                      ? dyn_cast<StringAttr>(names[d])
                      : StringAttr();
      spec.dimNames.push_back(tensor.isDynamicDim(d) && name ? name.str()
                                                             : "");
    }
  }
  std::optional<DType> dtype = ::int21::engineDType(tensor.getElementType());
  if (!dtype)
    return where->emitError() << kind << " '" << spec.name
                              << "' has an element type engines do not "
                                 "support: "
                              << tensor.getElementType();
  spec.dtype = *dtype;
  for (int64_t d : tensor.getShape())
    spec.shape.push_back(ShapedType::isDynamic(d) ? TensorSpec::kDynamicExtent
                                                  : d);
  // Set by the importer on an input a node indexes with.
  if (auto bounds = attrs ? attrs.getAs<ArrayAttr>(int21::kIndexBoundsAttr)
                          : ArrayAttr())
    for (auto entry : bounds.getAsRange<DictionaryAttr>()) {
      auto min = entry.getAs<IntegerAttr>("min");
      auto max = entry.getAs<IntegerAttr>("max");
      auto node = entry.getAs<StringAttr>("node");
      if (min && max && node)
        spec.indexBounds.push_back(
            {min.getInt(), max.getInt(), node.getValue().str()});
    }
  return spec;
}

auto ::int21::appendWeight(Operation *at, Attribute value,
                           EngineMetadata &meta, std::string &weights)
    -> FailureOr<uint64_t> {
  auto elements = dyn_cast<ElementsAttr>(value);
  std::optional<std::vector<char>> bytes =
      elements ? int21::getConstantBytes(elements) : std::nullopt;
  std::string name = "weight_" + std::to_string(meta.weights.size());
  if (auto resource = dyn_cast_if_present<DenseResourceElementsAttr>(value))
    name = resource.getRawHandle().getKey().str();
  if (!bytes)
    return at->emitError("weight '") << name << "' has no data to store";
  weights.resize(llvm::alignTo(weights.size(), kWeightAlign), '\0');
  meta.weights.push_back({name, weights.size(), bytes->size()});
  weights.append(bytes->data(), bytes->size());
  return bytes->size();
}

auto ::int21::describeEntry(ModuleOp module) -> FailureOr<EngineMetadata> {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError("the model has no @main function");
  EngineMetadata meta;
  for (unsigned i = 0, e = main.getNumArguments(); i < e; ++i) {
    FailureOr<TensorSpec> spec = specOf(main, main.getArgumentTypes()[i],
                                        main.getArgAttrDict(i), "input", i);
    if (failed(spec))
      return failure();
    meta.inputs.push_back(std::move(*spec));
  }
  for (unsigned i = 0, e = main.getNumResults(); i < e; ++i) {
    // A result with index bounds is an index check, and checks come last.
    DictionaryAttr attrs = main.getResultAttrDict(i);
    bool isCheck = attrs && attrs.get(int21::kIndexBoundsAttr);
    if (!isCheck && !meta.checks.empty())
      return main.emitError("result ")
             << i << " of @main is an output after an index check";
    FailureOr<TensorSpec> spec =
        specOf(main, main.getResultTypes()[i], attrs,
               isCheck ? "check" : "output",
               isCheck ? meta.checks.size() : meta.outputs.size());
    if (failed(spec))
      return failure();
    if (isCheck && spec->shape != std::vector<int64_t>{2})
      return main.emitError("index check ")
             << i << " of @main must have 2 elements (the least and the "
                "greatest index)";
    (isCheck ? meta.checks : meta.outputs).push_back(std::move(*spec));
  }
  for (const std::vector<TensorSpec> *specs : {&meta.inputs, &meta.outputs})
    for (const TensorSpec &spec : *specs)
      for (int64_t d : spec.shape)
        meta.numExtents += d == TensorSpec::kDynamicExtent;
  meta.compilerVersion = compilerVersion().str();
  return meta;
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// Whether `module` still holds int21 ops other than fusion groups (and
/// the extents the lowering leaves for int21-dynamic-signature).
static bool needsLinalgLowering(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        if (isa<int21::FusionGroupOp, int21::YieldOp,
                int21::BoundedExtentOp>(op) ||
            !isa<int21::Int21Dialect>(op->getDialect()))
          return WalkResult::advance();
        return WalkResult::interrupt();
      })
      .wasInterrupted();
}

auto ::int21::lowerToLLVMDialect(ModuleOp module,
                                        const ::int21::CompileOptions &options) -> LogicalResult {
  PassManager pm(module.getContext());
  if (options.timing)
    pm.enableTiming(*options.timing);
  // int21 ops other than fusion groups still need lowering to linalg.
  if (needsLinalgLowering(module))
    int21::buildInt21ToLinalgPipeline(pm,
                                      /*forGPU=*/options.gpuSchedules.has_value());
  // The CPU schedules' register tiles for the target's registers (a module
  // that names its own keeps them).
  if (!options.gpuSchedules)
    annotateVectorModel(module, options.target);
  int21::Int21CPUScheduleOptions scheduleOptions;
  scheduleOptions.knobs = options.knobs;
  scheduleOptions.strict = options.strictSchedules;
  std::optional<int21::Int21GPUScheduleOptions> gpuSchedules;
  if (options.gpuSchedules) {
    if (!options.gpuSchedules->isGPU())
      return module.emitError("the GPU schedules' target '")
             << options.gpuSchedules->name() << "' is not a GPU";
    gpuSchedules.emplace();
    gpuSchedules->chip = options.gpuSchedules->chip().str();
    gpuSchedules->knobs = options.knobs;
    gpuSchedules->strict = options.strictSchedules;
    gpuSchedules->hostCheck = true;
  }
  int21::buildInt21CPUCodegenPipeline(
      pm, options.schedule, scheduleOptions,
      gpuSchedules ? &*gpuSchedules : nullptr);
  return pm.run(module);
}


auto ::int21::lowerToGPUHost(ModuleOp module,
                             const ::int21::CompileOptions &options)
    -> LogicalResult {
  if (!options.target.isGPU())
    return module.emitError("the target '")
           << options.target.name() << "' is not a GPU";
  PassManager pm(module.getContext());
  if (options.timing)
    pm.enableTiming(*options.timing);
  if (needsLinalgLowering(module))
    int21::buildInt21ToLinalgPipeline(pm, /*forGPU=*/true);
  int21::Int21GPUScheduleOptions schedule;
  schedule.chip = options.target.chip().str();
  schedule.knobs = options.knobs;
  schedule.strict = options.strictSchedules;
  int21::buildInt21GPUHostPipeline(pm, options.schedule, schedule);
  return pm.run(module);
}

auto ::int21::lowerKernelsToPTX(ModuleOp module, StringRef chip)
    -> FailureOr<std::string> {
  // A model of views and copies only (a reshape, say) has no kernels: an
  // empty PTX module, which ptxas accepts like any other.
  if (module.getOps<gpu::GPUModuleOp>().empty())
    return ("//\n// int21: the model has no kernels\n//\n\n.version 8.0\n"
            ".target " +
            chip + "\n.address_size 64\n")
        .str();
  PassManager pm(module.getContext());
  int21::buildInt21GPUKernelLoweringPipeline(pm, chip);
  if (failed(pm.run(module)))
    return failure();
  std::string ptx;
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute attr : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attr))
        ptx += object.getObject().getValue().str();
  if (ptx.empty())
    return module.emitError("the model has no kernels to emit as PTX");
  return ptx;
}

/// What LLVM compiles for a CPU `target`: the host CPU's features when it
/// names the host CPU.
static ::int21::CodegenTarget codegenTarget(const ::int21::Target &target,
                                            unsigned optLevel) {
  ::int21::CodegenTarget result;
  result.triple = target.triple().str();
  result.cpu = target.cpu().str();
  if (target.cpu() == llvm::sys::getHostCPUName()) {
    llvm::SubtargetFeatures list;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      list.AddFeature(feature.first(), feature.second);
    result.features = list.getString();
  }
  result.optLevel = optLevel;
  return result;
}

auto ::int21::vectorModelFor(const ::int21::Target &target)
    -> schedule::VectorModel {
  schedule::VectorModel model;
  if (!target.isCPU())
    return model;
  llvm::Triple triple(target.triple());
  if (triple.isAArch64())
    return {128, 32};
  if (!triple.isX86())
    return model;
  // The CPU's features, as LLVM compiles for it (only the native target is
  // registered: another x86 CPU is named on an x86 host).
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      ::int21::createTargetMachine(codegenTarget(target, /*optLevel=*/0), error);
  if (!machine)
    return model;
  const llvm::MCSubtargetInfo *info = machine->getMCSubtargetInfo();
  if (info->checkFeatures("+avx512f"))
    return {512, 32};
  if (info->checkFeatures("+avx"))
    return {256, 16};
  return {128, 16};
}

auto ::int21::annotateVectorModel(ModuleOp module,
                                 const ::int21::Target &target) -> void {
  if (target.isCPU() && !module->hasAttr(schedule::VectorModel::kAttrName))
    vectorModelFor(target).annotate(module);
}

static std::unique_ptr<llvm::TargetMachine>
targetMachineFor(ModuleOp module, const ::int21::Target &target,
                 unsigned optLevel) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine = ::int21::createTargetMachine(
      codegenTarget(target, optLevel), error);
  if (!machine)
    module.emitError(error);
  return machine;
}

/// The module lowered by lowerToLLVMDialect as LLVM IR for the target, not
/// yet optimised, its kernels marked for the split (see translateToLLVMIR).
static std::unique_ptr<llvm::Module>
translateUnoptimized(ModuleOp module, llvm::LLVMContext &llvmContext,
                     const ::int21::CompileOptions &options,
                     EngineMetadata &meta, std::string &weights) {
  MLIRContext *ctx = module.getContext();
  auto main = module.lookupSymbol<LLVM::LLVMFuncOp>("main");
  if (!main) {
    module.emitError("the lowered module has no llvm.func @main");
    return nullptr;
  }
  // @main's arguments: inputs, weights (marked int21.weight), outputs.
  unsigned numArgs = main.getNumArguments();
  size_t numIn = meta.inputs.size(), numOut = meta.numResultBuffers();
  // The extents array, when there is one, comes last; the workspace before.
  meta.workspaceSize = 0;
  unsigned numAll = numArgs;
  if (meta.numExtents) {
    auto extents = numArgs ? main.getArgAttrOfType<IntegerAttr>(
                                 numArgs - 1, "int21.extents")
                           : IntegerAttr();
    if (!extents || uint64_t(extents.getInt()) != meta.numExtents ||
        !module.lookupSymbol<LLVM::LLVMFuncOp>("int21_shapes")) {
      main.emitError("@main takes no array of ")
          << meta.numExtents << " dynamic extents, or the module has no "
          << "@int21_shapes";
      return nullptr;
    }
    --numArgs;
  }
  if (numArgs > 0) {
    if (auto workspace = main.getArgAttrOfType<IntegerAttr>(numArgs - 1,
                                                            "int21.workspace")) {
      meta.workspaceSize = workspace.getInt();
      --numArgs;
    }
  }
  meta.weights.clear();
  weights.clear();
  for (unsigned i = 0; i < numArgs; ++i) {
    Attribute value = main.getArgAttr(i, "int21.weight");
    bool isWeight = static_cast<bool>(value);
    bool expectWeight = i >= numIn && i < numArgs - numOut;
    if (isWeight != expectWeight) {
      main.emitError("argument ") << i << " of @main is not where an "
                                  << (isWeight ? "input or output" : "weight")
                                  << " belongs";
      return nullptr;
    }
    if (!isWeight)
      continue;
    if (failed(::int21::appendWeight(main, value, meta, weights)))
      return nullptr;
  }
  if (numArgs != numIn + numOut + meta.weights.size()) {
    main.emitError("@main has ") << numArgs << " arguments, expected "
                                 << numIn << " inputs, " << meta.weights.size()
                                 << " weights and " << numOut << " outputs";
    return nullptr;
  }
  // The data now lives in `weights`; drop it (and names) from the IR.
  for (unsigned i = 0; i < numAll; ++i)
    main.setArgAttrs(i, DictionaryAttr::get(ctx, {}));
  // The messages of the shape function's checks (int21-dynamic-signature).
  if (auto checks = module->getAttrOfType<ArrayAttr>("int21.extent_checks"))
    for (auto message : checks.getAsRange<StringAttr>())
      meta.extentChecks.push_back(message.str());
  // The inputs whose values the shape function reads (@main's arguments).
  if (auto read = module->getAttrOfType<ArrayAttr>(
          "int21.shape_value_arguments"))
    for (auto index : read.getAsRange<IntegerAttr>()) {
      if (uint64_t(index.getInt()) >= numIn) {
        module.emitError("@int21_shapes reads the values of argument ")
            << index.getInt() << ", which is no input";
        return nullptr;
      }
      meta.shapeValueInputs.push_back(meta.inputs[index.getInt()].name);
    }
  // The output extents the run computes from data: slots of the extents
  // array (the inputs' dynamic extents, then the outputs').
  if (auto slots = module->getAttrOfType<ArrayAttr>("int21.data_extents")) {
    SmallVector<std::pair<size_t, int64_t>> dims;
    size_t inputSlots = 0;
    for (const TensorSpec &spec : meta.inputs)
      for (int64_t d : spec.shape)
        inputSlots += d == TensorSpec::kDynamicExtent;
    for (size_t o = 0; o < meta.outputs.size(); ++o)
      for (auto [d, extent] : llvm::enumerate(meta.outputs[o].shape))
        if (extent == TensorSpec::kDynamicExtent)
          dims.push_back({o, (int64_t)d});
    for (auto slot : slots.getAsRange<IntegerAttr>()) {
      int64_t k = slot.getInt() - (int64_t)inputSlots;
      if (k < 0 || k >= (int64_t)dims.size()) {
        module.emitError("extent slot ")
            << slot.getInt() << " computed from data is no output's";
        return nullptr;
      }
      meta.outputs[dims[k].first].dataDims.push_back(dims[k].second);
    }
    for (TensorSpec &spec : meta.outputs)
      llvm::sort(spec.dataDims);
  }
  // The outputs the run sizes and allocates (@main's arguments).
  if (auto args =
          module->getAttrOfType<ArrayAttr>("int21.run_sized_arguments"))
    for (auto arg : args.getAsRange<IntegerAttr>()) {
      int64_t k = arg.getInt() - int64_t(numIn + meta.weights.size());
      if (k < 0 || k >= (int64_t)meta.outputs.size()) {
        module.emitError("argument ")
            << arg.getInt() << " of @main, sized by the run, is no output";
        return nullptr;
      }
      meta.outputs[k].sizedByRun = true;
    }
  for (NamedAttribute attr : llvm::to_vector(module->getDiscardableAttrs()))
    if (!attr.getName().strref().starts_with("llvm.") &&
        !attr.getName().strref().starts_with("dlti."))
      module->removeAttr(attr.getName());

  std::unique_ptr<llvm::TargetMachine> machine =
      targetMachineFor(module, options.target, options.optLevel);
  if (!machine)
    return nullptr;

  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  ctx->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "int21");
  if (!llvmModule) {
    module.emitError("translation to LLVM IR failed");
    return nullptr;
  }
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  // The code's calling contract, which the loader holds the metadata to.
  llvm::Constant *abi = llvm::ConstantDataArray::getString(
      llvmContext, runtime::abiDescriptor(meta), /*AddNull=*/true);
  new llvm::GlobalVariable(*llvmModule, abi->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, abi,
                           runtime::kABISymbol);
  ::int21::markKernels(*llvmModule);
  return llvmModule;
}

auto ::int21::translateToLLVMIR(ModuleOp module,
                                llvm::LLVMContext &llvmContext,
                                const ::int21::CompileOptions &options,
                                EngineMetadata &meta, std::string &weights)
    -> std::unique_ptr<llvm::Module> {
  std::unique_ptr<llvm::Module> llvmModule =
      translateUnoptimized(module, llvmContext, options, meta, weights);
  if (!llvmModule)
    return nullptr;
  std::unique_ptr<llvm::TargetMachine> machine =
      targetMachineFor(module, options.target, options.optLevel);
  if (!machine)
    return nullptr;
  auto optimize = makeOptimizingTransformer(options.optLevel, 0, machine.get());
  if (llvm::Error error = optimize(llvmModule.get())) {
    module.emitError("LLVM optimisation failed: ")
        << llvm::toString(std::move(error));
    return nullptr;
  }
  return llvmModule;
}

//===----------------------------------------------------------------------===//
// Object code and engine
//===----------------------------------------------------------------------===//

/// Links `objects` and the engine support code into a shared object with
/// LLVM's ELF linker (INT21_LLD), found when int21 was built: no C compiler is
/// run and none needs to be on PATH. The engine needs the C runtime
/// (INT21_ENGINE_LIBS, also found then) and, for parallel code, libomp.
///
/// LLD runs as a process of its own, not as a library in this one: its driver
/// resets every llvm::cl option of the process it runs in
/// (cl::ResetAllOptionOccurrences), the options of the tool that compiles.
static FailureOr<std::string> linkSharedObject(ModuleOp module,
                                               ArrayRef<std::string> objects,
                                               bool needsOpenMP) {
  StringRef linker = INT21_LLD;
  if (!llvm::sys::fs::can_execute(linker)) {
    module.emitError("cannot run the linker ")
        << linker << " (LLVM 22's ld.lld, Debian package lld-22)";
    return failure();
  }
  // Fixed names in a fresh directory, removed with everything in it.
  SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("int21-link", dir)) {
    module.emitError("cannot create a temporary directory: ") << ec.message();
    return failure();
  }
  struct DirRemover {
    SmallString<128> path;
    ~DirRemover() { llvm::sys::fs::remove_directories(path); }
  } removeDir{dir};
  auto inDir = [&](const Twine &name) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    return path.str().str();
  };
  std::string libraryPath = inDir("int21-engine.so"),
              logPath = inDir("link.log");
  // As the C compiler driver links a shared object, and -z defs: a symbol no
  // library defines is an error here, not when the engine is loaded. One
  // thread: the inputs are few and small.
  SmallVector<std::string> args = {
      linker.str(),       "-shared",     "--build-id", "--eh-frame-hdr",
      "--hash-style=gnu", "--as-needed", "-z",         "defs",
      "--threads=1",      "-o",          libraryPath};
  auto addInput = [&](const std::string &path, StringRef bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec) {
      os << bytes;
      os.close();
      ec = os.error();
    }
    if (ec) {
      module.emitError("cannot write ") << path << ": " << ec.message();
      return failure();
    }
    args.push_back(path);
    return success();
  };
  for (auto [i, object] : llvm::enumerate(objects))
    if (failed(addInput(inDir("int21-engine-" + Twine(i) + ".o"), object)))
      return failure();
  if (failed(
          addInput(inDir("int21-support.o"), runtime::engineSupportObject())))
    return failure();
  if (needsOpenMP) {
    std::string ompDir = INT21_OPENMP_LIBDIR;
    args.append({"-rpath", ompDir, "-L" + ompDir, "-lomp"});
  }
  SmallVector<StringRef> libraries;
  StringRef(INT21_ENGINE_LIBS).split(libraries, ':', -1, /*KeepEmpty=*/false);
  for (StringRef library : libraries)
    args.push_back(library.str());

  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(linker, argRefs, std::nullopt, redirects,
                                     /*SecondsToWait=*/120, 0, &error);
  if (rc != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
      log = (*buffer)->getBuffer().trim().str();
    std::replace(log.begin(), log.end(), '\n', ' ');
    module.emitError("linking the engine's code failed: ")
        << (error.empty() ? log : error + " " + log);
    return failure();
  }
  auto library = llvm::MemoryBuffer::getFile(libraryPath, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
  if (!library) {
    module.emitError("cannot read the linked code: ")
        << library.getError().message();
    return failure();
  }
  return (*library)->getBuffer().str();
}

auto ::int21::compileToCode(ModuleOp module,
                            const ::int21::CompileOptions &options)
    -> FailureOr<EngineCode> {
  if (!options.target.isCPU())
    return module.emitError("the target '")
           << options.target.name() << "' is not a CPU";
  FailureOr<EngineMetadata> meta = describeEntry(module);
  if (failed(meta))
    return failure();
  meta->target = options.target.name();
  if (failed(lowerToLLVMDialect(module, options)))
    return failure();

  std::optional<TimingScope> timer;
  if (options.timing)
    timer = options.timing->nest(StringRef("LLVM"));
  llvm::LLVMContext llvmContext;
  EngineCode result;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    std::optional<TimingScope> translateTimer;
    if (timer)
      translateTimer = timer->nest(StringRef("translate to LLVM IR"));
    llvmModule = translateUnoptimized(module, llvmContext, options, *meta,
                                      result.weights);
  }
  if (!llvmModule)
    return failure();
  bool needsOpenMP = llvmModule->getFunction("__kmpc_fork_call") != nullptr;

  // Every kernel optimised and compiled on its own, in parallel, through the
  // object cache.
  std::optional<::int21::ObjectCache> cache;
  if (options.objectCache) {
    std::optional<std::string> dir =
        options.objectCacheDir.empty() ? ::int21::ObjectCache::defaultDirectory()
                                       : options.objectCacheDir;
    if (dir)
      cache.emplace(*dir);
  }
  ::int21::CodegenOptions codegen;
  codegen.target = codegenTarget(options.target, options.optLevel);
  codegen.threads = options.codegenThreads;
  codegen.cache = cache ? &*cache : nullptr;
  codegen.timing = timer ? &*timer : nullptr;
  llvm::Expected<::int21::CodegenResult> objects =
      ::int21::compileInParts(*llvmModule, codegen);
  if (!objects)
    return module.emitError(llvm::toString(objects.takeError()));
  if (cache)
    cache->prune();
  std::optional<TimingScope> linkTimer;
  if (timer)
    linkTimer = timer->nest(StringRef("link"));
  FailureOr<std::string> library =
      linkSharedObject(module, objects->objects, needsOpenMP);
  if (failed(library))
    return failure();
  result.metadata = std::move(*meta);
  result.library = std::move(*library);
  return result;
}

void ::int21::writeEngine(const EngineCode &generic,
                          ArrayRef<EngineCode> specialized,
                          llvm::raw_ostream &os) {
  EngineMetadata meta = generic.metadata;
  std::string weights = generic.weights;
  // A specialisation's weights go into the one weights section, sharing the
  // bytes of any weight already there (most are: the same model's weights
  // at other shapes).
  // Offsets of the weights placed so far, by the hash of their bytes.
  llvm::DenseMap<uint64_t, SmallVector<std::pair<uint64_t, uint64_t>, 1>>
      placed;
  auto find = [&](StringRef bytes) -> std::optional<uint64_t> {
    auto it = placed.find(llvm::xxh3_64bits(bytes));
    if (it != placed.end())
      for (auto [offset, size] : it->second)
        if (StringRef(weights).substr(offset, size) == bytes)
          return offset;
    return std::nullopt;
  };
  auto place = [&](StringRef bytes, uint64_t offset) {
    placed[llvm::xxh3_64bits(bytes)].push_back({offset, bytes.size()});
  };
  for (const runtime::WeightSpec &weight : meta.weights)
    place(StringRef(weights).substr(weight.offset, weight.size),
          weight.offset);
  std::vector<std::string> names;
  for (auto [i, special] : llvm::enumerate(specialized)) {
    runtime::EngineSpecialization entry;
    entry.code = "cpu." + std::to_string(i + 1) + ".so";
    entry.metadata = special.metadata;
    entry.metadata.target.clear();
    entry.metadata.compilerVersion.clear();
    for (runtime::WeightSpec &weight : entry.metadata.weights) {
      StringRef bytes =
          StringRef(special.weights).substr(weight.offset, weight.size);
      if (std::optional<uint64_t> offset = find(bytes)) {
        weight.offset = *offset;
        continue;
      }
      weights.resize(llvm::alignTo(weights.size(), kWeightAlign), '\0');
      weight.offset = weights.size();
      weights.append(bytes.data(), bytes.size());
      place(bytes, weight.offset);
    }
    names.push_back(entry.code);
    meta.specializations.push_back(std::move(entry));
  }
  std::vector<runtime::Section> sections = {
      {runtime::SectionKind::Code, "cpu.so", generic.library}};
  for (auto [name, special] : llvm::zip(names, specialized))
    sections.push_back({runtime::SectionKind::Code, name, special.library});
  if (!weights.empty())
    sections.push_back({runtime::SectionKind::Weights, "weights", weights});
  runtime::writeEngineFile(meta, sections, os);
}

auto ::int21::compileToEngine(ModuleOp module,
                              const ::int21::CompileOptions &options,
                              llvm::raw_ostream &os) -> LogicalResult {
  FailureOr<EngineCode> code = compileToCode(module, options);
  if (failed(code))
    return failure();
  writeEngine(*code, {}, os);
  return success();
}

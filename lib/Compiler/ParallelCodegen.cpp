//===- ParallelCodegen.cpp - LLVM on an engine's kernels, in parallel ------===//

#include "int21/Compiler/ParallelCodegen.h"
#include "int21/Compiler/Compiler.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <mutex>

using namespace int21;
using llvm::Constant;
using llvm::Function;
using llvm::GlobalValue;
using llvm::GlobalVariable;
using llvm::Module;
using llvm::SmallString;
using llvm::SmallVector;
using llvm::StringRef;

namespace {
/// The names int21-outline-kernels gives kernels.
constexpr StringRef kKernelPrefix = "int21_kernel_";
/// Part of every cache key: changed whenever the way a part is optimised or
/// compiled changes, so that objects made the old way are not reused.
constexpr StringRef kCodegenRecipe = "int21 parts v1";

/// A kernel int21-outline-kernels made, not a function the translation
/// outlined from one (`int21_kernel_<hash>..omp_par`, internal).
bool isKernel(const Function &function) {
  StringRef name = function.getName();
  return !function.isDeclaration() && name.starts_with(kKernelPrefix) &&
         !name.contains('.');
}

/// The local (internal, private) globals a kernel uses, transitively, in the
/// order of first use in its body: the definitions its part holds besides
/// the kernel. Constants and functions may be copied into several parts; a
/// mutable variable may not (collect fails).
class LocalUses {
public:
  bool collect(const Function &root) { return visitBody(root); }
  llvm::SetVector<const GlobalValue *> locals;

private:
  llvm::DenseSet<const Constant *> seen;

  bool visitBody(const Function &function) {
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &inst : block)
        for (const llvm::Value *operand : inst.operands())
          if (!visit(operand))
            return false;
    return true;
  }

  bool visit(const llvm::Value *value) {
    auto *constant = llvm::dyn_cast<Constant>(value);
    if (!constant)
      return true;
    if (auto *global = llvm::dyn_cast<GlobalValue>(constant)) {
      if (!global->hasLocalLinkage() || global->isDeclaration())
        return true;
      if (auto *variable = llvm::dyn_cast<GlobalVariable>(global)) {
        if (!variable->isConstant())
          return false;
        if (!locals.insert(global))
          return true;
        return !variable->hasInitializer() ||
               visit(variable->getInitializer());
      }
      if (auto *function = llvm::dyn_cast<Function>(global)) {
        if (!locals.insert(global))
          return true;
        return visitBody(*function);
      }
      return false; // An alias or ifunc: not worth copying.
    }
    if (!seen.insert(constant).second)
      return true;
    for (const llvm::Value *operand : constant->operands())
      if (!visit(operand))
        return false;
    return true;
  }
};

/// Erases the declarations nothing in `module` uses any more.
void eraseUnusedDeclarations(Module &module) {
  for (Function &function : llvm::make_early_inc_range(module.functions())) {
    function.removeDeadConstantUsers();
    if (function.isDeclaration() && function.use_empty())
      function.eraseFromParent();
  }
  for (GlobalVariable &variable :
       llvm::make_early_inc_range(module.globals())) {
    variable.removeDeadConstantUsers();
    if (variable.isDeclaration() && variable.use_empty())
      variable.eraseFromParent();
  }
}

/// Makes a kernel's part the same module in every model the kernel is in:
/// its local globals named after the kernel in the order of use (the names
/// the translation gave them, `..omp_par.17` say, count through the whole
/// model), the definitions in that order, then the declarations by name.
void canonicalize(Module &part, Function &root,
                  llvm::ArrayRef<GlobalValue *> locals) {
  SmallVector<Function *> functions = {&root};
  SmallVector<GlobalVariable *> variables;
  for (auto [index, global] : llvm::enumerate(locals)) {
    global->setName(root.getName() + ".l" + llvm::Twine(index));
    if (auto *function = llvm::dyn_cast<Function>(global))
      functions.push_back(function);
    else
      variables.push_back(llvm::cast<GlobalVariable>(global));
  }
  SmallVector<Function *> declared;
  for (Function &function : part.functions())
    if (function.isDeclaration())
      declared.push_back(&function);
  SmallVector<GlobalVariable *> declaredVariables;
  for (GlobalVariable &variable : part.globals())
    if (variable.isDeclaration())
      declaredVariables.push_back(&variable);
  auto byName = [](const GlobalValue *a, const GlobalValue *b) {
    return a->getName() < b->getName();
  };
  llvm::sort(declared, byName);
  llvm::sort(declaredVariables, byName);
  functions.append(declared.begin(), declared.end());
  variables.append(declaredVariables.begin(), declaredVariables.end());
  for (Function *function : functions)
    part.getFunctionList().remove(function);
  for (Function *function : functions)
    part.getFunctionList().push_back(function);
  for (GlobalVariable *variable : variables)
    part.removeGlobalVariable(variable);
  for (GlobalVariable *variable : variables)
    part.insertGlobalVariable(variable);
}

struct Part {
  std::string name;
  SmallVector<char, 0> bitcode;
  std::string key;
};

/// Optimises and compiles one part, in a context of its own.
llvm::Expected<std::string> compilePart(const Part &part,
                                        const CodegenTarget &target) {
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<Module>> module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(StringRef(part.bitcode.data(), part.bitcode.size()),
                            part.name),
      context);
  if (!module)
    return module.takeError();
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(target, error);
  if (!machine)
    return llvm::createStringError(error);
  auto optimize =
      mlir::makeOptimizingTransformer(target.optLevel, 0, machine.get());
  if (llvm::Error failed = optimize(module->get()))
    return llvm::createStringError("LLVM optimisation of " + part.name +
                                   " failed: " +
                                   llvm::toString(std::move(failed)));
  SmallString<0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the LLVM target cannot emit object files");
  pm.run(**module);
  return std::string(object.str());
}
} // namespace

std::unique_ptr<llvm::TargetMachine>
int21::createTargetMachine(const CodegenTarget &target, std::string &error) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget) {
    error = "no LLVM target for '" + target.triple + "': " + error;
    return nullptr;
  }
  unsigned optLevel = target.optLevel;
  llvm::CodeGenOptLevel level =
      optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
      : optLevel == 2 ? llvm::CodeGenOptLevel::Default
      : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                      : llvm::CodeGenOptLevel::None;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.cpu, target.features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, level));
  if (!machine)
    error = "cannot create an LLVM target machine for '" + target.triple +
            "' (" + target.cpu + ")";
  return machine;
}

void int21::markKernels(Module &module) {
  for (Function &function : module.functions()) {
    if (!isKernel(function))
      continue;
    function.setLinkage(GlobalValue::ExternalLinkage);
    function.setVisibility(GlobalValue::HiddenVisibility);
    function.setDSOLocal(true);
    function.addFnAttr(llvm::Attribute::NoInline);
  }
}

llvm::Expected<CodegenResult>
int21::compileInParts(const Module &module, const CodegenOptions &options) {
  std::optional<mlir::TimingScope> splitTimer;
  if (options.timing)
    splitTimer = options.timing->nest(StringRef("split into parts"));
  // The kernels that get a part of their own, with their local globals.
  SmallVector<const Function *> kernels;
  SmallVector<llvm::SetVector<const GlobalValue *>> kernelLocals;
  llvm::DenseSet<const GlobalValue *> split;
  for (const Function &function : module.functions()) {
    if (!isKernel(function))
      continue;
    LocalUses uses;
    if (!uses.collect(function))
      continue;
    kernels.push_back(&function);
    kernelLocals.push_back(std::move(uses.locals));
    split.insert(&function);
  }

  std::vector<Part> parts;
  auto addPart = [&](std::unique_ptr<Module> part, StringRef name) {
    part->setModuleIdentifier(name);
    part->setSourceFileName(name);
    Part &entry = parts.emplace_back();
    entry.name = name.str();
    llvm::raw_svector_ostream os(entry.bitcode);
    llvm::WriteBitcodeToFile(*part, os);
  };
  {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<Module> rest =
        llvm::CloneModule(module, map, [&](const GlobalValue *global) {
          return !split.contains(global);
        });
    eraseUnusedDeclarations(*rest);
    addPart(std::move(rest), "int21");
  }
  for (auto [kernel, locals] : llvm::zip(kernels, kernelLocals)) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<Module> part =
        llvm::CloneModule(module, map, [&](const GlobalValue *global) {
          return global == kernel || locals.contains(global);
        });
    eraseUnusedDeclarations(*part);
    SmallVector<GlobalValue *> cloned;
    for (const GlobalValue *local : locals)
      cloned.push_back(llvm::cast<GlobalValue>(map[local]));
    canonicalize(*part, *llvm::cast<Function>(map[kernel]), cloned);
    addPart(std::move(part), kernel->getName());
  }

  const CodegenTarget &target = options.target;
  std::string optLevel = "O" + std::to_string(target.optLevel);
  StringRef context[] = {target.triple,  target.cpu,  target.features,
                         optLevel,       kCodegenRecipe,
                         compilerVersion()};
  CodegenResult result;
  result.parts = parts.size();
  result.objects.resize(parts.size());
  std::vector<size_t> misses;
  for (auto [index, part] : llvm::enumerate(parts)) {
    if (options.cache) {
      part.key = ObjectCache::key(part.bitcode, context);
      if (std::optional<std::string> object = options.cache->lookup(part.key)) {
        result.objects[index] = std::move(*object);
        ++result.cached;
        continue;
      }
    }
    misses.push_back(index);
  }
  splitTimer.reset();
  std::optional<mlir::TimingScope> compileTimer;
  if (options.timing)
    compileTimer = options.timing->nest(
        ("optimise and emit " + llvm::Twine(misses.size()) + " of " +
         llvm::Twine(parts.size()) + " parts (" + llvm::Twine(result.cached) +
         " from the object cache)")
            .str());
  // The biggest parts first, for the threads to finish together.
  llvm::stable_sort(misses, [&](size_t a, size_t b) {
    return parts[a].bitcode.size() > parts[b].bitcode.size();
  });
  std::vector<std::string> errors(parts.size());
  auto compile = [&](size_t index) {
    llvm::Expected<std::string> object = compilePart(parts[index], target);
    if (!object) {
      errors[index] = llvm::toString(object.takeError());
      return;
    }
    result.objects[index] = std::move(*object);
    // A cache that cannot be written costs a recompile later, nothing more.
    std::string ignored;
    if (options.cache)
      options.cache->store(parts[index].key, result.objects[index], ignored);
  };
  if (misses.size() > 1) {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(options.threads));
    for (size_t index : misses)
      pool.async([&compile, index] { compile(index); });
    pool.wait();
  } else {
    for (size_t index : misses)
      compile(index);
  }
  for (const std::string &error : errors)
    if (!error.empty())
      return llvm::createStringError(error);
  return result;
}

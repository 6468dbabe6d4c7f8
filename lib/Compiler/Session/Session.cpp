//===- Session.cpp - one compile, from a model to an engine ---------------===//

#include "int21/Compiler/Session.h"

#include "int21/AgentSearch/Library.h"
#include "int21/AgentSearch/Worker.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Compiler/Diagnostics.h"
#include "int21/Compiler/GPUEngine.h"
#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Import/OnnxImporter.h"
#include "int21/Support/ParserGuard.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace int21;
using llvm::StringRef;
using mlir::DialectRegistry;
using mlir::Diagnostic;
using mlir::DiagnosticSeverity;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::OwningOpRef;
using mlir::ParserConfig;
using mlir::PassManager;
using mlir::ScopedDiagnosticHandler;
using mlir::success;
using mlir::SmallVector;
using mlir::TimingScope;

InputFormat int21::inputFormatOf(StringRef path) {
  if (path.ends_with(".onnxtext"))
    return InputFormat::OnnxText;
  if (path.ends_with(".mlir"))
    return InputFormat::MLIR;
  return InputFormat::Onnx;
}

/// The session's diagnostic handler: every error diagnostic is reported as
/// one line.
struct CompileSession::Handler {
  Handler(CompileSession &session)
      : scoped(session.ctx.get(), [&session](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error)
            session.reportError(formatDiagnostic(diag));
          return success();
        }) {}
  ScopedDiagnosticHandler scoped;
};

CompileSession::CompileSession(SessionOptions options)
    : opts(std::move(options)) {
  DialectRegistry registry;
  registerCompilerDialects(registry);
  ctx = std::make_unique<MLIRContext>(registry);
  ctx->loadDialect<int21::Int21Dialect, mlir::func::FuncDialect>();
  handler = std::make_unique<Handler>(*this);
}

CompileSession::~CompileSession() = default;

llvm::Expected<std::unique_ptr<CompileSession>>
CompileSession::create(SessionOptions options) {
  const CompileOptions &codegen = options.codegen;
  if (options.tune) {
    if (!codegen.target.isCPU())
      return llvm::createStringError(
          "a search tunes CPU schedules only (the target is " +
          codegen.target.name() + ")");
    if (!codegen.schedule)
      return llvm::createStringError(
          "a search and the reference lowering (no schedule) exclude each "
          "other");
  }
  if (codegen.gpuSchedules &&
      (!codegen.gpuSchedules->isGPU() || !codegen.target.isCPU()))
    return llvm::createStringError(
        "the GPU schedules are checked on a CPU target, with a GPU chip");
  if (!options.scheduleLibraryPath.empty() &&
      (options.tune || !codegen.schedule ||
       !options.knowledgeBasePath.empty()))
    return llvm::createStringError(
        "a schedule library excludes a search, a knowledge base and the "
        "reference lowering");

  std::unique_ptr<CompileSession> session(
      new CompileSession(std::move(options)));
  SessionOptions &opts = session->opts;
  if (opts.tune)
    opts.tune->target = opts.codegen.target;
  if (!opts.scheduleLibraryPath.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(opts.scheduleLibraryPath);
    if (!buffer)
      return llvm::createStringError("cannot read the schedule library '" +
                                     opts.scheduleLibraryPath +
                                     "': " + buffer.getError().message());
    session->library = std::move(*buffer);
  }
  // The knowledge base: opened (created) for a search; otherwise read, when
  // it exists, for CPU engines with the default schedules.
  bool applies = opts.tune ||
                 (!session->library && opts.codegen.schedule &&
                  !opts.codegen.strictSchedules && opts.codegen.target.isCPU());
  if (opts.useKnowledgeBase && applies) {
    auto opened = search::KnowledgeBase::openForCompile(
        opts.knowledgeBasePath, opts.tune.has_value());
    if (!opened)
      return opened.takeError();
    session->kb = std::move(*opened);
  }
  if (opts.tune)
    opts.tune->knowledgeBase = session->kb.get();
  return session;
}

void CompileSession::reportError(const std::string &message) {
  ++errorCount;
  if (opts.onError)
    opts.onError(message);
  else
    reported.push_back(message);
}

void CompileSession::reportError(llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  if (errorCount == stepErrors)
    reportError(message);
}

FailureOr<OwningOpRef<ModuleOp>>
CompileSession::importModel(llvm::MemoryBufferRef input, InputFormat format) {
  stepErrors = errorCount;
  TimingScope timer;
  if (opts.codegen.timing)
    timer = opts.codegen.timing->nest(StringRef("import"));
  FailureOr<OwningOpRef<ModuleOp>> module = failure();
  if (format == InputFormat::MLIR) {
    ParserConfig config(ctx.get());
    if (std::optional<ParserCrash> crash =
            findKnownParserCrash(input.getBuffer()))
      mlir::emitError(mlir::FileLineColLoc::get(ctx.get(),
                                                input.getBufferIdentifier(),
                                                crash->line, crash->column))
          << crash->what;
    else if (OwningOpRef<ModuleOp> parsed = mlir::parseSourceString<ModuleOp>(
                 input.getBuffer(), config, input.getBufferIdentifier()))
      module = std::move(parsed);
  } else {
    int21::OnnxImportOptions options;
    options.weightData = opts.weightData;
    for (const auto &[name, shape] : opts.inputShapes)
      options.inputShapes[name] =
          SmallVector<int64_t>(shape.begin(), shape.end());
    for (const auto &[name, tensor] : opts.frozenInputs)
      options.frozenInputs[name] = tensor;
    options.timing = &timer;
    module = int21::importOnnxModel(*ctx, input,
                                          input.getBufferIdentifier(),
                                          format == InputFormat::OnnxText,
                                          options);
  }
  if (failed(module) && errorCount == stepErrors)
    reportError(input.getBufferIdentifier().str() + ": import failed");
  return module;
}

FailureOr<OwningOpRef<ModuleOp>>
CompileSession::importFile(StringRef path) {
  stepErrors = errorCount;
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) {
    reportError("cannot read '" + path.str() +
                "': " + buffer.getError().message());
    return failure();
  }
  return importModel((*buffer)->getMemBufferRef(), inputFormatOf(path));
}

FailureOr<ScheduleSummary> CompileSession::schedule(ModuleOp module,
                                                    InputFormat format) {
  stepErrors = errorCount;
  ScheduleSummary summary;
  // The default schedules, the knowledge base's and the search's spaces
  // all for the target's vector registers.
  annotateVectorModel(module, target());
  if (library) {
    llvm::Expected<unsigned> scheduled = [&]() -> llvm::Expected<unsigned> {
      if (llvm::Error error = search::lowerForScheduling(module))
        return std::move(error);
      return search::applyLibrary(module, library->getBuffer(),
                                  opts.scheduleLibraryPath);
    }();
    if (!scheduled) {
      reportError(scheduled.takeError());
      return failure();
    }
    summary.source = ScheduleSummary::Source::Library;
    summary.groups = *scheduled;
    return summary;
  }
  // A search times kernels at their shapes: the generic code of a dynamic
  // model (kernels of sizes only a run knows) keeps its default schedules,
  // the code specialised for a profile's shapes is searched.
  if (opts.tune) {
    FailureOr<runtime::EngineMetadata> entry = describeEntry(module);
    summary.searchSkippedDynamic = succeeded(entry) && entry->isDynamic();
  }
  if (opts.tune && !summary.searchSkippedDynamic) {
    llvm::raw_null_ostream nowhere;
    llvm::Expected<search::TuneResult> result = search::tuneAndApply(
        module, *opts.tune, opts.progress ? *opts.progress : nowhere);
    if (!result) {
      std::string message = llvm::toString(result.takeError());
      if (!search::searchInterruption() && errorCount == stepErrors)
        reportError(message);
      return failure();
    }
    summary.source = ScheduleSummary::Source::Search;
    summary.tuned = std::move(*result);
    return summary;
  }
  // A kernel module (.mlir) keeps the schedules it has.
  if (kb && format != InputFormat::MLIR) {
    llvm::Expected<search::KnowledgeApplied> applied = search::applyKnowledge(
        module, *kb, target().name(), opts.threads);
    if (!applied) {
      reportError(applied.takeError());
      return failure();
    }
    summary.source = ScheduleSummary::Source::KnowledgeBase;
    summary.kernels = applied->kernels;
    summary.scheduled = applied->scheduled;
    summary.threads = applied->threads;
  }
  return summary;
}

llvm::Error int21::parseShapeProfile(StringRef spec, SessionOptions &options) {
  auto bad = [&](const Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--shape-profile: " + why);
  };
  auto [name, bounds] = spec.rsplit('=');
  SmallVector<StringRef> parts;
  bounds.split(parts, ':');
  if (name.empty() || !spec.contains('=') || parts.size() != 3)
    return bad("expected NAME=MIN:OPT:MAX (e.g. "
               "x=1x3x64x64:1x3x224x224:8x3x512x512), got '" +
               spec + "'");
  SessionOptions::ShapeProfile profile;
  std::vector<int64_t> *shapes[] = {&profile.min, &profile.opt, &profile.max};
  for (auto [part, shape] : llvm::zip(parts, shapes)) {
    std::string error;
    auto parsed = parseInputShapeSpec((name + "=" + part).str(), error);
    if (failed(parsed))
      return bad(error);
    shape->assign(parsed->second.begin(), parsed->second.end());
  }
  if (profile.min.size() != profile.opt.size() ||
      profile.opt.size() != profile.max.size())
    return bad("the shapes of '" + spec + "' have different ranks");
  if (!options.shapeProfiles.try_emplace(name.str(), profile).second)
    return bad("input '" + name + "' has two profiles");
  return llvm::Error::success();
}

llvm::Error int21::parseShapeBucket(StringRef spec, SessionOptions &options) {
  std::map<std::string, std::vector<int64_t>> bucket;
  SmallVector<StringRef> parts;
  spec.split(parts, ',');
  for (StringRef part : parts) {
    std::string error;
    auto parsed = parseInputShapeSpec(part, error);
    if (failed(parsed) ||
        !bucket.try_emplace(parsed->first, parsed->second.begin(),
                            parsed->second.end())
             .second)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--shape-bucket: " +
              (failed(parsed) ? error
                              : "input '" + parsed->first +
                                    "' has two shapes in '" + spec.str() +
                                    "'"));
  }
  options.shapeBuckets.push_back(std::move(bucket));
  return llvm::Error::success();
}

FailureOr<std::vector<std::map<std::string, std::vector<int64_t>>>>
CompileSession::specializationShapes(const runtime::EngineMetadata &meta) {
  using Shapes = std::map<std::string, std::vector<int64_t>>;
  auto fail = [&](const std::string &message) {
    reportError(message);
    return failure();
  };
  auto inputNamed = [&](StringRef name) -> const runtime::TensorSpec * {
    for (const runtime::TensorSpec &spec : meta.inputs)
      if (spec.name == name)
        return &spec;
    return nullptr;
  };
  // Whether `shape` fits `spec` (rank, static extents, profile); the
  // problem otherwise.
  auto misfit = [&](const runtime::TensorSpec &spec,
                    llvm::ArrayRef<int64_t> shape) -> std::string {
    if (shape.size() != spec.shape.size())
      return "has rank " + std::to_string(spec.shape.size()) + ", not " +
             std::to_string(shape.size());
    for (auto [d, extent] : llvm::enumerate(shape)) {
      int64_t expected = spec.shape[d];
      if (expected != runtime::TensorSpec::kDynamicExtent && extent != expected)
        return "has extent " + std::to_string(expected) + " at dimension " +
               std::to_string(d) + ", not " + std::to_string(extent);
    }
    return "";
  };
  for (const auto &[name, profile] : opts.shapeProfiles) {
    std::string where = "--shape-profile: input '" + name + "'";
    const runtime::TensorSpec *spec = inputNamed(name);
    if (!spec)
      return fail(where + " is not an input of the model");
    if (!spec->isDynamic())
      return fail(where + " has a static shape; profiles are for dynamic "
                          "inputs");
    for (const std::vector<int64_t> *shape :
         {&profile.min, &profile.opt, &profile.max})
      if (std::string problem = misfit(*spec, *shape); !problem.empty())
        return fail(where + " " + problem);
    for (size_t d = 0; d < spec->shape.size(); ++d)
      if (profile.min[d] > profile.opt[d] || profile.opt[d] > profile.max[d])
        return fail(where + ": dimension " + std::to_string(d) +
                    " needs min <= opt <= max, not " +
                    std::to_string(profile.min[d]) + ":" +
                    std::to_string(profile.opt[d]) + ":" +
                    std::to_string(profile.max[d]));
  }
  // A bucket gives every dynamic input a shape that fits it and its
  // profile, and one extent to each dimension name.
  auto check = [&](const Shapes &shapes, const std::string &what) {
    for (const auto &[name, shape] : shapes)
      if (!inputNamed(name))
        return fail(what + ": '" + name + "' is not an input of the model");
    std::map<std::string, int64_t> named;
    for (const runtime::TensorSpec &spec : meta.inputs) {
      if (!spec.isDynamic())
        continue;
      auto it = shapes.find(spec.name);
      if (it == shapes.end())
        return fail(what + ": dynamic input '" + spec.name +
                    "' has no shape; give every dynamic input one");
      std::string where = what + ": input '" + spec.name + "'";
      if (std::string problem = misfit(spec, it->second); !problem.empty())
        return fail(where + " " + problem);
      auto profile = opts.shapeProfiles.find(spec.name);
      for (auto [d, extent] : llvm::enumerate(it->second)) {
        if (profile != opts.shapeProfiles.end() &&
            (extent < profile->second.min[d] ||
             extent > profile->second.max[d]))
          return fail(where + " dimension " + std::to_string(d) + " is " +
                      std::to_string(extent) + ", outside its profile [" +
                      std::to_string(profile->second.min[d]) + ", " +
                      std::to_string(profile->second.max[d]) + "]");
        if (d >= spec.dimNames.size() || spec.dimNames[d].empty())
          continue;
        auto [seen, inserted] = named.try_emplace(spec.dimNames[d], extent);
        if (!inserted && seen->second != extent)
          return fail(where + " dimension " + std::to_string(d) + " ('" +
                      spec.dimNames[d] + "') is " + std::to_string(extent) +
                      ", another input's is " + std::to_string(seen->second));
      }
    }
    return success();
  };
  std::vector<Shapes> result;
  if (!opts.shapeProfiles.empty()) {
    Shapes opt;
    for (const auto &[name, profile] : opts.shapeProfiles)
      opt[name] = profile.opt;
    if (failed(check(opt, "--shape-profile (the opt shapes)")))
      return failure();
    result.push_back(std::move(opt));
  }
  for (const Shapes &bucket : opts.shapeBuckets) {
    if (failed(check(bucket, "--shape-bucket")))
      return failure();
    if (!llvm::is_contained(result, bucket))
      result.push_back(bucket);
  }
  return result;
}

LogicalResult CompileSession::emitEngine(
    ModuleOp module, llvm::raw_ostream &os,
    std::optional<llvm::MemoryBufferRef> model, InputFormat format,
    std::vector<ScheduleSummary> *specialized) {
  stepErrors = errorCount;
  bool profiled = !opts.shapeProfiles.empty() || !opts.shapeBuckets.empty();
  if (target().isGPU()) {
    if (profiled) {
      reportError("--shape-profile and --shape-bucket: GPU engines have "
                  "static shapes; compile for --target=cpu");
      return failure();
    }
    return compileToGPUEngine(module, opts.codegen, os);
  }
  if (!profiled)
    return compileToEngine(module, opts.codegen, os);
  if (!model || format == InputFormat::MLIR) {
    reportError("--shape-profile and --shape-bucket specialise an ONNX "
                "model: give one");
    return failure();
  }
  FailureOr<runtime::EngineMetadata> described = describeEntry(module);
  if (failed(described))
    return failure();
  if (!described->isDynamic()) {
    reportError("--shape-profile and --shape-bucket: the model has static "
                "shapes; there is nothing to specialise");
    return failure();
  }
  FailureOr<std::vector<std::map<std::string, std::vector<int64_t>>>> buckets =
      specializationShapes(*described);
  if (failed(buckets))
    return failure();
  FailureOr<EngineCode> generic = compileToCode(module, opts.codegen);
  if (failed(generic))
    return failure();
  for (const runtime::TensorSpec &spec : generic->metadata.outputs)
    if (spec.hasDataDims() || spec.sizedByRun) {
      reportError("--shape-profile and --shape-bucket: output '" + spec.name +
                  "' has extents the run computes (" +
                  (spec.sizedByRun ? "a value a loop grows or slices"
                                   : "NonZero, Compress, Unique") +
                  "), so no input shape makes the code static; compile "
                  "without them");
      return failure();
    }
  for (runtime::TensorSpec &spec : generic->metadata.inputs) {
    auto profile = opts.shapeProfiles.find(spec.name);
    if (profile == opts.shapeProfiles.end())
      continue;
    spec.profileMin = profile->second.min;
    spec.profileOpt = profile->second.opt;
    spec.profileMax = profile->second.max;
  }
  std::vector<EngineCode> codes;
  for (const std::map<std::string, std::vector<int64_t>> &bucket : *buckets) {
    std::string shapes;
    for (const auto &[name, dims] : bucket)
      shapes += (shapes.empty() ? "" : ",") + name + "=" + search::dimsText(dims);
    std::map<std::string, std::vector<int64_t>> given = opts.inputShapes;
    for (const auto &[name, dims] : bucket)
      opts.inputShapes[name] = dims;
    FailureOr<OwningOpRef<ModuleOp>> imported = importModel(*model, format);
    opts.inputShapes = std::move(given);
    FailureOr<ScheduleSummary> scheduled =
        succeeded(imported) ? schedule(**imported, format)
                            : FailureOr<ScheduleSummary>(failure());
    FailureOr<EngineCode> code =
        succeeded(scheduled) ? compileToCode(**imported, opts.codegen)
                             : FailureOr<EngineCode>(failure());
    if (failed(code)) {
      reportError("the specialisation for " + shapes + " failed (above)");
      return failure();
    }
    if (specialized)
      specialized->push_back(std::move(*scheduled));
    codes.push_back(std::move(*code));
  }
  writeEngine(*generic, codes, os);
  return success();
}

LogicalResult CompileSession::emitLLVMIR(ModuleOp module,
                                         llvm::raw_ostream &os) {
  stepErrors = errorCount;
  if (!target().isCPU()) {
    reportError("LLVM IR is emitted for CPU targets, not " + target().name());
    return failure();
  }
  FailureOr<runtime::EngineMetadata> meta = describeEntry(module);
  if (failed(meta) || failed(lowerToLLVMDialect(module, opts.codegen)))
    return failure();
  meta->target = target().name();
  llvm::LLVMContext llvmContext;
  std::string weights;
  std::unique_ptr<llvm::Module> llvmModule =
      translateToLLVMIR(module, llvmContext, opts.codegen, *meta, weights);
  if (!llvmModule)
    return failure();
  llvmModule->print(os, nullptr);
  return success();
}

LogicalResult CompileSession::lowerToLinalg(ModuleOp module) {
  stepErrors = errorCount;
  TimingScope timer;
  if (opts.codegen.timing)
    timer = opts.codegen.timing->nest(StringRef("lower to linalg"));
  PassManager pm(ctx.get());
  int21::buildInt21ToLinalgPipeline(pm, /*forGPU=*/target().isGPU());
  return pm.run(module);
}

LogicalResult CompileSession::lowerToGPUHost(ModuleOp module) {
  stepErrors = errorCount;
  return success(succeeded(lowerToGPUHostForm(module, opts.codegen)));
}

FailureOr<std::string> CompileSession::emitPTX(ModuleOp module) {
  stepErrors = errorCount;
  if (!target().isGPU()) {
    reportError("PTX is emitted for GPU targets, not " + target().name());
    return failure();
  }
  return lowerKernelsToPTX(module, target().chip());
}

FailureOr<PTXAssembly> CompileSession::assemble(StringRef ptx) {
  stepErrors = errorCount;
  llvm::Expected<PTXAssembly> assembled = assemblePTX(ptx, target().chip());
  if (!assembled) {
    reportError(assembled.takeError());
    return failure();
  }
  return std::move(*assembled);
}

LogicalResult CompileSession::compile(llvm::MemoryBufferRef input,
                                      InputFormat format,
                                      llvm::raw_ostream &os,
                                      ScheduleSummary *summary) {
  FailureOr<OwningOpRef<ModuleOp>> module = importModel(input, format);
  if (failed(module))
    return failure();
  FailureOr<ScheduleSummary> scheduled = schedule(**module, format);
  if (failed(scheduled))
    return failure();
  if (summary)
    *summary = std::move(*scheduled);
  return emitEngine(**module, os, input, format);
}

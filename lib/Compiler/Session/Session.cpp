//===- Session.cpp - one compile, from a model to an engine ---------------===//

#include "int21/Compiler/Session.h"

#include "int21/AgentSearch/Library.h"
#include "int21/AgentSearch/Worker.h"
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
  if (opts.tune) {
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

LogicalResult CompileSession::emitEngine(ModuleOp module,
                                         llvm::raw_ostream &os) {
  stepErrors = errorCount;
  if (target().isGPU())
    return compileToGPUEngine(module, opts.codegen, os);
  return compileToEngine(module, opts.codegen, os);
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
  return emitEngine(**module, os);
}

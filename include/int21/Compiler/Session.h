//===- Session.h - one compile, from a model to an engine -----------------===//
//
// The one driver of a compilation: int21-compile is a command line over it,
// the Python package calls it, and the search's compile workers run it on
// the request the coordinator writes them. A session holds the options (the
// target resolved once), the MLIR context, the knowledge base and the
// schedule library it was given, and runs the steps:
//
//   import -> schedule (a library, the knowledge base, or a search) ->
//   select and apply the schedules -> codegen -> engine
//
// each of which a caller may also run on its own (int21-compile --emit=...
// stops after one of them). Errors are reported once, as one line each, to
// SessionOptions::onError (the MLIR diagnostics of the steps and every error
// of the session itself), and the step returns failure.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_COMPILER_SESSION_H
#define INT21_COMPILER_SESSION_H

#include "int21/AgentSearch/KnowledgeBase.h"
#include "int21/AgentSearch/Tuner.h"
#include "int21/AgentSearch/Worker.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Compiler/PTX.h"
#include "int21/Compiler/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace int21 {

/// What an input holds.
enum class InputFormat {
  /// An ONNX ModelProto, binary.
  Onnx,
  /// The ONNX text format.
  OnnxText,
  /// An int21 module, or one already lowered to linalg (a kernel the search
  /// cut out of a model): its schedules are its own, the knowledge base is
  /// not consulted.
  MLIR,
};

/// The format a file's name says: .onnxtext, .mlir, else binary ONNX.
InputFormat inputFormatOf(llvm::StringRef path);

struct SessionOptions {
  /// Where the engine runs, the code generation and the default schedules.
  /// `codegen.target` is the session's target.
  CompileOptions codegen;

  /// Import: static shapes of inputs (NAME -> dims), inputs frozen to a
  /// tensor (NAME -> a serialized TensorProto), and whether weights keep
  /// their data (without it: named handles, enough to print the model).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  std::map<std::string, std::string> frozenInputs;
  bool weightData = true;

  /// Shape profiles of dynamic inputs (NAME -> the least, the optimised-for
  /// and the greatest shape), as int21-compile --shape-profile gives them,
  /// and more shapes to specialise for (--shape-bucket: each gives the
  /// shape of every dynamic input). A CPU engine of a model with either
  /// carries code specialised for the profiles' opt shapes and each bucket
  /// (imported at those shapes and scheduled as a static model is) besides
  /// its generic code, and refuses runs outside the profiles.
  struct ShapeProfile {
    std::vector<int64_t> min, opt, max;
  };
  std::map<std::string, ShapeProfile> shapeProfiles;
  std::vector<std::map<std::string, std::vector<int64_t>>> shapeBuckets;

  /// The knowledge base: used unless `useKnowledgeBase` is off; the file
  /// `knowledgeBasePath`, else the default one
  /// (KnowledgeBase::defaultPath()). A search reads and stores it (creating
  /// it); otherwise the schedules it holds for this machine and `threads`
  /// are applied when it exists. It applies to CPU engines of imported
  /// models with the default schedules (not strict, no library).
  bool useKnowledgeBase = true;
  std::string knowledgeBasePath;

  /// A transform library exported by int21-kb export: the model's fusion
  /// groups take its schedules (excludes a search and the knowledge base).
  std::string scheduleLibraryPath;

  /// Search every kernel's schedule (TuneOptions; its target is the
  /// session's and its knowledge base the session's).
  std::optional<search::TuneOptions> tune;

  /// The threads the engine will run on (0: the engine's default): the
  /// knowledge-base records that apply are those timed on them.
  unsigned threads = 0;

  /// Where each error goes, one line, without a prefix (default: kept in
  /// CompileSession::errors()).
  std::function<void(const std::string &)> onError;
  /// Where the search reports its progress (default: nowhere).
  llvm::raw_ostream *progress = nullptr;
};

/// Parses `NAME=MIN:OPT:MAX` (each shape like 1x3x224x224) into
/// `options.shapeProfiles`, or fails with a one-line message.
llvm::Error parseShapeProfile(llvm::StringRef spec, SessionOptions &options);
/// Parses `NAME=DIMS[,NAME=DIMS...]` (one bucket: a shape for every dynamic
/// input) into `options.shapeBuckets`, or fails with a one-line message.
llvm::Error parseShapeBucket(llvm::StringRef spec, SessionOptions &options);

/// What the schedule step did.
struct ScheduleSummary {
  enum class Source { Default, Library, KnowledgeBase, Search };
  Source source = Source::Default;
  /// Library: the fusion groups it scheduled. Knowledge base: the model's
  /// distinct kernels, those it scheduled, and the threads its records were
  /// timed on.
  unsigned groups = 0;
  unsigned kernels = 0;
  unsigned scheduled = 0;
  unsigned threads = 0;
  /// Search: what it found.
  std::optional<search::TuneResult> tuned;
  /// A search was asked for, but the module is the generic code of a
  /// dynamic model (kernels of sizes only a run knows): it keeps its
  /// default schedules (or the knowledge base's).
  bool searchSkippedDynamic = false;
};

class CompileSession {
public:
  /// Checks the options (combinations that exclude each other, the
  /// knowledge base and library they name), opens the knowledge base and
  /// reads the library. The error says what is wrong, naming the option.
  static llvm::Expected<std::unique_ptr<CompileSession>>
  create(SessionOptions options);
  ~CompileSession();

  const SessionOptions &options() const { return opts; }
  const Target &target() const { return opts.codegen.target; }
  mlir::MLIRContext &context() { return *ctx; }
  /// The knowledge base in use (null: none).
  search::KnowledgeBase *knowledgeBase() { return kb.get(); }

  /// Imports a model (or parses an MLIR module) named `name` in
  /// diagnostics.
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
  importModel(llvm::MemoryBufferRef input, InputFormat format);
  /// Reads and imports the file at `path` (its format from its name).
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
  importFile(llvm::StringRef path);

  /// Gives `module`'s fusion groups their schedules: from the library,
  /// the knowledge base or a search, as the options say (none of them: the
  /// default schedules, chosen when the engine is built). `format` is the
  /// one the module was imported from.
  mlir::FailureOr<ScheduleSummary> schedule(mlir::ModuleOp module,
                                            InputFormat format);

  /// Builds the engine of a scheduled `module` (changed in place): a CPU
  /// or a GPU one, as the target says. With shape profiles or buckets, the
  /// specialisations are compiled from `model` (the input `module` was
  /// imported from, in `format`), and what scheduled each goes to
  /// `specialized` when given.
  mlir::LogicalResult
  emitEngine(mlir::ModuleOp module, llvm::raw_ostream &os,
             std::optional<llvm::MemoryBufferRef> model = std::nullopt,
             InputFormat format = InputFormat::Onnx,
             std::vector<ScheduleSummary> *specialized = nullptr);
  /// The optimised LLVM IR of a CPU engine's code.
  mlir::LogicalResult emitLLVMIR(mlir::ModuleOp module, llvm::raw_ostream &os);
  /// Lowers `module`, in place, to linalg on tensors (int21-to-linalg).
  mlir::LogicalResult lowerToLinalg(mlir::ModuleOp module);
  /// GPU targets: lowers `module`, in place, to host form (the host code and
  /// its kernels in the GPU dialect).
  mlir::LogicalResult lowerToGPUHost(mlir::ModuleOp module);
  /// GPU targets: the PTX of the kernels of a module in host form.
  mlir::FailureOr<std::string> emitPTX(mlir::ModuleOp module);
  /// GPU targets: `ptx` assembled with ptxas for the target's chip.
  mlir::FailureOr<PTXAssembly> assemble(llvm::StringRef ptx);

  /// import, schedule and emitEngine in one: the engine of `input`.
  mlir::LogicalResult compile(llvm::MemoryBufferRef input, InputFormat format,
                              llvm::raw_ostream &os,
                              ScheduleSummary *summary = nullptr);

  /// The errors reported so far, when SessionOptions::onError is not set.
  const std::vector<std::string> &errors() const { return reported; }
  /// Whether an error has been reported.
  bool hadError() const { return errorCount > 0; }
  /// Reports an error of the caller's (one line) the way the session does.
  void reportError(const std::string &message);
  /// Reports `error` unless its cause was already reported as a diagnostic
  /// since the step began; consumes it.
  void reportError(llvm::Error error);

  /// Where the steps report their time, when set.
  void setTiming(mlir::TimingScope *timing) { opts.codegen.timing = timing; }

private:
  explicit CompileSession(SessionOptions options);
  /// The input shapes to specialise for (the profiles' opt shapes, then the
  /// buckets, each once), checked against the engine's inputs `meta`.
  mlir::FailureOr<std::vector<std::map<std::string, std::vector<int64_t>>>>
  specializationShapes(const runtime::EngineMetadata &meta);

  SessionOptions opts;
  std::unique_ptr<mlir::MLIRContext> ctx;
  std::unique_ptr<search::KnowledgeBase> kb;
  std::unique_ptr<llvm::MemoryBuffer> library;
  std::vector<std::string> reported;
  unsigned errorCount = 0;
  unsigned stepErrors = 0;
  struct Handler;
  std::unique_ptr<Handler> handler;
};

/// The search's compile worker, in the child: compiles the kernel of a
/// request (search::WorkerRequest::Job::Compile) into its engine.
int runCompileJob(const search::WorkerRequest &request);

/// The main of a search worker: `--tune-worker=REQUEST.json` (see
/// int21/AgentSearch/Worker.h). Reads the request and runs its job;
/// returns the exit status.
int runSearchWorker(llvm::StringRef requestPath);

} // namespace int21

#endif // INT21_COMPILER_SESSION_H

//===- SearchWorker.cpp - the search's child processes --------------------===//
//
// A search worker does one job of a WorkerRequest (int21/AgentSearch/
// Worker.h): compile a candidate kernel into an engine (through a compile
// session, as any engine is built), or measure one (the correctness gate and
// the timer, in Measure.cpp).
//
//===----------------------------------------------------------------------===//

#include "int21/AgentSearch/Tuner.h"
#include "int21/AgentSearch/Worker.h"
#include "int21/Compiler/Session.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace int21;
using llvm::StringRef;

int int21::runCompileJob(const search::WorkerRequest &request) {
  llvm::Expected<Target> target = Target::parse(request.target);
  if (!target) {
    llvm::errs() << "error: " << llvm::toString(target.takeError()) << "\n";
    return 1;
  }
  SessionOptions options;
  options.codegen.target = *target;
  options.codegen.schedule =
      request.schedules != search::KernelSchedules::Reference;
  options.codegen.strictSchedules =
      request.schedules == search::KernelSchedules::Strict;
  options.useKnowledgeBase = false;
  options.onError = [](const std::string &message) {
    llvm::errs() << "error: " << message << "\n";
  };
  llvm::Expected<std::unique_ptr<CompileSession>> session =
      CompileSession::create(std::move(options));
  if (!session) {
    llvm::errs() << "error: " << llvm::toString(session.takeError()) << "\n";
    return 1;
  }
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> module =
      (*session)->importFile(request.kernelPath);
  if (failed(module))
    return 1;
  if (!request.fault.empty())
    if (llvm::Error error = search::injectFault(**module, request.fault)) {
      llvm::errs() << "error: fault injection: "
                   << llvm::toString(std::move(error)) << "\n";
      return 1;
    }
  // Written whole or not at all: a failed compile leaves no engine.
  std::string engine;
  llvm::raw_string_ostream os(engine);
  if (failed((*session)->emitEngine(**module, os)))
    return 1;
  std::error_code ec;
  llvm::raw_fd_ostream file(request.enginePath, ec, llvm::sys::fs::OF_None);
  if (!ec) {
    file << engine;
    file.close();
    ec = file.error();
  }
  if (ec) {
    llvm::errs() << "error: cannot write '" << request.enginePath
                 << "': " << ec.message() << "\n";
    return 1;
  }
  return 0;
}

int int21::runSearchWorker(StringRef requestPath) {
  llvm::Expected<search::WorkerRequest> request =
      search::readWorkerRequest(requestPath);
  if (!request) {
    llvm::errs() << "error: " << llvm::toString(request.takeError()) << "\n";
    return 1;
  }
  if (request->job == search::WorkerRequest::Job::Measure)
    return search::runMeasureJob(*request);
  return runCompileJob(*request);
}

//===- Worker.h - what the search asks of its child processes -------------===//
//
// The search compiles and measures every candidate in a child process, so
// that one that crashes, hangs or computes nonsense costs a trial, not the
// search. The child is the worker executable (int21-compile) run as
// `WORKER --tune-worker=REQUEST.json`: the coordinator writes a
// WorkerRequest, the child reads it, does its one job and exits 0 when it
// succeeded (a measurement's report on stdout, as JSON), non-zero with the
// error on stderr when not. The request is the whole interface: no tool
// option carries a worker's job, and the faults tests inject travel in it.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_WORKER_H
#define INT21_AGENTSEARCH_WORKER_H

#include "int21/AgentSearch/Measure.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace int21::search {

/// How a compile job schedules its kernel.
enum class KernelSchedules {
  /// The reference lowering: plain loops, one thread (what every candidate
  /// is checked against).
  Reference,
  /// The kernel's #int21.schedule where it has one, else the default.
  Default,
  /// The kernel's #int21.schedule, and an error when it does not apply: a
  /// candidate must be what it says.
  Strict,
};

struct WorkerRequest {
  enum class Job { Compile, Measure };
  Job job = Job::Compile;

  /// Compile: the kernel module (.mlir, lowered to linalg) to compile, the
  /// engine to write, the target's name (Target::name()) and the schedules.
  std::string kernelPath;
  std::string enginePath;
  std::string target;
  KernelSchedules schedules = KernelSchedules::Default;

  /// Measure: the kernel's reference engine and the candidate's, and how
  /// to time it.
  std::string referencePath;
  std::string candidatePath;
  MeasureOptions measure;

  /// Test hook: the fault to inject (TuneOptions::faults); "" for none.
  std::string fault;
};

llvm::json::Value toJSON(const WorkerRequest &request);
bool fromJSON(const llvm::json::Value &value, WorkerRequest &request,
              llvm::json::Path path);

/// Writes `request` to `path`, for a child to read.
llvm::Error writeWorkerRequest(const WorkerRequest &request,
                               llvm::StringRef path);
/// Reads a request written by writeWorkerRequest; the error names the file
/// and what is wrong with it.
llvm::Expected<WorkerRequest> readWorkerRequest(llvm::StringRef path);

/// The measurement job, in the child: measures `request` and prints its
/// report as one JSON line on stdout. Returns the exit status.
int runMeasureJob(const WorkerRequest &request);

/// The option that makes the worker executable a worker, and its value:
/// `--tune-worker=PATH` gives PATH, anything else none.
std::optional<llvm::StringRef> workerRequestArgument(llvm::StringRef arg);

} // namespace int21::search

#endif // INT21_AGENTSEARCH_WORKER_H

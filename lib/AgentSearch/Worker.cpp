//===- Worker.cpp - what the search asks of its child processes -----------===//

#include "int21/AgentSearch/Worker.h"
#include "int21/Support/JSON.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>

using namespace int21::search;
using llvm::StringRef;

static StringRef jobName(WorkerRequest::Job job) {
  return job == WorkerRequest::Job::Compile ? "compile" : "measure";
}

static StringRef schedulesName(KernelSchedules schedules) {
  switch (schedules) {
  case KernelSchedules::Reference:
    return "reference";
  case KernelSchedules::Default:
    return "default";
  case KernelSchedules::Strict:
    return "strict";
  }
  return "default";
}

llvm::json::Value int21::search::toJSON(const WorkerRequest &request) {
  llvm::json::Object object{{"job", jobName(request.job)}};
  if (request.job == WorkerRequest::Job::Compile) {
    object["kernel"] = request.kernelPath;
    object["engine"] = request.enginePath;
    object["target"] = request.target;
    object["schedules"] = schedulesName(request.schedules);
  } else {
    const MeasureOptions &m = request.measure;
    object["reference"] = request.referencePath;
    object["candidate"] = request.candidatePath;
    object["threads"] = m.threads;
    object["seed"] = static_cast<int64_t>(m.seed);
    object["seconds"] = m.seconds;
    object["min_reps"] = m.minReps;
    object["max_reps"] = m.maxReps;
    object["give_up_ms"] = m.giveUpMs;
    object["paired"] = m.paired;
  }
  if (!request.fault.empty())
    object["fault"] = request.fault;
  return object;
}

bool int21::search::fromJSON(const llvm::json::Value &value,
                             WorkerRequest &request, llvm::json::Path path) {
  llvm::json::ObjectMapper map(value, path);
  std::string job;
  if (!map || !map.map("job", job))
    return false;
  map.mapOptional("fault", request.fault);
  if (job == "compile") {
    request.job = WorkerRequest::Job::Compile;
    std::string schedules;
    if (!map.map("kernel", request.kernelPath) ||
        !map.map("engine", request.enginePath) ||
        !map.map("target", request.target) ||
        !map.map("schedules", schedules))
      return false;
    if (schedules == "reference") {
      request.schedules = KernelSchedules::Reference;
    } else if (schedules == "default") {
      request.schedules = KernelSchedules::Default;
    } else if (schedules == "strict") {
      request.schedules = KernelSchedules::Strict;
    } else {
      path.field("schedules")
          .report("expected 'reference', 'default' or 'strict'");
      return false;
    }
    return true;
  }
  if (job == "measure") {
    request.job = WorkerRequest::Job::Measure;
    MeasureOptions &m = request.measure;
    int64_t seed = 0;
    if (!map.map("reference", request.referencePath) ||
        !map.map("candidate", request.candidatePath) ||
        !map.map("threads", m.threads) || !map.map("seed", seed) ||
        !map.map("seconds", m.seconds) || !map.map("min_reps", m.minReps) ||
        !map.map("max_reps", m.maxReps) ||
        !map.map("give_up_ms", m.giveUpMs) || !map.map("paired", m.paired))
      return false;
    m.seed = static_cast<uint64_t>(seed);
    m.threads = std::max(1u, m.threads);
    return true;
  }
  path.field("job").report("expected 'compile' or 'measure'");
  return false;
}

llvm::Error int21::search::writeWorkerRequest(const WorkerRequest &request,
                                              StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec) {
    os << llvm::json::Value(toJSON(request)) << "\n";
    os.close();
    ec = os.error();
  }
  if (ec)
    return llvm::createStringError("cannot write the worker request '" +
                                   path + "': " + ec.message());
  return llvm::Error::success();
}

llvm::Expected<WorkerRequest>
int21::search::readWorkerRequest(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("cannot read the worker request '" + path +
                                   "': " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> json =
      int21::parseJSON((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError("the worker request '" + path +
                                   "' is not JSON: " +
                                   llvm::toString(json.takeError()));
  WorkerRequest request;
  llvm::json::Path::Root root("request");
  if (!fromJSON(*json, request, root)) {
    std::string message;
    llvm::raw_string_ostream os(message);
    os << root.getError();
    return llvm::createStringError("the worker request '" + path +
                                   "' is malformed: " + message);
  }
  return request;
}

int int21::search::runMeasureJob(const WorkerRequest &request) {
  if (request.fault == "run-crash")
    std::raise(SIGSEGV);
  llvm::Expected<MeasureReport> report = measureEngine(
      request.referencePath, request.candidatePath, request.measure);
  if (!report) {
    llvm::errs() << llvm::toString(report.takeError()) << "\n";
    return 1;
  }
  if (request.fault == "run-slow") {
    // A slow spell of the machine: every time this child reports is ten
    // times what it measured (the default's beside it included).
    for (double *ms : {&report->time.medianMs, &report->time.minMs,
                       &report->time.maxMs, &report->referenceMs})
      *ms *= 10;
  }
  llvm::outs() << llvm::json::Value(toJSON(*report)) << "\n";
  return 0;
}

std::optional<StringRef> int21::search::workerRequestArgument(StringRef arg) {
  if (!arg.consume_front("--tune-worker=") || arg.empty())
    return std::nullopt;
  return arg;
}

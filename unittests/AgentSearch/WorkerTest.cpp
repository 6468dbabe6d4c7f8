//===- WorkerTest.cpp - the search's requests to its child processes ------===//

#include "int21/AgentSearch/Worker.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace int21::search;

namespace {
/// A file in a fresh temporary directory, removed with it.
class TempFile {
public:
  TempFile() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("int21-worker", dir));
    path = (dir + "/request.json").str();
  }
  ~TempFile() { llvm::sys::fs::remove_directories(dir); }
  void write(llvm::StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << text;
  }
  llvm::SmallString<128> dir;
  std::string path;
};

/// `request` written to a file and read back.
WorkerRequest roundTrip(const WorkerRequest &request) {
  TempFile file;
  EXPECT_FALSE(llvm::errorToBool(writeWorkerRequest(request, file.path)));
  llvm::Expected<WorkerRequest> read = readWorkerRequest(file.path);
  if (!read) {
    ADD_FAILURE() << llvm::toString(read.takeError());
    return {};
  }
  return *read;
}

std::string errorOf(llvm::StringRef text) {
  TempFile file;
  file.write(text);
  llvm::Expected<WorkerRequest> read = readWorkerRequest(file.path);
  if (read)
    return "";
  std::string message = llvm::toString(read.takeError());
  // Every error names the file it came from.
  EXPECT_NE(message.find(file.path), std::string::npos) << message;
  return message;
}
} // namespace

TEST(WorkerTest, CompileRequestsRoundTrip) {
  for (KernelSchedules schedules :
       {KernelSchedules::Reference, KernelSchedules::Default,
        KernelSchedules::Strict}) {
    WorkerRequest request;
    request.job = WorkerRequest::Job::Compile;
    request.kernelPath = "/tmp/k 1/kernel.mlir";
    request.enginePath = "/tmp/k 1/\"engine\".int21";
    request.target = "cpu:x86_64-unknown-linux-gnu:znver4";
    request.schedules = schedules;
    request.fault = "compile-crash";
    WorkerRequest read = roundTrip(request);
    EXPECT_EQ(read.job, WorkerRequest::Job::Compile);
    EXPECT_EQ(read.kernelPath, request.kernelPath);
    EXPECT_EQ(read.enginePath, request.enginePath);
    EXPECT_EQ(read.target, request.target);
    EXPECT_EQ(read.schedules, schedules);
    EXPECT_EQ(read.fault, "compile-crash");
  }
}

TEST(WorkerTest, MeasureRequestsRoundTrip) {
  WorkerRequest request;
  request.job = WorkerRequest::Job::Measure;
  request.referencePath = "/w/ref.int21";
  request.candidatePath = "/w/cand.int21";
  request.measure.threads = 3;
  request.measure.seed = 0xfedcba9876543210ull;
  request.measure.seconds = 0.125;
  request.measure.minReps = 7;
  request.measure.maxReps = 4321;
  request.measure.giveUpMs = 2.5;
  request.measure.paired = true;
  WorkerRequest read = roundTrip(request);
  EXPECT_EQ(read.job, WorkerRequest::Job::Measure);
  EXPECT_EQ(read.referencePath, request.referencePath);
  EXPECT_EQ(read.candidatePath, request.candidatePath);
  EXPECT_EQ(read.measure.threads, 3u);
  EXPECT_EQ(read.measure.seed, request.measure.seed);
  EXPECT_DOUBLE_EQ(read.measure.seconds, 0.125);
  EXPECT_EQ(read.measure.minReps, 7u);
  EXPECT_EQ(read.measure.maxReps, 4321u);
  EXPECT_DOUBLE_EQ(read.measure.giveUpMs, 2.5);
  EXPECT_TRUE(read.measure.paired);
  EXPECT_TRUE(read.fault.empty());
}

TEST(WorkerTest, MalformedRequestsNameTheFileAndTheField) {
  EXPECT_NE(errorOf("").find("worker request"), std::string::npos);
  EXPECT_NE(errorOf("{\"job\": ").find("worker request"), std::string::npos);
  EXPECT_NE(errorOf("[1, 2]").find("worker request"), std::string::npos);
  EXPECT_NE(errorOf("{\"job\": \"dance\"}").find("job"), std::string::npos);
  EXPECT_NE(errorOf("{\"job\": \"compile\", \"kernel\": \"k\", \"engine\": "
                    "\"e\", \"target\": \"cpu\", \"schedules\": \"fast\"}")
                .find("schedules"),
            std::string::npos);
  EXPECT_NE(errorOf("{\"job\": \"compile\", \"kernel\": 3, \"engine\": "
                    "\"e\", \"target\": \"cpu\", \"schedules\": \"default\"}")
                .find("kernel"),
            std::string::npos);
  EXPECT_NE(errorOf("{\"job\": \"measure\", \"reference\": \"r\"}")
                .find("candidate"),
            std::string::npos);
  EXPECT_NE(errorOf("{\"job\": \"compile\"}"), "");
}

TEST(WorkerTest, MissingRequestIsAnError) {
  llvm::Expected<WorkerRequest> read =
      readWorkerRequest("/nonexistent/int21/request.json");
  ASSERT_FALSE(static_cast<bool>(read));
  EXPECT_NE(llvm::toString(read.takeError())
                .find("/nonexistent/int21/request.json"),
            std::string::npos);
}

TEST(WorkerTest, OnlyTheWorkerOptionMakesAWorker) {
  EXPECT_EQ(workerRequestArgument("--tune-worker=/w/r.json"),
            std::optional<llvm::StringRef>("/w/r.json"));
  EXPECT_FALSE(workerRequestArgument("--tune-worker").has_value());
  EXPECT_FALSE(workerRequestArgument("model.onnx").has_value());
  EXPECT_FALSE(workerRequestArgument("--tune").has_value());
}

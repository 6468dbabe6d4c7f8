//===- KnowledgeBaseTest.cpp - keys, records, concurrency, kill -9 --------===//

#include "int21/AgentSearch/Agent.h"
#include "int21/AgentSearch/Kernel.h"
#include "int21/AgentSearch/KnowledgeBase.h"
#include "int21/AgentSearch/Tuner.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Dialect/Int21/Int21Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <csignal>
#include <set>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace int21::search;

namespace {

/// A model with one matmul group of `m`x`n`x`k` in `type`; `node` names its
/// location (as the ONNX node would).
std::string matmulModule(int m, int n, int k, llvm::StringRef type = "f32",
                         llvm::StringRef node = "MatMul_0") {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string a = "tensor<" + std::to_string(m) + "x" + std::to_string(k) +
                  "x" + type.str() + ">";
  std::string b = "tensor<" + std::to_string(k) + "x" + std::to_string(n) +
                  "x" + type.str() + ">";
  std::string c = "tensor<" + std::to_string(m) + "x" + std::to_string(n) +
                  "x" + type.str() + ">";
  os << "func.func @main(%a: " << a << ", %b: " << b << ") -> " << c << " {\n"
     << "  %0 = int21.fusion_group {\n"
     << "    %zero = arith.constant 0.0 : " << type << "\n"
     << "    %e = tensor.empty() : " << c << "\n"
     << "    %f = linalg.fill ins(%zero : " << type << ") outs(%e : " << c
     << ") -> " << c << "\n"
     << "    %m = linalg.matmul ins(%a, %b : " << a << ", " << b
     << ") outs(%f : " << c << ") -> " << c << " loc(\"" << node << "\")\n"
     << "    int21.yield %m : " << c << "\n"
     << "  } : " << c << "\n"
     << "  return %0 : " << c << "\n}\n";
  return text;
}

/// The kernel of a module's only group, in a context of its own.
Kernel kernelOf(const std::string &text) {
  mlir::DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadDialect<int21::Int21Dialect, mlir::func::FuncDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  EXPECT_TRUE(module);
  EXPECT_TRUE(mlir::succeeded(int21::schedule::prepareForScheduling(*module)));
  std::vector<Kernel> kernels = extractKernels(*module);
  EXPECT_EQ(kernels.size(), 1u);
  return kernels.front();
}

class KnowledgeBaseTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("int21-kb-test", directory));
    path = (directory + "/kb.sqlite").str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }

  std::unique_ptr<KnowledgeBase> open(bool readOnly = false) {
    auto kb = KnowledgeBase::open(path, readOnly);
    if (!kb) {
      ADD_FAILURE() << llvm::toString(kb.takeError());
      return nullptr;
    }
    return std::move(*kb);
  }

  static KnowledgeRecord record(std::string signature, double ms,
                                int64_t regN = 16,
                                std::string target = "cpu:test:test") {
    KnowledgeRecord r;
    r.signature = std::move(signature);
    r.target = std::move(target);
    r.compilerVersion = "int21 test";
    r.machine = "test machine";
    r.opKind = "matmul";
    r.dims = {64, 256, 128};
    r.elementTypes = "f32";
    r.kernelIR = "module {}";
    r.schedule.sequence = "cpu.matmul";
    r.schedule.knobs = {{"reg_n", regN}, {"reg_m", 4}};
    r.time.medianMs = ms;
    r.time.reps = 10;
    r.defaultMs = 2 * ms;
    r.agent = "tiling";
    return r;
  }

  llvm::SmallString<128> directory;
  std::string path;
};

TEST(KnowledgeKeyTest, SameWorkSameKey) {
  // Another context, another node name: the same work.
  Kernel a = kernelOf(matmulModule(64, 256, 128));
  Kernel b = kernelOf(matmulModule(64, 256, 128, "f32", "/layer7/MatMul"));
  EXPECT_EQ(a.signature, b.signature);
  EXPECT_EQ(a.signature.size(), 16u);
  EXPECT_EQ(a.opKind, "matmul");
  EXPECT_EQ(a.elementTypes, "f32");
  EXPECT_EQ(a.loops, (std::vector<int64_t>{64, 256, 128}));
  // A different shape or element type is different work.
  EXPECT_NE(a.signature, kernelOf(matmulModule(64, 256, 64)).signature);
  EXPECT_NE(a.signature, kernelOf(matmulModule(128, 256, 128)).signature);
  Kernel half = kernelOf(matmulModule(64, 256, 128, "f16"));
  EXPECT_NE(a.signature, half.signature);
  EXPECT_EQ(half.elementTypes, "f16");
}

TEST_F(KnowledgeBaseTest, RecordsRoundTripAndKeepTheFastest) {
  std::unique_ptr<KnowledgeBase> kb = open();
  ASSERT_TRUE(kb);
  llvm::Expected<int64_t> id = kb->put(record("aaaa", 2.0));
  ASSERT_TRUE(bool(id)) << llvm::toString(id.takeError());

  // Slower, another schedule: kept out. Faster: replaces it.
  ASSERT_TRUE(bool(kb->put(record("aaaa", 3.0, 32))));
  auto found = kb->find("aaaa", "cpu:test:test");
  ASSERT_TRUE(bool(found));
  ASSERT_EQ(found->size(), 1u);
  EXPECT_DOUBLE_EQ(found->front().time.medianMs, 2.0);
  EXPECT_EQ(found->front().schedule.knobs.at("reg_n"), 16);
  ASSERT_TRUE(bool(kb->put(record("aaaa", 1.5, 32))));
  found = kb->find("aaaa", "cpu:test:test");
  ASSERT_TRUE(bool(found));
  ASSERT_EQ(found->size(), 1u);
  const KnowledgeRecord &best = found->front();
  EXPECT_EQ(best.id, *id);
  EXPECT_DOUBLE_EQ(best.time.medianMs, 1.5);
  EXPECT_EQ(best.schedule.knobs.at("reg_n"), 32);
  EXPECT_EQ(best.dims, (std::vector<int64_t>{64, 256, 128}));
  EXPECT_DOUBLE_EQ(best.speedup(), 2.0);
  EXPECT_FALSE(best.createdAt.empty());

  // Another target is another key.
  ASSERT_TRUE(bool(kb->put(record("aaaa", 0.5, 16, "sm_90"))));
  found = kb->find("aaaa", "cpu:test:test");
  ASSERT_TRUE(bool(found));
  EXPECT_EQ(found->size(), 1u);
  auto gpu = kb->find("aaaa", "sm_90");
  ASSERT_TRUE(bool(gpu));
  ASSERT_EQ(gpu->size(), 1u);
  EXPECT_DOUBLE_EQ(gpu->front().time.medianMs, 0.5);
  auto all = kb->records();
  ASSERT_TRUE(bool(all));
  EXPECT_EQ(all->size(), 2u);

  // Losers: one row per schedule.
  ASSERT_FALSE(bool(kb->putLosers({{"aaaa", "sm_90", 7, "wrong", 0},
                                   {"aaaa", "sm_90", 7, "slower", 2},
                                   {"aaaa", "sm_90", 9, "slower", 1.2}})));
  auto losers = kb->losers("aaaa", "sm_90");
  ASSERT_TRUE(bool(losers));
  EXPECT_EQ(std::set<uint64_t>(losers->begin(), losers->end()),
            (std::set<uint64_t>{7, 9}));

  auto removed = kb->remove({*id});
  ASSERT_TRUE(bool(removed));
  EXPECT_EQ(*removed, 1u);
  EXPECT_FALSE(bool(kb->check()));
}

/// The one rule for using a record without a trial: made by this compiler,
/// on this machine, timed on the same threads. The fastest such record of
/// the work is the one found; any other is passed over.
TEST_F(KnowledgeBaseTest, OnlyRecordsMadeHereAreTrusted) {
  KnowledgeRecord here = record("tttt", 1.0, 16);
  here.compilerVersion = int21::compilerVersion().str();
  here.machine = KnowledgeBase::thisMachine();
  here.threads = 2;
  EXPECT_TRUE(isTrustedRecord(here, 2));
  EXPECT_FALSE(isTrustedRecord(here, 1)) << "timed on other threads";
  KnowledgeRecord otherVersion = here;
  otherVersion.compilerVersion = "int21 0.0.0";
  EXPECT_FALSE(isTrustedRecord(otherVersion, 2));
  KnowledgeRecord otherMachine = here;
  otherMachine.machine = "elsewhere (znver9)";
  EXPECT_FALSE(isTrustedRecord(otherMachine, 2));

  std::unique_ptr<KnowledgeBase> kb = open();
  ASSERT_TRUE(kb);
  // Faster, but from another machine and compiler: not trusted.
  ASSERT_TRUE(bool(kb->put(record("tttt", 0.5, 8))));
  ASSERT_TRUE(bool(kb->put(here)));
  auto found = findTrustedRecord(*kb, "tttt", "cpu:test:test", 2);
  ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->schedule.knobs.at("reg_n"), 16);
  EXPECT_DOUBLE_EQ((*found)->time.medianMs, 1.0);
  for (unsigned threads : {1u, 4u}) {
    found = findTrustedRecord(*kb, "tttt", "cpu:test:test", threads);
    ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
    EXPECT_FALSE(found->has_value()) << threads;
  }
  found = findTrustedRecord(*kb, "tttt", "cpu:other:other", 2);
  ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
  EXPECT_FALSE(found->has_value());
  // `fits` passes over a trusted record the kernel cannot use.
  found = findTrustedRecord(*kb, "tttt", "cpu:test:test", 2,
                            [](const KnowledgeRecord &r) {
                              return r.schedule.sequence != "cpu.matmul";
                            });
  ASSERT_TRUE(bool(found)) << llvm::toString(found.takeError());
  EXPECT_FALSE(found->has_value());
}

TEST_F(KnowledgeBaseTest, ForeignAndCorruptFilesAreRefused) {
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << "this is not a database, and long enough to have a header";
  }
  auto kb = KnowledgeBase::open(path);
  ASSERT_FALSE(bool(kb));
  EXPECT_NE(llvm::toString(kb.takeError()).find("not an int21 knowledge base"),
            std::string::npos);
  // The file is left as it was.
  uint64_t size = 0;
  llvm::sys::fs::file_size(path, size);
  EXPECT_GT(size, 0u);

  // A knowledge base whose pages were overwritten.
  llvm::sys::fs::remove(path);
  {
    std::unique_ptr<KnowledgeBase> good = open();
    ASSERT_TRUE(good);
    for (int i = 0; i < 50; ++i)
      ASSERT_TRUE(bool(good->put(record("sig" + std::to_string(i), 1.0))));
  }
  // The close checkpointed everything into the file: damage page 2 on.
  std::FILE *file = std::fopen(path.c_str(), "r+b");
  ASSERT_TRUE(file);
  std::fseek(file, 4096, SEEK_SET);
  std::string junk(4096 * 2, '\x5a');
  std::fwrite(junk.data(), 1, junk.size(), file);
  std::fclose(file);
  auto corrupt = KnowledgeBase::open(path);
  ASSERT_FALSE(bool(corrupt));
  std::string message = llvm::toString(corrupt.takeError());
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
}

TEST_F(KnowledgeBaseTest, SchemaVersionsNoInt21WroteAreRefused) {
  // Found by the kb fuzzer: a negative user_version indexed the migrations
  // out of bounds. Both ends of the range are refused, the file untouched.
  for (int64_t version : {int64_t(-2147483646), int64_t(-1),
                          int64_t(KnowledgeBase::kSchemaVersion + 1)}) {
    llvm::sys::fs::remove(path);
    {
      std::unique_ptr<KnowledgeBase> good = open();
      ASSERT_TRUE(good);
      ASSERT_TRUE(bool(good->put(record("sig", 1.0))));
    }
    sqlite3 *db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string pragma = "PRAGMA user_version=" + std::to_string(version);
    ASSERT_EQ(sqlite3_exec(db, pragma.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    for (bool readOnly : {false, true}) {
      auto kb = KnowledgeBase::open(path, readOnly);
      ASSERT_FALSE(bool(kb)) << version;
      std::string message = llvm::toString(kb.takeError());
      EXPECT_NE(message.find("has schema version " + std::to_string(version)),
                std::string::npos)
          << message;
    }
  }
}

TEST_F(KnowledgeBaseTest, SchemaOneFilesGainTheThreadsOfTheirRecords) {
  // A knowledge base as schema 1 wrote it: records were not keyed by the
  // threads they were timed on (one, the search's default then).
  {
    sqlite3 *db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char *schemaOne = R"sql(
CREATE TABLE records(
  id INTEGER PRIMARY KEY, signature TEXT NOT NULL, target TEXT NOT NULL,
  compiler_version TEXT NOT NULL, machine TEXT NOT NULL,
  op_kind TEXT NOT NULL, dims TEXT NOT NULL, element_types TEXT NOT NULL,
  kernel_ir TEXT NOT NULL, template TEXT NOT NULL, knobs TEXT NOT NULL,
  schedule_hash TEXT NOT NULL, median_ms REAL NOT NULL, min_ms REAL NOT NULL,
  max_ms REAL NOT NULL, spread REAL NOT NULL, reps INTEGER NOT NULL,
  default_ms REAL NOT NULL, seed INTEGER NOT NULL, max_error REAL NOT NULL,
  tolerance TEXT NOT NULL, roofline_ms REAL NOT NULL, agent TEXT NOT NULL,
  parent TEXT NOT NULL, created_at TEXT NOT NULL,
  UNIQUE(signature, target, compiler_version, machine));
CREATE INDEX records_by_kind ON records(target, op_kind);
CREATE TABLE losers(signature TEXT NOT NULL, target TEXT NOT NULL,
  schedule_hash TEXT NOT NULL, outcome TEXT NOT NULL, ratio REAL NOT NULL,
  PRIMARY KEY(signature, target, schedule_hash)) WITHOUT ROWID;
CREATE TABLE merges(producer TEXT NOT NULL, consumer TEXT NOT NULL,
  merged TEXT NOT NULL, target TEXT NOT NULL, gain_ms REAL NOT NULL,
  PRIMARY KEY(producer, consumer, target)) WITHOUT ROWID;
INSERT INTO records VALUES(7, 'old', 'cpu:test:test', 'int21 test',
  'test machine', 'matmul', '64,256,128', 'f32', 'module {}', 'cpu.matmul',
  '{"reg_m":4,"reg_n":16}', '00000000000000aa', 1.5, 1.4, 1.6, 0.05, 10, 3.0,
  21, 0, 'f32', 0.5, 'tiling', '', '2026-12-01T00:00:00Z');
PRAGMA application_id=1764897131;
PRAGMA user_version=1;
)sql";
    ASSERT_EQ(sqlite3_exec(db, schemaOne, nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  // Read-only, it is refused rather than misread.
  auto readOnly = KnowledgeBase::open(path, /*readOnly=*/true);
  ASSERT_FALSE(bool(readOnly));
  EXPECT_NE(llvm::toString(readOnly.takeError()).find("schema version 1"),
            std::string::npos);

  std::unique_ptr<KnowledgeBase> kb = open();
  ASSERT_TRUE(kb);
  auto all = kb->records();
  ASSERT_TRUE(bool(all)) << llvm::toString(all.takeError());
  ASSERT_EQ(all->size(), 1u);
  const KnowledgeRecord &old = all->front();
  EXPECT_EQ(old.id, 7);
  EXPECT_EQ(old.threads, 1u);
  EXPECT_EQ(old.time.medianMs, 1.5);
  EXPECT_EQ(old.schedule.knobs.at("reg_n"), 16);

  // The same work timed on two threads is another record; on one thread,
  // a faster time replaces the old record and leaves the other alone.
  KnowledgeRecord two = record("old", 0.9, 32);
  two.threads = 2;
  auto twoId = kb->put(two);
  ASSERT_TRUE(bool(twoId));
  EXPECT_NE(*twoId, 7);
  KnowledgeRecord one = record("old", 1.2, 8);
  auto oneId = kb->put(one);
  ASSERT_TRUE(bool(oneId));
  EXPECT_EQ(*oneId, 7);
  auto found = kb->find("old", "cpu:test:test");
  ASSERT_TRUE(bool(found));
  ASSERT_EQ(found->size(), 2u);
  for (const KnowledgeRecord &r : *found) {
    if (r.threads == 1) {
      EXPECT_EQ(r.time.medianMs, 1.2);
      EXPECT_EQ(r.schedule.knobs.at("reg_n"), 8);
    } else {
      EXPECT_EQ(r.threads, 2u);
      EXPECT_EQ(r.time.medianMs, 0.9);
      EXPECT_EQ(r.schedule.knobs.at("reg_n"), 32);
    }
  }
}

TEST_F(KnowledgeBaseTest, MissingFileReadOnlyIsAnError) {
  auto kb = KnowledgeBase::open(path, /*readOnly=*/true);
  ASSERT_FALSE(bool(kb));
  EXPECT_EQ(llvm::toString(kb.takeError()),
            "no knowledge base at '" + path + "'");
  EXPECT_FALSE(llvm::sys::fs::exists(path));
}

TEST_F(KnowledgeBaseTest, FourWriterProcessesLoseNothing) {
  constexpr int kWriters = 4, kRecords = 40;
  { ASSERT_TRUE(open()); }
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto kb = KnowledgeBase::open(path);
      if (!kb) {
        llvm::consumeError(kb.takeError());
        _exit(2);
      }
      for (int i = 0; i < kRecords; ++i) {
        std::string signature =
            "w" + std::to_string(w) + "r" + std::to_string(i);
        if (!(*kb)->put(record(signature, 1.0 + i))) {
          _exit(3);
        }
        if (llvm::Error error = (*kb)->putLosers(
                {{signature, "cpu:test:test", uint64_t(i), "slower", 1.5}})) {
          llvm::consumeError(std::move(error));
          _exit(4);
        }
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "writer exited with " << status;
  }
  std::unique_ptr<KnowledgeBase> kb = open();
  ASSERT_TRUE(kb);
  auto all = kb->records();
  ASSERT_TRUE(bool(all));
  EXPECT_EQ(all->size(), size_t(kWriters * kRecords));
  auto losers = kb->allLosers();
  ASSERT_TRUE(bool(losers));
  EXPECT_EQ(losers->size(), size_t(kWriters * kRecords));
  EXPECT_FALSE(bool(kb->check()));
}

TEST_F(KnowledgeBaseTest, KillNineLeavesEveryCommittedRecord) {
  { ASSERT_TRUE(open()); }
  int pipeFds[2];
  ASSERT_EQ(pipe(pipeFds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipeFds[0]);
    auto kb = KnowledgeBase::open(path);
    if (!kb) {
      llvm::consumeError(kb.takeError());
      _exit(2);
    }
    // Writes until killed; says which records are committed.
    for (int i = 0;; ++i) {
      if (!(*kb)->put(record("k" + std::to_string(i), 1.0)))
        _exit(3);
      if (write(pipeFds[1], &i, sizeof(i)) != sizeof(i))
        _exit(4);
    }
  }
  close(pipeFds[1]);
  int last = -1, value;
  while (last < 60 && read(pipeFds[0], &value, sizeof(value)) == sizeof(value))
    last = value;
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  while (read(pipeFds[0], &value, sizeof(value)) == sizeof(value))
    last = value;
  close(pipeFds[0]);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself";

  std::unique_ptr<KnowledgeBase> kb = open();
  ASSERT_TRUE(kb);
  EXPECT_FALSE(bool(kb->check()));
  auto all = kb->records();
  ASSERT_TRUE(bool(all));
  std::set<std::string> present;
  for (const KnowledgeRecord &r : *all)
    present.insert(r.signature);
  for (int i = 0; i <= last; ++i)
    EXPECT_TRUE(present.count("k" + std::to_string(i))) << "lost k" << i;
  // Work goes on in the same file.
  EXPECT_TRUE(bool(kb->put(record("after", 1.0))));
}

TEST(KnowledgeAgentTest, SimilarWorkSeedsTheSearch) {
  Kernel seen = kernelOf(matmulModule(64, 256, 128));
  Kernel fresh = kernelOf(matmulModule(64, 512, 128));
  KnowledgeRecord known;
  known.signature = seen.signature;
  known.target = "cpu:test:test";
  known.opKind = seen.opKind;
  known.elementTypes = seen.elementTypes;
  known.dims = seen.loops;
  known.schedule.sequence = "cpu.matmul";
  for (const auto &knob : seen.choices.front().defaults)
    known.schedule.knobs[knob.getKey().str()] = knob.getValue();
  known.schedule.knobs["reg_n"] = 32;
  known.schedule.knobs["par_n"] = 256;

  Blackboard board({fresh});
  std::unique_ptr<Agent> agent = createKnowledgeAgent({known});
  std::vector<Candidate> proposed = agent->propose(board, 0, 4);
  ASSERT_EQ(proposed.size(), 1u);
  EXPECT_EQ(proposed.front().agent, "knowledge");
  EXPECT_EQ(proposed.front().schedule.sequence, "cpu.matmul");
  EXPECT_EQ(proposed.front().schedule.knobs.at("reg_n"), 32);
  std::string why;
  EXPECT_TRUE(isValidSchedule(fresh, proposed.front().schedule, why)) << why;
  // Nothing more to say about this kernel.
  EXPECT_TRUE(agent->propose(board, 0, 4).empty());

  // Other work (another element type) says nothing.
  Kernel half = kernelOf(matmulModule(64, 512, 128, "f16"));
  Blackboard other({half});
  EXPECT_TRUE(createKnowledgeAgent({known})->propose(other, 0, 4).empty());
}

} // namespace

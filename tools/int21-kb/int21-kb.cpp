//===- int21-kb.cpp - inspect, export, import and verify a knowledge base -===//
//
//   int21-kb list [--target T]            the records, one line each
//   int21-kb show ID...                   records in full, kernel included
//   int21-kb export [--target T] -o LIB   the records as a transform library
//   int21-kb import FILE...               records of a knowledge base or a
//                                         library (faster ones win)
//   int21-kb merge KB...                  other knowledge bases, losers and
//                                         merges included
//   int21-kb verify [ID...] [--update]    the correctness gate and the timing
//                                         again, on this machine
//   int21-kb prune [--stale] [--dry-run]  drop superseded records
//   int21-kb check                        SQLite's integrity check, and every
//                                         record read as a compile reads it
//
// Every command works on --kb (default: $XDG_CACHE_HOME/int21/kb.sqlite).
//
//===----------------------------------------------------------------------===//

#include "int21/AgentSearch/KnowledgeBase.h"
#include "int21/AgentSearch/Library.h"
#include "int21/AgentSearch/Tuner.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Support/ParserGuard.h"
#include "int21/Support/JSON.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace int21::search;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("int21-kb options");
cl::SubCommand listCommand("list", "List the records, one line each");
cl::SubCommand showCommand("show", "Show records in full");
cl::SubCommand exportCommand("export",
                             "Write the records as a transform library");
cl::SubCommand importCommand(
    "import", "Import the records of knowledge bases or exported libraries");
cl::SubCommand mergeCommand(
    "merge", "Merge other knowledge bases (records, losers and merges)");
cl::SubCommand verifyCommand(
    "verify", "Check and time records again on this machine");
cl::SubCommand pruneCommand("prune", "Remove superseded records");
cl::SubCommand checkCommand(
    "check", "Check the file's integrity and that a compile can apply every "
             "record");

cl::opt<std::string> kbPath("kb", cl::desc("The knowledge base"),
                            cl::value_desc("file"), cl::init(""),
                            cl::sub(cl::SubCommand::getAll()), cl::cat(category));
cl::opt<std::string> targetOption(
    "target", cl::desc("Records of this target ('cpu': this machine)"),
    cl::init(""), cl::sub(listCommand), cl::sub(exportCommand),
    cl::sub(verifyCommand), cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Output file ('-': stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::sub(exportCommand), cl::cat(category));
cl::list<int64_t> showIds(cl::Positional, cl::desc("<record id>..."),
                          cl::OneOrMore, cl::sub(showCommand));
cl::list<int64_t> verifyIds(cl::Positional, cl::desc("[record id...]"),
                            cl::ZeroOrMore, cl::sub(verifyCommand));
cl::list<std::string> importFiles(cl::Positional,
                                  cl::desc("<knowledge base or library>..."),
                                  cl::OneOrMore, cl::sub(importCommand));
cl::list<std::string> mergeFiles(cl::Positional,
                                 cl::desc("<knowledge base>..."),
                                 cl::OneOrMore, cl::sub(mergeCommand));
cl::opt<bool> update("update",
                     cl::desc("Store the new measurements as this machine's "
                              "records"),
                     cl::init(false), cl::sub(verifyCommand), cl::cat(category));
cl::opt<double> measureSeconds("measure-seconds",
                               cl::desc("Time per measurement"), cl::init(0.5),
                               cl::sub(verifyCommand), cl::cat(category));
cl::opt<bool> stale("stale",
                    cl::desc("Also remove every record of another compiler "
                             "version"),
                    cl::init(false), cl::sub(pruneCommand), cl::cat(category));
cl::opt<bool> dryRun("dry-run", cl::desc("Say what would be removed"),
                     cl::init(false), cl::sub(pruneCommand), cl::cat(category));

int fail(const llvm::Twine &message) {
  llvm::errs() << "int21-kb: error: " << message << "\n";
  return 1;
}

std::string kbFile() {
  return kbPath.empty() ? KnowledgeBase::defaultPath() : kbPath.getValue();
}

/// "cpu" is this machine's resolved target; others stay as given.
std::optional<std::string> resolveTarget(llvm::StringRef target) {
  if (!target.starts_with("cpu"))
    return target.str();
  llvm::Expected<int21::Target> resolved = int21::Target::parse(target);
  if (!resolved) {
    fail("--target: " + llvm::toString(resolved.takeError()));
    return std::nullopt;
  }
  return resolved->name();
}

/// The records `--target` selects (all of them without it), in `records`;
/// false after saying why not.
bool recordsOfTarget(KnowledgeBase &kb,
                     std::vector<KnowledgeRecord> &records) {
  std::string target;
  if (!targetOption.empty()) {
    std::optional<std::string> resolved = resolveTarget(targetOption);
    if (!resolved)
      return false;
    target = *resolved;
  }
  llvm::Expected<std::vector<KnowledgeRecord>> all = kb.records(target);
  if (!all) {
    fail(llvm::toString(all.takeError()));
    return false;
  }
  records = std::move(*all);
  return true;
}

std::string workText(const KnowledgeRecord &record) {
  return record.opKind + " " + dimsText(record.dims) + " " +
         record.elementTypes;
}

bool isKnowledgeBaseFile(llvm::StringRef path) {
  auto head = llvm::MemoryBuffer::getFileSlice(path, 16, 0);
  return head && (*head)->getBuffer() == llvm::StringRef("SQLite format 3\0", 16);
}

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

int listRecords(KnowledgeBase &kb) {
  std::vector<KnowledgeRecord> records;
  if (!recordsOfTarget(kb, records))
    return 1;
  llvm::outs() << llvm::format("%5s  %-28s  %10s  %8s  %-11s  %s\n", "id",
                               "work", "median ms", "speed-up", "found by",
                               "schedule / target / machine");
  for (const KnowledgeRecord &record : records)
    llvm::outs() << llvm::format("%5lld  %-28s  %10.4g  %7.2fx  %-11s  ",
                                 (long long)record.id,
                                 workText(record).c_str(),
                                 record.time.medianMs, record.speedup(),
                                 record.agent.c_str())
                 << describe(record.schedule) << "  " << record.target << "  "
                 << record.machine << ", " << threadsText(record.threads) << "\n";
  llvm::outs() << records.size()
               << (records.size() == 1 ? " record" : " records") << " in "
               << kb.path() << "\n";
  return 0;
}

void printRecord(const KnowledgeRecord &record, llvm::raw_ostream &os) {
  os << "record " << record.id << ": " << workText(record) << "\n"
     << "  kernel:      " << record.signature << "\n"
     << "  target:      " << record.target << "\n"
     << "  compiler:    " << record.compilerVersion << "\n"
     << "  machine:     " << record.machine << "\n"
     << "  timed on:    " << threadsText(record.threads) << "\n"
     << "  schedule:    " << describe(record.schedule) << "\n"
     << "  time:        " << llvm::format("%.6g", record.time.medianMs)
     << " ms median (min " << llvm::format("%.6g", record.time.minMs)
     << ", max " << llvm::format("%.6g", record.time.maxMs) << ", spread "
     << llvm::format("%.1f", 100 * record.time.spread) << "%, "
     << record.time.reps << " runs)\n"
     << "  default:     " << llvm::format("%.6g", record.defaultMs)
     << " ms (" << llvm::format("%.2f", record.speedup()) << "x)\n"
     << "  roofline:    " << llvm::format("%.6g", record.rooflineMs)
     << " ms (" << llvm::format("%.0f", 100 * record.rooflineFraction())
     << "% achieved)\n"
     << "  correctness: seed " << record.seed << ", max error "
     << llvm::format("%.3g", record.maxError) << ", tolerance "
     << record.tolerance << "\n"
     << "  found by:    " << record.agent
     << (record.parent.empty() ? "" : " from " + record.parent) << "\n"
     << "  recorded:    " << record.createdAt << "\n";
  if (!record.kernelIR.empty())
    os << "  kernel module:\n" << record.kernelIR << "\n";
}

int showRecords(KnowledgeBase &kb) {
  for (int64_t id : showIds) {
    llvm::Expected<std::optional<KnowledgeRecord>> record = kb.get(id);
    if (!record)
      return fail(llvm::toString(record.takeError()));
    if (!*record)
      return fail("no record " + llvm::Twine(id) + " in " + kb.path());
    printRecord(**record, llvm::outs());
  }
  return 0;
}

int exportRecords(KnowledgeBase &kb) {
  std::optional<std::string> target =
      resolveTarget(targetOption.empty() ? "cpu" : targetOption.getValue());
  if (!target)
    return 1;
  llvm::Expected<std::vector<KnowledgeRecord>> records = kb.records(*target);
  if (!records)
    return fail(llvm::toString(records.takeError()));
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
  llvm::Expected<std::string> text =
      exportLibrary(*context, *records, *target, kb.path());
  if (!text)
    return fail(llvm::toString(text.takeError()));
  if (outputPath == "-") {
    llvm::outs() << *text;
    return 0;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(outputPath, ec);
  if (ec)
    return fail("cannot write '" + outputPath + "': " + ec.message());
  os << *text;
  return 0;
}

/// Stores `records` (keeping the faster per key); returns how many.
llvm::Expected<unsigned> storeAll(KnowledgeBase &kb,
                                  const std::vector<KnowledgeRecord> &records) {
  for (const KnowledgeRecord &record : records)
    if (llvm::Expected<int64_t> id = kb.put(record); !id)
      return id.takeError();
  return unsigned(records.size());
}

int importFrom(KnowledgeBase &kb, const std::vector<std::string> &files,
               bool knowledgeBasesOnly) {
  std::unique_ptr<mlir::MLIRContext> context;
  for (const std::string &file : files) {
    if (!llvm::sys::fs::exists(file))
      return fail("no such file '" + file + "'");
    if (llvm::sys::fs::equivalent(file, kb.path()))
      return fail("'" + file + "' is the knowledge base itself");
    unsigned losers = 0, merges = 0;
    std::vector<KnowledgeRecord> records;
    if (isKnowledgeBaseFile(file)) {
      auto other = KnowledgeBase::open(file, /*readOnly=*/true);
      if (!other)
        return fail(llvm::toString(other.takeError()));
      auto read = (*other)->records();
      auto readLosers = (*other)->allLosers();
      auto readMerges = (*other)->merges();
      if (!read || !readLosers || !readMerges)
        return fail("cannot read '" + file + "'");
      records = std::move(*read);
      if (llvm::Error error = kb.putLosers(*readLosers))
        return fail(llvm::toString(std::move(error)));
      for (const KnowledgeMerge &merge : *readMerges)
        if (llvm::Error error = kb.putMerge(merge))
          return fail(llvm::toString(std::move(error)));
      losers = readLosers->size();
      merges = readMerges->size();
    } else {
      if (knowledgeBasesOnly)
        return fail("'" + file +
                    "' is not a knowledge base (an exported library is read "
                    "by int21-kb import)");
      auto buffer = llvm::MemoryBuffer::getFile(file);
      if (!buffer)
        return fail("cannot read '" + file + "': " +
                    buffer.getError().message());
      if (!context)
        context = makeContext();
      auto read = importLibrary(*context, (*buffer)->getBuffer(), file);
      if (!read)
        return fail(llvm::toString(read.takeError()));
      records = std::move(*read);
    }
    llvm::Expected<unsigned> stored = storeAll(kb, records);
    if (!stored)
      return fail(llvm::toString(stored.takeError()));
    llvm::outs() << file << ": " << records.size() << " records";
    if (losers || merges)
      llvm::outs() << ", " << losers << " losers, " << merges << " merges";
    llvm::outs() << " (a record replaces one of the same work, target, "
                    "compiler and machine only when faster)\n";
  }
  return 0;
}

/// The int21-compile next to this executable (the children of a search).
std::string compilerExecutable(const char *argv0) {
  llvm::SmallString<256> path(llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&compilerExecutable)));
  llvm::sys::path::remove_filename(path);
  llvm::sys::path::append(path, "int21-compile");
  return path.str().str();
}

int verifyRecords(KnowledgeBase &kb, const char *argv0) {
  std::vector<KnowledgeRecord> chosen;
  if (verifyIds.empty()) {
    if (!recordsOfTarget(kb, chosen))
      return 1;
  }
  for (int64_t id : verifyIds) {
    auto record = kb.get(id);
    if (!record)
      return fail(llvm::toString(record.takeError()));
    if (!*record)
      return fail("no record " + llvm::Twine(id) + " in " + kb.path());
    chosen.push_back(std::move(**record));
  }
  std::string worker = compilerExecutable(argv0);
  if (!llvm::sys::fs::can_execute(worker))
    return fail("verify runs '" + worker + "', which is not there");
  std::string host;
  if (std::optional<std::string> resolved = resolveTarget("cpu"))
    host = *resolved;
  else
    return 1;

  unsigned failed = 0;
  for (const KnowledgeRecord &record : chosen) {
    llvm::outs() << "record " << record.id << " (" << workText(record)
                 << ", " << describe(record.schedule) << "): ";
    if (record.target != host) {
      llvm::outs() << "skipped: recorded for " << record.target
                   << ", this machine is " << host << "\n";
      continue;
    }
    if (record.kernelIR.empty()) {
      llvm::outs() << "skipped: no kernel module (imported from a "
                      "library)\n";
      continue;
    }
    std::unique_ptr<mlir::MLIRContext> context = makeContext();
    mlir::OwningOpRef<mlir::ModuleOp> kernel;
    if (!int21::findKnownParserCrash(record.kernelIR))
      kernel = mlir::parseSourceString<mlir::ModuleOp>(record.kernelIR,
                                                       context.get());
    if (!kernel) {
      llvm::outs() << "FAILED: its kernel module does not parse\n";
      ++failed;
      continue;
    }
    // A search of one trial whose only agent proposes the record's schedule:
    // the reference, the default and the record, checked and timed here.
    llvm::SmallString<128> dir;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("int21-kb-verify", dir))
      return fail("cannot create a working directory: " + ec.message());
    std::string scratch = (dir + "/kb.sqlite").str();
    {
      auto temporary = KnowledgeBase::open(scratch);
      if (!temporary)
        return fail(llvm::toString(temporary.takeError()));
      KnowledgeRecord copy = record;
      copy.machine = "(to verify) " + record.machine;
      // Verified here: the scratch copy is a record of this machine's target,
      // the one the search below compiles for.
      copy.target = int21::Target().name();
      if (auto id = (*temporary)->put(copy); !id)
        return fail(llvm::toString(id.takeError()));
    }
    auto temporary = KnowledgeBase::open(scratch);
    if (!temporary)
      return fail(llvm::toString(temporary.takeError()));
    TuneOptions options;
    options.budget = 1;
    options.agents = {"knowledge"};
    options.knowledgeBase = temporary->get();
    options.workerExecutable = worker;
    options.measureSeconds = measureSeconds;
    options.seed = record.seed + 1;
    // Timed as it was recorded.
    options.threads = record.threads;
    options.logPath = (dir + "/log.jsonl").str();
    std::string progress;
    llvm::raw_string_ostream progressStream(progress);
    llvm::Expected<TuneResult> result =
        tuneModule(*kernel, options, progressStream);
    if (!result) {
      llvm::outs() << "FAILED: " << llvm::toString(result.takeError()) << "\n";
      ++failed;
      llvm::sys::fs::remove_directories(dir);
      continue;
    }
    // The log's trials: the default, then the record's schedule.
    std::string wanted = llvm::utohexstr(
        scheduleHash(record.signature, record.schedule), /*LowerCase=*/true);
    std::optional<llvm::json::Object> trial;
    double defaultMs = 0;
    if (auto log = llvm::MemoryBuffer::getFile(options.logPath)) {
      llvm::SmallVector<llvm::StringRef> lines;
      (*log)->getBuffer().split(lines, '\n', -1, false);
      for (llvm::StringRef line : lines) {
        llvm::Expected<llvm::json::Value> value = int21::parseJSON(line);
        if (!value) {
          llvm::consumeError(value.takeError());
          continue;
        }
        llvm::json::Object *object = value->getAsObject();
        if (!object)
          continue;
        // The record's schedule may be the default one: found by its hash.
        if (object->getString("agent") == "default")
          defaultMs = object->getNumber("median_ms").value_or(0);
        if (object->getString("hash") == wanted)
          trial = std::move(*object);
      }
    }
    llvm::sys::fs::remove_directories(dir);
    if (!trial) {
      llvm::outs() << "FAILED: not measured ("
                   << (result->kernels.empty() ? "no kernel"
                                               : result->kernels[0].error)
                   << ")\n";
      ++failed;
      continue;
    }
    std::string outcome = trial->getString("outcome").value_or("").str();
    if (outcome != "ok") {
      llvm::outs() << "FAILED: " << outcome << ": "
                   << trial->getString("error").value_or("") << "\n";
      ++failed;
      continue;
    }
    double medianMs = trial->getNumber("median_ms").value_or(0);
    llvm::outs() << "correct (max error "
                 << llvm::format("%.3g", trial->getNumber("max_error").value_or(0))
                 << "), " << llvm::format("%.4g", medianMs) << " ms now, "
                 << llvm::format("%.4g", record.time.medianMs)
                 << " ms recorded ("
                 << llvm::format("%+.1f", 100 * (medianMs / record.time.medianMs - 1))
                 << "%), default " << llvm::format("%.4g", defaultMs)
                 << " ms now\n";
    if (update) {
      KnowledgeRecord measured = record;
      measured.compilerVersion = int21::compilerVersion().str();
      measured.machine = KnowledgeBase::thisMachine();
      measured.time.medianMs = medianMs;
      measured.time.minMs = trial->getNumber("min_ms").value_or(medianMs);
      measured.time.maxMs = trial->getNumber("max_ms").value_or(medianMs);
      measured.time.spread = trial->getNumber("spread").value_or(0);
      measured.time.reps =
          unsigned(trial->getInteger("reps").value_or(record.time.reps));
      measured.maxError = trial->getNumber("max_error").value_or(0);
      measured.defaultMs = defaultMs;
      measured.seed = options.seed;
      measured.createdAt.clear();
      if (auto id = kb.put(measured); !id)
        return fail(llvm::toString(id.takeError()));
    }
  }
  if (failed)
    return fail(llvm::Twine(failed) + " of " + llvm::Twine(chosen.size()) +
                " records failed verification");
  return 0;
}

int pruneRecords(KnowledgeBase &kb) {
  auto all = kb.records();
  if (!all)
    return fail(llvm::toString(all.takeError()));
  std::string version = int21::compilerVersion().str();
  // Work recorded by this compiler, per target, machine and threads.
  std::set<std::tuple<std::string, std::string, std::string, unsigned>> current;
  for (const KnowledgeRecord &record : *all)
    if (record.compilerVersion == version)
      current.insert(
          {record.signature, record.target, record.machine, record.threads});
  std::vector<int64_t> doomed;
  for (const KnowledgeRecord &record : *all) {
    if (record.compilerVersion == version)
      continue;
    bool superseded = current.count(
        {record.signature, record.target, record.machine, record.threads});
    if (!superseded && !stale)
      continue;
    llvm::outs() << (dryRun ? "would remove" : "removing") << " record "
                 << record.id << " (" << workText(record) << ", "
                 << record.compilerVersion << ", "
                 << (superseded ? "superseded" : "stale") << ")\n";
    doomed.push_back(record.id);
  }
  if (dryRun || doomed.empty()) {
    llvm::outs() << doomed.size() << " of " << all->size()
                 << " records " << (dryRun ? "would be" : "were")
                 << " removed\n";
    return 0;
  }
  auto removed = kb.remove(doomed);
  if (!removed)
    return fail(llvm::toString(removed.takeError()));
  llvm::outs() << *removed << " of " << all->size() << " records removed\n";
  return 0;
}

int checkKnowledgeBase(KnowledgeBase &kb) {
  if (llvm::Error error = kb.check())
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error error = kb.checkRecords())
    return fail(llvm::toString(std::move(error)));
  auto records = kb.records();
  auto losers = kb.allLosers();
  auto merges = kb.merges();
  if (!records || !losers || !merges)
    return fail("cannot read '" + kb.path() + "'");
  llvm::outs() << kb.path() << ": ok, " << records->size() << " records, "
               << losers->size() << " losers, " << merges->size()
               << " merges\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "int21-kb: inspect, export, import, merge, verify and prune a "
      "knowledge base\n");
  bool readOnly = listCommand || showCommand || exportCommand ||
                  checkCommand;
  if (!(readOnly || importCommand || mergeCommand || verifyCommand ||
        pruneCommand))
    return fail("give a command: list, show, export, import, merge, "
                "verify, prune or check (see --help)");
  auto kb = KnowledgeBase::open(kbFile(), readOnly);
  if (!kb)
    return fail(llvm::toString(kb.takeError()));
  if (listCommand)
    return listRecords(**kb);
  if (showCommand)
    return showRecords(**kb);
  if (exportCommand)
    return exportRecords(**kb);
  if (importCommand)
    return importFrom(**kb, importFiles, /*knowledgeBasesOnly=*/false);
  if (mergeCommand)
    return importFrom(**kb, mergeFiles, /*knowledgeBasesOnly=*/true);
  if (verifyCommand)
    return verifyRecords(**kb, argv[0]);
  if (pruneCommand)
    return pruneRecords(**kb);
  return checkKnowledgeBase(**kb);
}

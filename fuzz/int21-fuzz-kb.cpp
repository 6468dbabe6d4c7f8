//===- int21-fuzz-kb.cpp - knowledge-base files -> open/check/find/export -===//
//
// The bytes are a knowledge-base file (SQLite) as int21-kb and a compile
// read it: it is opened (an older schema migrated), checked (int21-kb
// check), its records listed and looked up (what a compile does) and
// exported as a transform library and read back (int21-kb export, import).
// Byte flips alone mostly corrupt SQLite's pages, which SQLite refuses: the
// custom mutator also edits the records through SQL, one column of one row
// set to a mutated value (text, an integer, a real or NULL), as a user or
// a broken tool with sqlite3 would.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "int21/AgentSearch/KnowledgeBase.h"
#include "int21/AgentSearch/Library.h"
#include "int21/Compiler/Compiler.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <sqlite3.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

using namespace int21::search;

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

/// A file of this process's own for the bytes of one execution.
std::string scratchPath(llvm::StringRef use) {
  return ("/tmp/int21-fuzz-kb-" + llvm::Twine(llvm::sys::Process::getProcessId()) +
          "-" + use + ".sqlite")
      .str();
}

void removeDatabase(const std::string &path) {
  for (const char *suffix : {"", "-wal", "-shm", "-journal"})
    llvm::sys::fs::remove(path + suffix);
}

bool writeBytes(const std::string &path, const uint8_t *data, size_t size) {
  removeDatabase(path);
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return false;
  os.write(reinterpret_cast<const char *>(data), size);
  return !os.has_error();
}

/// One SQL edit of the database at `path`: a column of a row of a table set
/// to a mutated value. False when the file is no database to edit.
bool editRecord(const std::string &path, std::mt19937 &rng) {
  sqlite3 *db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  static const char *const kTables[] = {"records", "losers", "merges", "meta"};
  std::string table = kTables[rng() % 4];
  sqlite3_stmt *columns = nullptr;
  std::vector<std::string> names;
  if (sqlite3_prepare_v2(db, ("PRAGMA table_info(" + table + ")").c_str(), -1,
                         &columns, nullptr) == SQLITE_OK)
    while (sqlite3_step(columns) == SQLITE_ROW)
      names.push_back(
          reinterpret_cast<const char *>(sqlite3_column_text(columns, 1)));
  sqlite3_finalize(columns);
  bool edited = false;
  if (!names.empty()) {
    std::string column = names[rng() % names.size()];
    // The row's present value, mutated, or a value of another kind.
    std::string value;
    sqlite3_stmt *read = nullptr;
    std::string select = "SELECT rowid, CAST(\"" + column +
                         "\" AS TEXT) FROM " + table +
                         " ORDER BY random() LIMIT 1";
    int64_t rowid = -1;
    if (sqlite3_prepare_v2(db, select.c_str(), -1, &read, nullptr) ==
            SQLITE_OK &&
        sqlite3_step(read) == SQLITE_ROW) {
      rowid = sqlite3_column_int64(read, 0);
      if (const unsigned char *text = sqlite3_column_text(read, 1))
        value = reinterpret_cast<const char *>(text);
    }
    sqlite3_finalize(read);
    sqlite3_stmt *write = nullptr;
    std::string update = "UPDATE " + table + " SET \"" + column +
                         "\" = ?1 WHERE rowid = ?2";
    if (rowid >= 0 && sqlite3_prepare_v2(db, update.c_str(), -1, &write,
                                         nullptr) == SQLITE_OK) {
      switch (rng() % 6) {
      case 0:
        sqlite3_bind_null(write, 1);
        break;
      case 1:
        sqlite3_bind_int64(write, 1, static_cast<int64_t>(rng()) - (1 << 30));
        break;
      case 2:
        sqlite3_bind_double(write, 1,
                            std::ldexp(1.0, static_cast<int>(rng() % 2048) - 1024));
        break;
      default: {
        size_t size = value.size();
        value.resize(size + 64);
        size = LLVMFuzzerMutate(reinterpret_cast<uint8_t *>(value.data()),
                                size, value.size());
        value.resize(size);
        sqlite3_bind_text(write, 1, value.data(), value.size(),
                          SQLITE_TRANSIENT);
      }
      }
      sqlite3_bind_int64(write, 2, rowid);
      edited = sqlite3_step(write) == SQLITE_DONE;
    }
    sqlite3_finalize(write);
  }
  // Back into one file, without a WAL beside it.
  sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr,
               nullptr);
  sqlite3_close(db);
  return edited;
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  std::mt19937 rng(seed);
  if (rng() % 4 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string path = scratchPath("mutate");
  if (!writeBytes(path, data, size) || !editRecord(path, rng)) {
    removeDatabase(path);
    return LLVMFuzzerMutate(data, size, maxSize);
  }
  auto buffer = llvm::MemoryBuffer::getFile(path);
  size_t written = size;
  if (buffer && (*buffer)->getBufferSize() <= maxSize) {
    written = (*buffer)->getBufferSize();
    std::memcpy(data, (*buffer)->getBufferStart(), written);
  }
  removeDatabase(path);
  return written;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = scratchPath("input");
  if (!writeBytes(path, data, size))
    return 0;
  {
    llvm::Expected<std::unique_ptr<KnowledgeBase>> kb =
        KnowledgeBase::open(path);
    if (!kb) {
      llvm::consumeError(kb.takeError());
      removeDatabase(path);
      return 0;
    }
    llvm::consumeError((*kb)->check());
    llvm::consumeError((*kb)->checkRecords());
    llvm::Expected<std::vector<KnowledgeRecord>> records = (*kb)->records();
    if (!records) {
      llvm::consumeError(records.takeError());
    } else {
      for (const KnowledgeRecord &record : *records) {
        auto found = (*kb)->find(record.signature, record.target);
        if (!found)
          llvm::consumeError(found.takeError());
      }
      mlir::DialectRegistry registry;
      int21::registerCompilerDialects(registry);
      mlir::MLIRContext context(registry,
                                mlir::MLIRContext::Threading::DISABLED);
      int21::fuzz::QuietDiagnostics quiet(context);
      for (const char *target : {"cpu", "sm_90"}) {
        llvm::Expected<std::string> library =
            exportLibrary(context, *records, target, "fuzz");
        if (!library) {
          llvm::consumeError(library.takeError());
          continue;
        }
        auto back = importLibrary(context, *library, "fuzz.mlir");
        if (!back)
          llvm::consumeError(back.takeError());
      }
    }
  }
  removeDatabase(path);
  return 0;
}

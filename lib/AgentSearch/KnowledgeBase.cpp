//===- KnowledgeBase.cpp - what the search learned, kept in SQLite --------===//

#include "int21/AgentSearch/KnowledgeBase.h"
#include "int21/Support/JSON.h"

#include "int21/Transforms/Schedule.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/TargetParser/Host.h"

#include <sqlite3.h>

#include <chrono>
#include <ctime>
#include <unistd.h>

namespace int21::search {

namespace {

/// 'i21k': what PRAGMA application_id says in every knowledge base.
constexpr int32_t kApplicationId = 0x6932316b;

/// The schema, version by version: migrations[v] takes a file from version v
/// to v + 1.
const char *const kMigrations[] = {
    // 0 -> 1: records, losers, merges.
    R"sql(
CREATE TABLE records(
  id INTEGER PRIMARY KEY,
  signature TEXT NOT NULL,
  target TEXT NOT NULL,
  compiler_version TEXT NOT NULL,
  machine TEXT NOT NULL,
  op_kind TEXT NOT NULL,
  dims TEXT NOT NULL,
  element_types TEXT NOT NULL,
  kernel_ir TEXT NOT NULL,
  template TEXT NOT NULL,
  knobs TEXT NOT NULL,
  schedule_hash TEXT NOT NULL,
  median_ms REAL NOT NULL,
  min_ms REAL NOT NULL,
  max_ms REAL NOT NULL,
  spread REAL NOT NULL,
  reps INTEGER NOT NULL,
  default_ms REAL NOT NULL,
  seed INTEGER NOT NULL,
  max_error REAL NOT NULL,
  tolerance TEXT NOT NULL,
  roofline_ms REAL NOT NULL,
  agent TEXT NOT NULL,
  parent TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE(signature, target, compiler_version, machine)
);
CREATE INDEX records_by_kind ON records(target, op_kind);
CREATE TABLE losers(
  signature TEXT NOT NULL,
  target TEXT NOT NULL,
  schedule_hash TEXT NOT NULL,
  outcome TEXT NOT NULL,
  ratio REAL NOT NULL,
  PRIMARY KEY(signature, target, schedule_hash)
) WITHOUT ROWID;
CREATE TABLE merges(
  producer TEXT NOT NULL,
  consumer TEXT NOT NULL,
  merged TEXT NOT NULL,
  target TEXT NOT NULL,
  gain_ms REAL NOT NULL,
  PRIMARY KEY(producer, consumer, target)
) WITHOUT ROWID;
)sql",
    // 1 -> 2: records are keyed by the threads they were timed on as well;
    // the older ones were timed on one.
    R"sql(
CREATE TABLE records_v2(
  id INTEGER PRIMARY KEY,
  signature TEXT NOT NULL,
  target TEXT NOT NULL,
  compiler_version TEXT NOT NULL,
  machine TEXT NOT NULL,
  op_kind TEXT NOT NULL,
  dims TEXT NOT NULL,
  element_types TEXT NOT NULL,
  kernel_ir TEXT NOT NULL,
  template TEXT NOT NULL,
  knobs TEXT NOT NULL,
  schedule_hash TEXT NOT NULL,
  median_ms REAL NOT NULL,
  min_ms REAL NOT NULL,
  max_ms REAL NOT NULL,
  spread REAL NOT NULL,
  reps INTEGER NOT NULL,
  default_ms REAL NOT NULL,
  seed INTEGER NOT NULL,
  max_error REAL NOT NULL,
  tolerance TEXT NOT NULL,
  roofline_ms REAL NOT NULL,
  agent TEXT NOT NULL,
  parent TEXT NOT NULL,
  created_at TEXT NOT NULL,
  threads INTEGER NOT NULL DEFAULT 1,
  UNIQUE(signature, target, compiler_version, machine, threads)
);
INSERT INTO records_v2 SELECT *, 1 FROM records;
DROP TABLE records;
ALTER TABLE records_v2 RENAME TO records;
CREATE INDEX records_by_kind ON records(target, op_kind);
)sql",
};
static_assert(std::size(kMigrations) == KnowledgeBase::kSchemaVersion,
              "one migration per schema version");

std::string hashText(uint64_t hash) {
  return llvm::utohexstr(hash, /*LowerCase=*/true, /*Width=*/16);
}

uint64_t parseHash(llvm::StringRef text) {
  uint64_t value = 0;
  text.getAsInteger(16, value);
  return value;
}

std::string nowUTC() {
  std::time_t now = std::time(nullptr);
  std::tm utc;
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string knobsToJSON(const std::map<std::string, int64_t> &knobs) {
  llvm::json::Object object;
  for (const auto &[name, value] : knobs)
    object[name] = value;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(object));
  return text;
}

std::map<std::string, int64_t> knobsFromJSON(llvm::StringRef text) {
  std::map<std::string, int64_t> knobs;
  llvm::Expected<llvm::json::Value> value = int21::parseJSON(text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return knobs;
  }
  if (const llvm::json::Object *object = value->getAsObject())
    for (const auto &[name, knob] : *object)
      if (std::optional<int64_t> number = knob.getAsInteger())
        knobs[name.str()] = *number;
  return knobs;
}

std::vector<int64_t> dimsFromText(llvm::StringRef text) {
  std::vector<int64_t> dims;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    int64_t dim = 0;
    if (!part.getAsInteger(10, dim))
      dims.push_back(dim);
  }
  return dims;
}

/// A prepared statement; errors carry the knowledge base's path.
class Statement {
public:
  Statement(sqlite3 *db, llvm::StringRef sql) : db(db) {
    status = sqlite3_prepare_v2(db, sql.data(), int(sql.size()), &stmt,
                                nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt); }
  bool ok() const { return status == SQLITE_OK; }

  Statement &bind(int index, llvm::StringRef text) {
    sqlite3_bind_text(stmt, index, text.data(), int(text.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Statement &bind(int index, double value) {
    sqlite3_bind_double(stmt, index, value);
    return *this;
  }
  Statement &bind(int index, int64_t value) {
    sqlite3_bind_int64(stmt, index, value);
    return *this;
  }

  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return status = sqlite3_step(stmt); }
  void reset() {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  }

  std::string text(int column) const {
    const unsigned char *value = sqlite3_column_text(stmt, column);
    return value ? reinterpret_cast<const char *>(value) : "";
  }
  double real(int column) const { return sqlite3_column_double(stmt, column); }
  int64_t integer(int column) const {
    return sqlite3_column_int64(stmt, column);
  }

private:
  sqlite3 *db;
  sqlite3_stmt *stmt = nullptr;
  int status;
};

llvm::Error sqlError(sqlite3 *db, llvm::StringRef path, llvm::StringRef what) {
  return llvm::createStringError("knowledge base '" + path + "': " + what +
                                 ": " + sqlite3_errmsg(db));
}

constexpr const char *kRecordColumns =
    "id, signature, target, compiler_version, machine, op_kind, dims, "
    "element_types, kernel_ir, template, knobs, schedule_hash, median_ms, "
    "min_ms, max_ms, spread, reps, default_ms, seed, max_error, tolerance, "
    "roofline_ms, agent, parent, created_at, threads";

KnowledgeRecord readRecord(const Statement &row) {
  KnowledgeRecord record;
  record.id = row.integer(0);
  record.signature = row.text(1);
  record.target = row.text(2);
  record.compilerVersion = row.text(3);
  record.machine = row.text(4);
  record.opKind = row.text(5);
  record.dims = dimsFromText(row.text(6));
  record.elementTypes = row.text(7);
  record.kernelIR = row.text(8);
  record.schedule.sequence = row.text(9);
  record.schedule.knobs = knobsFromJSON(row.text(10));
  record.time.medianMs = row.real(12);
  record.time.minMs = row.real(13);
  record.time.maxMs = row.real(14);
  record.time.spread = row.real(15);
  record.time.reps = unsigned(row.integer(16));
  record.defaultMs = row.real(17);
  record.seed = uint64_t(row.integer(18));
  record.maxError = row.real(19);
  record.tolerance = row.text(20);
  record.rooflineMs = row.real(21);
  record.agent = row.text(22);
  record.parent = row.text(23);
  record.createdAt = row.text(24);
  record.threads = unsigned(std::max<int64_t>(1, row.integer(25)));
  return record;
}

/// Why the record in `row` (kRecordColumns, read into `record`) is not a
/// schedule int21 can apply to its own work: knobs that are not a JSON
/// object of integers, a template or knob the templates do not have, a value
/// of the wrong kind or outside its domain for the record's loop sizes.
/// Empty when it is one.
std::string recordProblem(const Statement &row, const KnowledgeRecord &record) {
  std::string knobsText = row.text(10);
  llvm::Expected<llvm::json::Value> value = int21::parseJSON(knobsText);
  if (!value) {
    std::string why = llvm::toString(value.takeError());
    return "its knobs are not JSON (" + why + ")";
  }
  const llvm::json::Object *object = value->getAsObject();
  if (!object)
    return "its knobs are not a JSON object";
  for (const auto &[name, knob] : *object)
    if (!knob.getAsInteger())
      return ("knob '" + name.str() + "' of template @" +
              record.schedule.sequence + " is not an integer");
  int21::schedule::Knobs knobs;
  for (const auto &[name, number] : record.schedule.knobs)
    knobs[name] = number;
  std::string error;
  if (mlir::failed(int21::schedule::checkProposal(
          record.schedule.sequence, knobs, record.dims, error)))
    return error;
  return "";
}

/// BEGIN IMMEDIATE ... COMMIT, rolled back unless committed.
class Transaction {
public:
  explicit Transaction(sqlite3 *db) : db(db) {
    status = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  }
  ~Transaction() {
    if (status == SQLITE_OK && !committed)
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  bool ok() const { return status == SQLITE_OK; }
  bool commit() {
    committed =
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
    return committed;
  }

private:
  sqlite3 *db;
  int status;
  bool committed = false;
};

} // namespace

KnowledgeBase::~KnowledgeBase() { sqlite3_close_v2(db); }

std::string KnowledgeBase::defaultPath() {
  llvm::SmallString<256> path;
  if (std::optional<std::string> cache =
          llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      cache && !cache->empty()) {
    path = *cache;
  } else if (std::optional<std::string> home =
                 llvm::sys::Process::GetEnv("HOME");
             home && !home->empty()) {
    path = *home;
    llvm::sys::path::append(path, ".cache");
  } else {
    path = "/tmp";
  }
  llvm::sys::path::append(path, "int21", "kb.sqlite");
  return path.str().str();
}

/// A schema version int21 can read or migrate: [0, kSchemaVersion]. A
/// negative one was written by no int21 (migrations index by it).
static llvm::Error checkSchemaVersion(int64_t schema, llvm::StringRef where) {
  if (schema > KnowledgeBase::kSchemaVersion)
    return llvm::createStringError(
        "knowledge base '" + where + "' has schema version " +
        std::to_string(schema) + ", newer than this int21 reads (" +
        std::to_string(KnowledgeBase::kSchemaVersion) + ")");
  if (schema < 0)
    return llvm::createStringError("knowledge base '" + where +
                                   "' has schema version " +
                                   std::to_string(schema) +
                                   ", which no int21 writes");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<KnowledgeBase>>
KnowledgeBase::openForCompile(llvm::StringRef path, bool tuning) {
  std::string file = path.empty() ? defaultPath() : path.str();
  if (!tuning && path.empty() && !llvm::sys::fs::exists(file))
    return nullptr;
  return open(file, /*readOnly=*/!tuning);
}

std::string threadsText(unsigned threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

std::string dimsText(llvm::ArrayRef<int64_t> dims) {
  std::string text;
  for (auto [i, dim] : llvm::enumerate(dims))
    text += (i ? "x" : "") + std::to_string(dim);
  return text;
}

std::string KnowledgeBase::thisMachine() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0)
    host[0] = 0;
  return std::string(host[0] ? host : "unknown") + " (" +
         llvm::sys::getHostCPUName().str() + ")";
}

llvm::Expected<std::unique_ptr<KnowledgeBase>>
KnowledgeBase::open(llvm::StringRef path, bool readOnly) {
  std::string where = path.str();
  bool exists = llvm::sys::fs::exists(path);
  if (readOnly && !exists)
    return llvm::createStringError("no knowledge base at '" + where + "'");
  if (exists) {
    // A file of something else is refused before SQLite sees it.
    if (llvm::sys::fs::is_directory(path))
      return llvm::createStringError("knowledge base '" + where +
                                     "' is a directory");
    auto buffer = llvm::MemoryBuffer::getFileSlice(path, 16, 0);
    uint64_t size = 0;
    llvm::sys::fs::file_size(path, size);
    if (size > 0 &&
        (!buffer || (*buffer)->getBuffer() !=
                        llvm::StringRef("SQLite format 3\0", 16)))
      return llvm::createStringError(
          "'" + where +
          "' is not an int21 knowledge base (not an SQLite database)");
  } else {
    llvm::StringRef dir = llvm::sys::path::parent_path(path);
    if (!dir.empty())
      if (std::error_code ec = llvm::sys::fs::create_directories(dir))
        return llvm::createStringError("cannot create '" + dir +
                                       "' for the knowledge base: " +
                                       ec.message());
  }

  sqlite3 *db = nullptr;
  int flags = readOnly ? SQLITE_OPEN_READONLY
                       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(where.c_str(), &db, flags | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return llvm::createStringError("cannot open knowledge base '" + where +
                                   "': " + message);
  }
  std::unique_ptr<KnowledgeBase> kb(new KnowledgeBase(db, where));
  // Writers wait for each other rather than fail.
  sqlite3_busy_timeout(db, 60000);

  // Read the header in statements that end before the mode changes.
  int64_t application = 0, schema = 0, objects = 0;
  {
    Statement header(db, "PRAGMA application_id");
    if (!header.ok() || header.step() != SQLITE_ROW)
      return llvm::createStringError("'" + where +
                                     "' is not an int21 knowledge base: " +
                                     sqlite3_errmsg(db));
    application = header.integer(0);
    Statement version(db, "PRAGMA user_version");
    version.step();
    schema = version.integer(0);
    Statement tables(db, "SELECT count(*) FROM sqlite_master");
    tables.step();
    objects = tables.integer(0);
  }
  if (application != kApplicationId && !(application == 0 && objects == 0))
    return llvm::createStringError(
        "'" + where +
        "' is an SQLite database but not an int21 knowledge base");
  if (llvm::Error error = checkSchemaVersion(schema, where))
    return std::move(error);
  if (!readOnly) {
    if (sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr,
                     nullptr) != SQLITE_OK)
      return sqlError(db, where, "cannot switch to WAL");
    sqlite3_exec(db, "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
  }
  if (schema < kSchemaVersion) {
    if (readOnly)
      return llvm::createStringError(
          "knowledge base '" + where + "' has schema version " +
          std::to_string(schema) + ": open it for writing to migrate it");
    if (llvm::Error error = kb->migrate())
      return std::move(error);
  }
  if (llvm::Error error = kb->check())
    return std::move(error);
  return kb;
}

llvm::Error KnowledgeBase::migrate() {
  Transaction transaction(db);
  if (!transaction.ok())
    return sqlError(db, filePath, "cannot start the migration");
  // Another process may have migrated it meanwhile.
  int64_t schema = 0;
  {
    Statement version(db, "PRAGMA user_version");
    version.step();
    schema = version.integer(0);
  }
  if (llvm::Error error = checkSchemaVersion(schema, filePath))
    return error;
  for (int64_t v = schema; v < kSchemaVersion; ++v)
    if (sqlite3_exec(db, kMigrations[v], nullptr, nullptr, nullptr) !=
        SQLITE_OK)
      return sqlError(db, filePath,
                      "migration to schema " + std::to_string(v + 1));
  std::string pragmas =
      "PRAGMA application_id=" + std::to_string(kApplicationId) +
      "; PRAGMA user_version=" + std::to_string(kSchemaVersion);
  if (sqlite3_exec(db, pragmas.c_str(), nullptr, nullptr, nullptr) !=
          SQLITE_OK ||
      !transaction.commit())
    return sqlError(db, filePath, "cannot commit the migration");
  return llvm::Error::success();
}

llvm::Error KnowledgeBase::check() const {
  Statement integrity(db, "PRAGMA quick_check");
  if (!integrity.ok())
    return llvm::createStringError("knowledge base '" + filePath +
                                   "' is corrupt: " + sqlite3_errmsg(db));
  std::string problems;
  while (integrity.step() == SQLITE_ROW) {
    std::string line = integrity.text(0);
    if (line != "ok")
      problems += (problems.empty() ? "" : "; ") + line;
  }
  if (!problems.empty())
    return llvm::createStringError("knowledge base '" + filePath +
                                   "' is corrupt: " + problems);
  for (llvm::StringRef table : {"records", "losers", "merges"}) {
    Statement exists(
        db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?");
    exists.bind(1, table);
    if (exists.step() != SQLITE_ROW || exists.integer(0) != 1)
      return llvm::createStringError("knowledge base '" + filePath +
                                     "' lacks its '" + table + "' table");
  }
  return llvm::Error::success();
}

llvm::Error KnowledgeBase::checkRecords() const {
  std::string problems;
  Statement rows(db, std::string("SELECT ") + kRecordColumns +
                         " FROM records ORDER BY id");
  if (!rows.ok())
    return sqlError(db, filePath, "check");
  int status;
  size_t bad = 0;
  constexpr size_t kNamed = 3;
  while ((status = rows.step()) == SQLITE_ROW) {
    KnowledgeRecord record = readRecord(rows);
    std::string problem = recordProblem(rows, record);
    if (problem.empty())
      continue;
    if (++bad <= kNamed)
      problems += (problems.empty() ? "" : "; ") +
                  ("record " + std::to_string(record.id) + ": " + problem);
  }
  if (status != SQLITE_DONE)
    return sqlError(db, filePath, "check");
  if (bad > kNamed)
    problems += "; and " + std::to_string(bad - kNamed) + " more";
  if (bad)
    return llvm::createStringError("knowledge base '" + filePath + "' holds " +
                                   std::to_string(bad) + " record" +
                                   (bad == 1 ? "" : "s") +
                                   " no compile can apply: " + problems);
  return llvm::Error::success();
}

llvm::Expected<std::vector<KnowledgeRecord>>
KnowledgeBase::find(llvm::StringRef signature, llvm::StringRef target) const {
  Statement query(db, std::string("SELECT ") + kRecordColumns +
                          " FROM records WHERE signature=? AND target=? "
                          "ORDER BY median_ms, id");
  if (!query.ok())
    return sqlError(db, filePath, "lookup");
  query.bind(1, signature).bind(2, target);
  std::vector<KnowledgeRecord> found;
  int status;
  while ((status = query.step()) == SQLITE_ROW) {
    found.push_back(readRecord(query));
    // A record is a schedule proposed for its kernel like any other: one the
    // templates do not take (edited, or from a compiler whose templates
    // differed) is an error that names it, not a silent default.
    std::string problem = recordProblem(query, found.back());
    if (!problem.empty())
      return llvm::createStringError("knowledge base '" + filePath +
                                     "': record " +
                                     std::to_string(found.back().id) + ": " +
                                     problem);
  }
  if (status != SQLITE_DONE)
    return sqlError(db, filePath, "lookup");
  return found;
}

llvm::Expected<std::vector<KnowledgeRecord>>
KnowledgeBase::records(llvm::StringRef target) const {
  std::string sql = std::string("SELECT ") + kRecordColumns + " FROM records";
  if (!target.empty())
    sql += " WHERE target=?";
  sql += " ORDER BY id";
  Statement query(db, sql);
  if (!query.ok())
    return sqlError(db, filePath, "listing records");
  if (!target.empty())
    query.bind(1, target);
  std::vector<KnowledgeRecord> found;
  int status;
  while ((status = query.step()) == SQLITE_ROW)
    found.push_back(readRecord(query));
  if (status != SQLITE_DONE)
    return sqlError(db, filePath, "listing records");
  return found;
}

llvm::Expected<std::optional<KnowledgeRecord>>
KnowledgeBase::get(int64_t id) const {
  Statement query(db, std::string("SELECT ") + kRecordColumns +
                          " FROM records WHERE id=?");
  if (!query.ok())
    return sqlError(db, filePath, "reading a record");
  query.bind(1, id);
  int status = query.step();
  if (status == SQLITE_ROW)
    return std::optional<KnowledgeRecord>(readRecord(query));
  if (status != SQLITE_DONE)
    return sqlError(db, filePath, "reading a record");
  return std::nullopt;
}

llvm::Expected<int64_t> KnowledgeBase::put(const KnowledgeRecord &record,
                                           bool replace) {
  Transaction transaction(db);
  if (!transaction.ok())
    return sqlError(db, filePath, "cannot start a transaction");
  std::string hash = hashText(scheduleHash(record.signature, record.schedule));
  // The same key keeps the faster record, or takes a new measurement of the
  // same schedule (or, with `replace`, whatever comes).
  Statement upsert(
      db,
      "INSERT INTO records(signature, target, compiler_version, machine, "
      "op_kind, dims, element_types, kernel_ir, template, knobs, "
      "schedule_hash, median_ms, min_ms, max_ms, spread, reps, default_ms, "
      "seed, max_error, tolerance, roofline_ms, agent, parent, created_at, "
      "threads) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(signature, target, compiler_version, machine, threads) "
      "DO UPDATE "
      "SET op_kind=excluded.op_kind, dims=excluded.dims, "
      "element_types=excluded.element_types, kernel_ir=excluded.kernel_ir, "
      "template=excluded.template, knobs=excluded.knobs, "
      "schedule_hash=excluded.schedule_hash, median_ms=excluded.median_ms, "
      "min_ms=excluded.min_ms, max_ms=excluded.max_ms, "
      "spread=excluded.spread, reps=excluded.reps, "
      "default_ms=excluded.default_ms, seed=excluded.seed, "
      "max_error=excluded.max_error, tolerance=excluded.tolerance, "
      "roofline_ms=excluded.roofline_ms, agent=excluded.agent, "
      "parent=excluded.parent, created_at=excluded.created_at " +
          std::string(replace ? ""
                              : "WHERE excluded.median_ms < records.median_ms "
                                "OR excluded.schedule_hash = "
                                "records.schedule_hash"));
  if (!upsert.ok())
    return sqlError(db, filePath, "storing a record");
  upsert.bind(1, record.signature)
      .bind(2, record.target)
      .bind(3, record.compilerVersion)
      .bind(4, record.machine)
      .bind(5, record.opKind)
      .bind(6, dimsText(record.dims))
      .bind(7, record.elementTypes)
      .bind(8, record.kernelIR)
      .bind(9, record.schedule.sequence)
      .bind(10, knobsToJSON(record.schedule.knobs))
      .bind(11, hash)
      .bind(12, record.time.medianMs)
      .bind(13, record.time.minMs)
      .bind(14, record.time.maxMs)
      .bind(15, record.time.spread)
      .bind(16, int64_t(record.time.reps))
      .bind(17, record.defaultMs)
      .bind(18, int64_t(record.seed))
      .bind(19, record.maxError)
      .bind(20, record.tolerance)
      .bind(21, record.rooflineMs)
      .bind(22, record.agent)
      .bind(23, record.parent)
      .bind(24, record.createdAt.empty() ? nowUTC() : record.createdAt)
      .bind(25, int64_t(std::max(1u, record.threads)));
  if (upsert.step() != SQLITE_DONE)
    return sqlError(db, filePath, "storing a record");
  Statement id(db, "SELECT id FROM records WHERE signature=? AND target=? AND "
                   "compiler_version=? AND machine=? AND threads=?");
  id.bind(1, record.signature)
      .bind(2, record.target)
      .bind(3, record.compilerVersion)
      .bind(4, record.machine)
      .bind(5, int64_t(std::max(1u, record.threads)));
  if (id.step() != SQLITE_ROW)
    return sqlError(db, filePath, "storing a record");
  int64_t rowId = id.integer(0);
  if (!transaction.commit())
    return sqlError(db, filePath, "cannot commit a record");
  return rowId;
}

llvm::Error KnowledgeBase::putLosers(const std::vector<KnowledgeLoser> &losers) {
  if (losers.empty())
    return llvm::Error::success();
  Transaction transaction(db);
  if (!transaction.ok())
    return sqlError(db, filePath, "cannot start a transaction");
  Statement insert(db, "INSERT OR IGNORE INTO losers(signature, target, "
                       "schedule_hash, outcome, ratio) VALUES(?,?,?,?,?)");
  if (!insert.ok())
    return sqlError(db, filePath, "storing losers");
  for (const KnowledgeLoser &loser : losers) {
    insert.bind(1, loser.signature)
        .bind(2, loser.target)
        .bind(3, hashText(loser.scheduleHash))
        .bind(4, loser.outcome)
        .bind(5, loser.ratio);
    if (insert.step() != SQLITE_DONE)
      return sqlError(db, filePath, "storing losers");
    insert.reset();
  }
  if (!transaction.commit())
    return sqlError(db, filePath, "cannot commit losers");
  return llvm::Error::success();
}

llvm::Error KnowledgeBase::putMerge(const KnowledgeMerge &merge) {
  Transaction transaction(db);
  if (!transaction.ok())
    return sqlError(db, filePath, "cannot start a transaction");
  Statement insert(db, "INSERT OR REPLACE INTO merges(producer, consumer, "
                       "merged, target, gain_ms) VALUES(?,?,?,?,?)");
  insert.bind(1, merge.producer)
      .bind(2, merge.consumer)
      .bind(3, merge.merged)
      .bind(4, merge.target)
      .bind(5, merge.gainMs);
  if (!insert.ok() || insert.step() != SQLITE_DONE || !transaction.commit())
    return sqlError(db, filePath, "storing a merge");
  return llvm::Error::success();
}

llvm::Expected<std::vector<uint64_t>>
KnowledgeBase::losers(llvm::StringRef signature, llvm::StringRef target) const {
  Statement query(db, "SELECT schedule_hash FROM losers WHERE signature=? AND "
                      "target=?");
  if (!query.ok())
    return sqlError(db, filePath, "reading losers");
  query.bind(1, signature).bind(2, target);
  std::vector<uint64_t> hashes;
  int status;
  while ((status = query.step()) == SQLITE_ROW)
    hashes.push_back(parseHash(query.text(0)));
  if (status != SQLITE_DONE)
    return sqlError(db, filePath, "reading losers");
  return hashes;
}

llvm::Expected<std::vector<KnowledgeLoser>> KnowledgeBase::allLosers() const {
  Statement query(db, "SELECT signature, target, schedule_hash, outcome, "
                      "ratio FROM losers ORDER BY signature, target");
  if (!query.ok())
    return sqlError(db, filePath, "reading losers");
  std::vector<KnowledgeLoser> found;
  int status;
  while ((status = query.step()) == SQLITE_ROW)
    found.push_back({query.text(0), query.text(1), parseHash(query.text(2)),
                     query.text(3), query.real(4)});
  if (status != SQLITE_DONE)
    return sqlError(db, filePath, "reading losers");
  return found;
}

llvm::Expected<std::vector<KnowledgeMerge>>
KnowledgeBase::merges(llvm::StringRef target) const {
  std::string sql = "SELECT producer, consumer, merged, target, gain_ms FROM "
                    "merges";
  if (!target.empty())
    sql += " WHERE target=?";
  Statement query(db, sql);
  if (!query.ok())
    return sqlError(db, filePath, "reading merges");
  if (!target.empty())
    query.bind(1, target);
  std::vector<KnowledgeMerge> found;
  int status;
  while ((status = query.step()) == SQLITE_ROW)
    found.push_back({query.text(0), query.text(1), query.text(2),
                     query.text(3), query.real(4)});
  if (status != SQLITE_DONE)
    return sqlError(db, filePath, "reading merges");
  return found;
}

llvm::Expected<unsigned> KnowledgeBase::remove(const std::vector<int64_t> &ids) {
  Transaction transaction(db);
  if (!transaction.ok())
    return sqlError(db, filePath, "cannot start a transaction");
  Statement erase(db, "DELETE FROM records WHERE id=?");
  unsigned removed = 0;
  for (int64_t id : ids) {
    erase.bind(1, id);
    if (erase.step() != SQLITE_DONE)
      return sqlError(db, filePath, "deleting records");
    removed += sqlite3_changes(db);
    erase.reset();
  }
  if (!transaction.commit())
    return sqlError(db, filePath, "cannot commit the deletion");
  return removed;
}

} // namespace int21::search

#include "traces/sqlite/sqlite_db.h"

#include <cstring>
#include <utility>

#include "traces/sqlite/read_only_open.h"

namespace bubblescope::traces::sqlite {
namespace {

[[noreturn]] void fail(sqlite3* db, int rc) {
  const char* msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw SqliteError(rc & 0xff, msg ? msg : sqlite3_errstr(rc));
}

}  // namespace

Statement::Statement(sqlite3* db, std::string_view sql) {
  int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) fail(db, rc);
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3* db = sqlite3_db_handle(stmt_);
  sqlite3_reset(stmt_);
  fail(db, rc);
}

std::string_view Statement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (!p) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

std::string_view Statement::blob(int column) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
  if (!p) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

std::string_view Statement::columnName(int column) const {
  const char* name = sqlite3_column_name(stmt_, column);
  return name ? std::string_view(name) : std::string_view();
}

void Statement::check(int rc) const {
  if (rc != SQLITE_OK) fail(sqlite3_db_handle(stmt_), rc);
}

Database::Database(const std::filesystem::path& file, Mode mode) {
  if (mode == Mode::CreateNew) {
    open(file.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    return;
  }
  const ReadPlan plan = planRead(file);
  if (plan.how == ReadPlan::InPlace) {
    open(plan.uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    // SQLite opens lazily: a WAL it cannot use (no -shm it may map) shows only on first read.
    const int rc = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    // Without a WAL there is nothing a private copy could read better: the file itself is what
    // failed (a valid header over pages that are not a database), and SQLite says how.
    if (!hasWal(file)) {
      const std::string msg = sqlite3_errmsg(db_);
      sqlite3_close_v2(db_);
      db_ = nullptr;
      throw SqliteError(rc & 0xff, msg);
    }
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }
  snapshotDir_ = snapshotWithWal(file);
  open((snapshotDir_ / file.filename()).string(), SQLITE_OPEN_READONLY);
}

void Database::open(const std::string& name, int flags) {
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw SqliteError(rc & 0xff, msg);
  }
  sqlite3_extended_result_codes(db_, 0);
}

Database Database::fromBytes(std::string_view bytes) {
  Database d;
  d.open(":memory:", SQLITE_OPEN_READWRITE);
  auto* image = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size() ? bytes.size() : 1));
  if (!image) throw SqliteError(SQLITE_NOMEM, "out of memory");
  std::memcpy(image, bytes.data(), bytes.size());
  // Our traces are in WAL mode, which memory cannot hold: the image reads as a rollback journal's.
  if (bytes.size() >= 20 && image[18] == 2 && image[19] == 2) image[18] = image[19] = 1;
  const int rc = sqlite3_deserialize(d.db_, "main", image, static_cast<sqlite3_int64>(bytes.size()),
                                     static_cast<sqlite3_int64>(bytes.size()),
                                     SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) fail(d.db_, rc);
  return d;
}

Database Database::inMemory(int64_t maxBytes) {
  Database d;
  // A memdb name without a leading '/' is private to this connection.
  d.open("file:bubblescope-memory?vfs=memdb",
         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI);
  sqlite3_int64 limit = maxBytes;
  const int rc = sqlite3_file_control(d.db_, "main", SQLITE_FCNTL_SIZE_LIMIT, &limit);
  if (rc != SQLITE_OK) fail(d.db_, rc);
  return d;
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), snapshotDir_(std::move(other.snapshotDir_)) {
  other.snapshotDir_.clear();
}

Database::~Database() {
  sqlite3_close_v2(db_);
  if (!snapshotDir_.empty()) removeSnapshot(snapshotDir_);
}

void Database::exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw SqliteError(rc & 0xff, msg);
  }
}

bool Database::hasTable(std::string_view name) {
  auto st = prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?");
  st.bind(1, name);
  return st.step();
}

}  // namespace bubblescope::traces::sqlite

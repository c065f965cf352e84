#pragma once
// A thin RAII layer over the SQLite C API: a connection and its prepared statements. Failures
// throw SqliteError carrying SQLite's own message and result code; callers that know the file
// turn it into a TraceError a user can read.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bubblescope::traces::sqlite {

class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }  // primary SQLite result code (SQLITE_CORRUPT, ...)

 private:
  int code_;
};

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite.
  void bind(int index, int64_t value) { check(sqlite3_bind_int64(stmt_, index, value)); }
  void bind(int index, std::string_view text) {
    check(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()),
                            SQLITE_TRANSIENT));
  }
  void bindBlob(int index, std::string_view bytes) {
    check(sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()),
                            SQLITE_TRANSIENT));
  }
  // Binds column `column` of the row `from` is on, as it is (type and bytes): copies a row.
  void bindColumn(int index, const Statement& from, int column) {
    check(sqlite3_bind_value(stmt_, index, sqlite3_column_value(from.stmt_, column)));
  }
  // Runs one step: true while it yields a row, false when done.
  bool step();
  // Runs a statement that yields no rows and makes it ready for the next bindings.
  void run() {
    step();
    reset();
  }
  void reset() { sqlite3_reset(stmt_); }

  // Columns are 0-based.
  int64_t int64(int column) const { return sqlite3_column_int64(stmt_, column); }
  std::string_view text(int column) const;
  // A column's bytes as stored (a BLOB's, or a TEXT's without conversion); empty for NULL.
  std::string_view blob(int column) const;
  bool isNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  int type(int column) const { return sqlite3_column_type(stmt_, column); }  // SQLITE_INTEGER, ...
  int columns() const { return sqlite3_column_count(stmt_); }
  std::string_view columnName(int column) const;

 private:
  void check(int rc) const;

  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  // ReadOnly never writes beside the file (no -wal or -shm is left, a read-only directory reads):
  // see read_only_open.h.
  enum class Mode { ReadOnly, CreateNew };
  Database(const std::filesystem::path& file, Mode mode);
  // A database image in memory (sqlite3_deserialize), read-only: for the fuzzers.
  static Database fromBytes(std::string_view bytes);
  // A new, empty database of this connection's own in one block of memory (SQLite's memdb),
  // growing to at most maxBytes: sqlite3_serialize then reads it without a copy.
  static Database inMemory(int64_t maxBytes);
  ~Database();
  Database(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(std::string_view sql);
  Statement prepare(std::string_view sql) { return Statement(db_, sql); }
  bool hasTable(std::string_view name);
  sqlite3* handle() { return db_; }

 private:
  Database() = default;
  void open(const std::string& name, int flags);

  sqlite3* db_ = nullptr;
  std::filesystem::path snapshotDir_;  // a private copy read in place of the file, removed after
};

}  // namespace bubblescope::traces::sqlite

#include "traces/sqlite/read_only_open.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <cstdio>
#include <system_error>

#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces::sqlite {
namespace fs = std::filesystem;

std::string fileUri(const fs::path& file, const std::string& query) {
  std::error_code ec;
  fs::path abs = fs::absolute(file, ec);
  if (ec) abs = file;
  std::string uri = "file://";
  for (unsigned char c : abs.string()) {
    if (c == '%' || c == '?' || c == '#' || c <= ' ' || c >= 0x7f) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      uri += hex;
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri + "?" + query;
}

ReadPlan planRead(const fs::path& file) {
  std::error_code ec;
  const fs::path wal = file.string() + "-wal", shm = file.string() + "-shm";
  const auto walBytes = fs::file_size(wal, ec);
  if (ec || walBytes == 0) return {ReadPlan::InPlace, fileUri(file, "immutable=1")};
  if (fs::exists(shm, ec)) return {ReadPlan::InPlace, fileUri(file, "mode=ro")};
  return {ReadPlan::Snapshot, {}};
}

fs::path snapshotWithWal(const fs::path& file) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string dir = (base / "bubblescope-read-XXXXXX").string();
  if (!::mkdtemp(dir.data())) {
    throw SqliteError(SQLITE_CANTOPEN, "cannot make a private copy to read its WAL from");
  }
  const fs::path copy = fs::path(dir) / file.filename();
  fs::copy_file(file, copy, ec);
  if (!ec) fs::copy_file(file.string() + "-wal", copy.string() + "-wal", ec);
  if (ec) {
    removeSnapshot(dir);
    throw SqliteError(SQLITE_CANTOPEN,
                      "cannot make a private copy to read its WAL from (" + ec.message() + ")");
  }
  return dir;
}

void removeSnapshot(const fs::path& dir) {
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

}  // namespace bubblescope::traces::sqlite

#include "traces/sqlite/read_only_open.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

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

bool writerHolds(const fs::path& shm) {
  // Every connection to a WAL database holds a read lock on the -shm's "dead man switch" byte
  // while it is open (SQLite's os_unix.c: UNIX_SHM_DMS, byte 128 with 8 lock slots); a killed
  // writer's locks went with its process.
  constexpr off_t kDeadManSwitch = 128;
  const int fd = ::open(shm.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock probe{};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = kDeadManSwitch;
  probe.l_len = 1;
  const bool held = ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
  ::close(fd);
  return held;
}

bool hasWal(const fs::path& file) {
  std::error_code ec;
  const auto walBytes = fs::file_size(file.string() + "-wal", ec);
  return !ec && walBytes > 0;
}

ReadPlan planRead(const fs::path& file) {
  std::error_code ec;
  const fs::path shm = file.string() + "-shm";
  if (!hasWal(file)) return {ReadPlan::InPlace, fileUri(file, "immutable=1")};
  // A running writer's WAL is read through its -shm, SQLite's own protocol. A killed writer's
  // -shm would be rebuilt by the reader (written, its mtime changed): read a private copy.
  if (fs::exists(shm, ec) && writerHolds(shm)) return {ReadPlan::InPlace, fileUri(file, "mode=ro")};
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

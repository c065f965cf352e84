#pragma once
// How a trace is opened for reading without writing anything beside it. SQLite's plain read-only
// open of a WAL-mode file creates -wal and -shm files (left behind, and impossible on read-only
// media). A file without a WAL is complete, so it is opened immutable: nothing is created or
// locked. A file with a WAL is read in place while its writer runs (it holds its -shm's lock:
// SQLite's own protocol, nothing new created); otherwise (the writer was killed, or the -shm was
// not copied) from a private copy of the file and its WAL, so the newest pages are read even from
// a read-only directory and a killed writer's -shm is not rebuilt beside it.
#include <filesystem>
#include <string>

namespace bubblescope::traces::sqlite {

struct ReadPlan {
  enum How { InPlace, Snapshot } how = InPlace;
  std::string uri;  // for InPlace: the file as a URI with immutable=1 or mode=ro
};
ReadPlan planRead(const std::filesystem::path& file);

// Whether `file` has a non-empty -wal beside it.
bool hasWal(const std::filesystem::path& file);

// Whether a live process holds the WAL-index `shm` open (its dead-man-switch lock).
bool writerHolds(const std::filesystem::path& shm);

// "file:///abs/path?query" with the characters a URI reserves escaped.
std::string fileUri(const std::filesystem::path& file, const std::string& query);

// Copies `file` and its -wal into a fresh directory under $TMPDIR and returns it. Throws
// SqliteError (SQLITE_CANTOPEN) when the copy fails.
std::filesystem::path snapshotWithWal(const std::filesystem::path& file);
void removeSnapshot(const std::filesystem::path& dir);

}  // namespace bubblescope::traces::sqlite

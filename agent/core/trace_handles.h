#pragma once
// The descriptors SQLite holds for one trace file (the file, its -wal and -shm), so the writer can
// tell before it writes that the job has closed them (close_range(3, ~0U, 0), a daemonising loop
// closing every descriptor). Through a closed descriptor every write fails, and SQLite's retries
// on its locks hold the writer for seconds; through one the job has opened again, the writes
// would land in the job's own file.
#include <filesystem>
#include <vector>

#include "agent/core/owned_fd.h"

namespace bubblescope::agent {

class TraceHandles {
 public:
  TraceHandles() = default;  // none known: intact() is always true

  // This process's descriptors open on `file`, `file`-wal or `file`-shm, found in /proc/self/fd.
  // None when /proc cannot be read: the writer then cannot tell, as before.
  static TraceHandles of(const std::filesystem::path& file);

  // False once any of them is closed or names another file: one fstat each.
  bool intact() const;

 private:
  std::vector<OwnedFd> handles_;
};

}  // namespace bubblescope::agent

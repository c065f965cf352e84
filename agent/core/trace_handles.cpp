#include "agent/core/trace_handles.h"

#include <dirent.h>
#include <sys/stat.h>

#include <charconv>
#include <cstring>

namespace bubblescope::agent {

TraceHandles TraceHandles::of(const std::filesystem::path& file) {
  struct stat files[3];
  int known = 0;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    if (::stat((file.string() + suffix).c_str(), &files[known]) == 0) ++known;
  }
  TraceHandles found;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return found;
  const int own = ::dirfd(dir);
  while (const dirent* e = ::readdir(dir)) {
    int fd = -1;
    const char* end = e->d_name + std::strlen(e->d_name);
    if (std::from_chars(e->d_name, end, fd).ptr != end || fd == own) continue;
    const OwnedFd handle = OwnedFd::of(fd);
    for (int i = 0; i < known; ++i) {
      if (handle.fd >= 0 && handle.dev == files[i].st_dev && handle.ino == files[i].st_ino) {
        found.handles_.push_back(handle);
        break;
      }
    }
  }
  ::closedir(dir);
  return found;
}

bool TraceHandles::intact() const {
  for (const OwnedFd& h : handles_) {
    if (!h.intact()) return false;
  }
  return true;
}

}  // namespace bubblescope::agent

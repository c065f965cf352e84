#include "agent/core/high_descriptors.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

namespace bubblescope::agent {
namespace {

using OpenCall = int (*)(const char*, int, int);
OpenCall sqliteOpen = nullptr;  // the unix VFS's own "open"

int openHigh(const char* path, int flags, int mode) {
  const int fd = sqliteOpen(path, flags, mode);
  if (fd < 0) return fd;
  const int high = ::fcntl(fd, (flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD,
                           highDescriptorFloor());
  if (high < 0) return fd;  // no room up there: where it is, checked as before
  ::close(fd);
  return high;
}

}  // namespace

int highDescriptorFloor() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1024;
  return static_cast<int>(std::clamp<rlim_t>(limit.rlim_cur / 2, 3, 1024));
}

void openSqliteFilesHigh() {
#if BUBBLESCOPE_AGENT_PRIVATE_SQLITE
  static std::once_flag once;
  std::call_once(once, [] {
    sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
    if (vfs == nullptr || vfs->iVersion < 3 || vfs->xGetSystemCall == nullptr) return;
    sqliteOpen = reinterpret_cast<OpenCall>(vfs->xGetSystemCall(vfs, "open"));
    if (sqliteOpen == nullptr) return;
    vfs->xSetSystemCall(vfs, "open", reinterpret_cast<sqlite3_syscall_ptr>(&openHigh));
  });
#endif
}

}  // namespace bubblescope::agent

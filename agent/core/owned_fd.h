#pragma once
// A descriptor the agent opened, with the identity (device, inode) of what it opened. A job may
// close every descriptor (close_range(3, ~0U, 0), a daemonising loop) and open files of its own on
// the same numbers: before the agent writes to, reads from or closes one of its descriptors, it
// asks whether the number is still its own, so it never touches the job's files.
#include <sys/stat.h>
#include <sys/types.h>

namespace bubblescope::agent {

struct OwnedFd {
  int fd = -1;
  dev_t dev = 0;
  ino_t ino = 0;

  // `fd` as it is now; fd -1 (nothing owned) if it is not open.
  static OwnedFd of(int fd) {
    struct stat st;
    if (fd < 0 || ::fstat(fd, &st) != 0) return OwnedFd{};
    return OwnedFd{fd, st.st_dev, st.st_ino};
  }

  // Still open on what the agent opened. One fstat.
  bool intact() const {
    struct stat st;
    return fd >= 0 && ::fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
  }
};

}  // namespace bubblescope::agent

#include "traces/files/input_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "traces/errors.h"

namespace bubblescope::traces {
namespace {

const char* kindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a plain file";
}

}  // namespace

InputKind checkInputPath(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) throw TraceError(path, "no such file or directory");
    throw TraceError(path, std::string("cannot be read: ") + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    throw TraceError(
        path, std::string(kindOf(st.st_mode)) + ", not a regular file or a directory, so not read");
  }
  // Said here so the user hears "permission denied", not a loader's guess at what went wrong.
  if (::access(path.c_str(), S_ISDIR(st.st_mode) ? (R_OK | X_OK) : R_OK) != 0) {
    throw TraceError(path, std::string("cannot be read: ") + std::strerror(errno));
  }
  return S_ISDIR(st.st_mode) ? InputKind::Directory : InputKind::File;
}

void checkInputFile(const std::filesystem::path& path) {
  if (checkInputPath(path) == InputKind::Directory) {
    throw TraceError(path, "a directory, not a file");
  }
}

}  // namespace bubblescope::traces

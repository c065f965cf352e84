#include "traces/files/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <streambuf>
#include <string>

#include "traces/errors.h"

namespace bubblescope::traces {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void failWrite(const fs::path& target, int err) {
  throw TraceError(target, std::string("cannot be written: ") + std::strerror(err));
}

// Where the bytes really go: a link's target, so the link itself stays.
fs::path destination(const fs::path& target) {
  std::error_code ec;
  if (!fs::is_symlink(target, ec)) return target;
  const fs::path resolved = fs::weakly_canonical(target, ec);
  return ec ? target : resolved;
}

// A fresh file beside `dest` (same file system, so the rename is atomic), created exclusively.
int createTemp(const fs::path& dest, fs::path& temp) {
  static std::atomic<unsigned> counter{0};
  const fs::path dir = dest.has_parent_path() ? dest.parent_path() : fs::path(".");
  for (int attempt = 0;; ++attempt) {
    temp = dir / ("." + dest.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                  std::to_string(counter++));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST || attempt > 100) failWrite(dest, errno);
  }
}

void writeAll(int fd, std::string_view bytes, const fs::path& target) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) failWrite(target, n < 0 ? errno : ENOSPC);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

// Streams into a file descriptor through a buffer, keeping the first write error for the caller
// (an ostream alone would only say that something failed).
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }
  bool drain() {
    const char* p = pbase();
    while (p < pptr() && error_ == 0) {
      const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        error_ = n < 0 ? errno : ENOSPC;
      else
        p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

// Writes through `write(fd)` into a temporary file beside the target, then publishes it.
template <class Write>
void writeViaTemp(const fs::path& target, Write write) {
  checkOutputPath(target);
  fs::path temp;
  int fd = createTemp(destination(target), temp);
  try {
    write(fd);
    // close() is where some file systems (NFS) first say the disk is full.
    const int rc = ::close(fd);
    fd = -1;
    if (rc != 0) failWrite(target, errno);
  } catch (...) {
    if (fd >= 0) ::close(fd);
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw;
  }
  publishOutputFile(temp, target);
}

}  // namespace

void checkOutputPath(const fs::path& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return;  // a new path (or one the write will explain)
  if (S_ISREG(st.st_mode)) return;
  throw TraceError(target, S_ISDIR(st.st_mode)
                               ? "is a directory, not a file to write"
                               : "exists and is not a regular file (a device, FIFO or socket); "
                                 "not replaced");
}

void publishOutputFile(const fs::path& temp, const fs::path& target) {
  std::error_code ignored;
  try {
    checkOutputPath(target);
    const fs::path dest = destination(target);
    // A file being replaced keeps its permissions.
    struct stat st {};
    if (::stat(dest.c_str(), &st) == 0) ::chmod(temp.c_str(), st.st_mode & 07777);
    if (::rename(temp.c_str(), dest.c_str()) != 0) failWrite(target, errno);
  } catch (...) {
    fs::remove(temp, ignored);
    throw;
  }
}

void writeOutputFile(const fs::path& target, std::string_view bytes) {
  writeViaTemp(target, [&](int fd) { writeAll(fd, bytes, target); });
}

void writeOutputFile(const fs::path& target, const std::function<void(std::ostream&)>& fill) {
  writeViaTemp(target, [&](int fd) {
    FdBuffer buffer(fd);
    std::ostream out(&buffer);
    fill(out);
    out.flush();
    if (buffer.error() != 0) failWrite(target, buffer.error());
    if (!out) failWrite(target, EIO);
  });
}

}  // namespace bubblescope::traces

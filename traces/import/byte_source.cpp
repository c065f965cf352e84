#include "traces/import/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "traces/errors.h"
#include "traces/files/input_path.h"

namespace bubblescope::traces::import {
namespace {

constexpr size_t kRawChunk = 256 << 10;  // compressed bytes per read(2)

}  // namespace

Compression compressionOf(std::string_view b) {
  if (b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f &&
      static_cast<unsigned char>(b[1]) == 0x8b) {
    return Compression::Gzip;
  }
  if (b.size() >= 4 && static_cast<unsigned char>(b[0]) == 0x28 &&
      static_cast<unsigned char>(b[1]) == 0xb5 && static_cast<unsigned char>(b[2]) == 0x2f &&
      static_cast<unsigned char>(b[3]) == 0xfd) {
    return Compression::Zstd;
  }
  return Compression::None;
}

// One decompressor with its input buffer; `finished` says whether the last frame/member ended.
struct ByteSource::Decoder {
  Compression kind = Compression::None;
  std::vector<char> in = std::vector<char>(kRawChunk);
  size_t inPos = 0, inLen = 0;
  bool inputDone = false;
  bool finished = true;  // at a frame/member boundary (nothing half decoded)
  uint64_t rawConsumed = 0;
  z_stream z{};
  ZSTD_DCtx* zstd = nullptr;

  explicit Decoder(Compression k) : kind(k) {
    if (k == Compression::Gzip) {
      if (inflateInit2(&z, 15 + 32) != Z_OK) throw std::bad_alloc();
    } else {
      zstd = ZSTD_createDCtx();
      if (!zstd) throw std::bad_alloc();
    }
  }
  ~Decoder() {
    if (kind == Compression::Gzip) inflateEnd(&z);
    ZSTD_freeDCtx(zstd);
  }
};

ByteSource::ByteSource(const std::filesystem::path& file) : name_(file) {
  checkInputFile(file);
  // O_NONBLOCK: should the path become a FIFO after the check, the open still returns.
  fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) throw TraceError(file, std::string("cannot be opened: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw TraceError(file, "not a regular file, so not read");
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  start();
}

ByteSource::ByteSource(std::string_view bytes, const std::filesystem::path& name)
    : name_(name), memory_(bytes) {
  start();
}

ByteSource::~ByteSource() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<ByteSource> ByteSource::reopen() const {
  if (fd_ < 0) return std::make_unique<ByteSource>(memory_, name_);
  return std::make_unique<ByteSource>(name_);
}

size_t ByteSource::readRaw(char* out, size_t n) {
  if (fd_ < 0) {
    const size_t k = std::min(n, memory_.size() - memoryPos_);
    std::memcpy(out, memory_.data() + memoryPos_, k);
    memoryPos_ += k;
    return k;
  }
  for (;;) {
    const ssize_t k = ::read(fd_, out, n);
    if (k >= 0) return static_cast<size_t>(k);
    if (errno != EINTR)
      throw TraceError(name_, std::string("read failed: ") + std::strerror(errno));
  }
}

// Sniffs the magic number: the first few bytes decide the decoder.
void ByteSource::start() {
  char magic[4];
  size_t got = 0;
  while (got < sizeof magic) {
    const size_t k = readRaw(magic + got, sizeof magic - got);
    if (k == 0) break;
    got += k;
  }
  pending_.assign(magic, got);
  compression_ = compressionOf(pending_);
  if (compression_ != Compression::None) {
    decoder_ = std::make_unique<Decoder>(compression_);
    std::memcpy(decoder_->in.data(), pending_.data(), pending_.size());
    decoder_->inLen = pending_.size();
    pending_.clear();
  }
}

size_t ByteSource::read(char* out, size_t n) {
  if (n == 0) return 0;
  if (!decoder_) {
    size_t k = 0;
    if (!pending_.empty()) {
      k = std::min(n, pending_.size());
      std::memcpy(out, pending_.data(), k);
      pending_.erase(0, k);
    }
    if (k < n) k += readRaw(out + k, n - k);
    bytesOut_ += k;
    return k;
  }
  Decoder& d = *decoder_;
  const char* what = d.kind == Compression::Gzip ? "gzip" : "zstd";
  size_t produced = 0;
  while (produced == 0) {
    if (d.inPos == d.inLen && !d.inputDone) {
      d.inLen = readRaw(d.in.data(), d.in.size());
      d.inPos = 0;
      d.inputDone = d.inLen == 0;
    }
    const size_t avail = d.inLen - d.inPos;
    if (d.finished) {
      if (avail == 0) return 0;  // input done at a member/frame boundary: a clean end
      // Another member after a finished one: concatenated gzip files decode as one stream.
      if (d.kind == Compression::Gzip && d.rawConsumed > 0) inflateReset(&d.z);
      d.finished = false;
    }
    size_t used = 0;
    if (d.kind == Compression::Gzip) {
      const size_t room = std::min<size_t>(n, UINT32_MAX);
      d.z.next_in = reinterpret_cast<Bytef*>(d.in.data() + d.inPos);
      d.z.avail_in = static_cast<uInt>(avail);
      d.z.next_out = reinterpret_cast<Bytef*>(out);
      d.z.avail_out = static_cast<uInt>(room);
      const int rc = inflate(&d.z, Z_NO_FLUSH);
      used = avail - d.z.avail_in;
      produced = room - d.z.avail_out;
      if (rc == Z_STREAM_END) {
        d.finished = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw TraceError(name_, std::string("corrupt gzip data (zlib: ") +
                                    (d.z.msg ? d.z.msg : "error " + std::to_string(rc)) + ")");
      }
    } else {
      ZSTD_inBuffer inBuf{d.in.data() + d.inPos, avail, 0};
      ZSTD_outBuffer outBuf{out, n, 0};
      const size_t rc = ZSTD_decompressStream(d.zstd, &outBuf, &inBuf);
      if (ZSTD_isError(rc)) {
        throw TraceError(name_,
                         std::string("corrupt zstd data (zstd: ") + ZSTD_getErrorName(rc) + ")");
      }
      used = inBuf.pos;
      produced = outBuf.pos;
      d.finished = rc == 0;
    }
    d.inPos += used;
    d.rawConsumed += used;
    if (produced == 0 && used == 0 && !d.finished) {
      if (avail == 0 && d.inputDone) {
        throw TraceError(name_, std::string("truncated ") + what + " data: the file ends after " +
                                    std::to_string(d.rawConsumed) +
                                    " compressed bytes, in the middle of the stream");
      }
      if (avail > 0) throw TraceError(name_, std::string("corrupt ") + what + " data");
    }
  }
  bytesOut_ += produced;
  return produced;
}

std::string readPrefix(const std::filesystem::path& file, size_t n) {
  ByteSource src(file);
  std::string out(n, '\0');
  size_t got = 0;
  try {
    while (got < n) {
      const size_t k = src.read(out.data() + got, n - got);
      if (k == 0) break;
      got += k;
    }
  } catch (const TraceError&) {
    // A broken stream still tells what the file is meant to be; the import reports the damage.
  }
  out.resize(got);
  return out;
}

}  // namespace bubblescope::traces::import

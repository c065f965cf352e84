#pragma once
// The bytes of an input file, decompressed on the fly (gzip or zstd, told by their magic
// numbers, not the file name), read in chunks so a multi-gigabyte trace never sits in memory.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace bubblescope::traces::import {

enum class Compression : uint8_t { None, Gzip, Zstd };

// The compression its first bytes announce.
Compression compressionOf(std::string_view firstBytes);

class ByteSource {
 public:
  // Opens `file`. Throws TraceError (no such file, a directory, unreadable).
  explicit ByteSource(const std::filesystem::path& file);
  // Reads from memory instead (tests, the fuzzer); `name` is what messages call it.
  ByteSource(std::string_view bytes, const std::filesystem::path& name);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // A new source over the same input from its first byte (the file opened again, the same
  // memory): for a look ahead that must not disturb this one's position. Throws as the
  // constructor does.
  std::unique_ptr<ByteSource> reopen() const;

  // Up to `n` decompressed bytes into `out`; 0 only at the end. Throws TraceError for a truncated
  // or corrupt compressed stream.
  size_t read(char* out, size_t n);

  Compression compression() const { return compression_; }
  const std::filesystem::path& name() const { return name_; }
  uint64_t bytesOut() const { return bytesOut_; }  // decompressed bytes handed out so far

 private:
  struct Decoder;
  size_t readRaw(char* out, size_t n);
  void start();

  std::filesystem::path name_;
  int fd_ = -1;
  std::string_view memory_;
  size_t memoryPos_ = 0;
  Compression compression_ = Compression::None;
  std::unique_ptr<Decoder> decoder_;
  std::string pending_;  // raw bytes read to sniff the magic, not yet handed to the decoder
  uint64_t bytesOut_ = 0;
};

// The first `n` decompressed bytes of a file (fewer if it is shorter, or if its compressed data
// ends or breaks early): for detecting what a file is. Throws TraceError only when the file
// cannot be opened.
std::string readPrefix(const std::filesystem::path& file, size_t n);

}  // namespace bubblescope::traces::import

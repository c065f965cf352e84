// Input bytes are decompressed by what their magic number says, and a damaged stream is one clear
// error naming the file.
#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/traces/import/compress.h"
#include "traces/errors.h"
#include "traces/import/byte_source.h"

namespace bubblescope::traces::import {
namespace {

using testing::gzipped;
using testing::zstdCompressed;

std::string readAll(ByteSource& s, size_t chunk = 7) {
  std::string out, buf(chunk, '\0');
  for (size_t n; (n = s.read(buf.data(), buf.size())) > 0;) out.append(buf, 0, n);
  return out;
}

std::string sample() {
  std::string s;
  for (int i = 0; i < 20000; ++i)
    s += "{\"ph\": \"X\", \"name\": \"aten::mm\", \"ts\": " + std::to_string(i) + "},";
  return s;
}

TEST(ByteSource, PlainBytesPassThrough) {
  ByteSource s(std::string_view("{\"traceEvents\": []}"), "plain.json");
  EXPECT_EQ(s.compression(), Compression::None);
  EXPECT_EQ(readAll(s), "{\"traceEvents\": []}");
}

TEST(ByteSource, GzipIsToldByItsMagicNotItsName) {
  const std::string data = sample();
  const std::string gz = gzipped(data);
  ByteSource s(gz, "trace.json");
  EXPECT_EQ(s.compression(), Compression::Gzip);
  EXPECT_EQ(readAll(s, 4096), data);
  EXPECT_EQ(s.bytesOut(), data.size());
}

TEST(ByteSource, ConcatenatedGzipMembersReadAsOneStream) {
  const std::string gz = gzipped("first half, ") + gzipped("second half");
  ByteSource s(gz, "two.gz");
  EXPECT_EQ(readAll(s), "first half, second half");
}

TEST(ByteSource, TruncatedGzipIsAnErrorNamingTheFile) {
  const std::string gz = gzipped(sample());
  const std::string cut = gz.substr(0, gz.size() / 2);
  ByteSource s(cut, "rank3.json.gz");
  try {
    readAll(s, 65536);
    FAIL() << "a truncated stream read to the end";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("rank3.json.gz: truncated gzip data"), std::string::npos)
        << e.what();
  }
}

TEST(ByteSource, CorruptGzipIsAnError) {
  std::string gz = gzipped(sample());
  for (size_t i = gz.size() / 3; i < gz.size() / 3 + 64; ++i) gz[i] = static_cast<char>(~gz[i]);
  ByteSource s(gz, "bad.gz");
  EXPECT_THROW(readAll(s, 65536), TraceError);
}

TEST(ByteSource, ZstdDecompressesAndATruncatedFrameIsAnError) {
  const std::string data = sample();
  const std::string z = zstdCompressed(data);
  ByteSource whole(z, "trace.json.zst");
  EXPECT_EQ(whole.compression(), Compression::Zstd);
  EXPECT_EQ(readAll(whole, 1000), data);
  ByteSource cut(std::string_view(z).substr(0, z.size() - 10), "trace.json.zst");
  EXPECT_THROW(readAll(cut, 1000), TraceError);
}

// The metadata look-ahead reads a second source over the same input, leaving the first where it is.
TEST(ByteSource, AReopenedSourceReadsTheSameBytesFromTheStartWithoutMovingTheFirst) {
  const std::string data = sample();
  const std::string gz = gzipped(data);
  ByteSource memory(gz, "trace.json.gz");
  std::string head(100, '\0');
  ASSERT_EQ(memory.read(head.data(), head.size()), head.size());
  EXPECT_EQ(readAll(*memory.reopen(), 4096), data);
  EXPECT_EQ(head + readAll(memory, 4096), data);

  testing::TempDir dir;
  const auto file = dir / "trace.json.gz";
  testing::writeFile(file, gz);
  ByteSource onDisk(file);
  ASSERT_EQ(onDisk.read(head.data(), head.size()), head.size());
  const auto again = onDisk.reopen();
  EXPECT_EQ(again->name(), file);
  EXPECT_EQ(again->compression(), Compression::Gzip);
  EXPECT_EQ(readAll(*again, 4096), data);
  EXPECT_EQ(head + readAll(onDisk, 4096), data);
}

TEST(ByteSource, AMissingFileIsAnError) {
  try {
    ByteSource s("/nonexistent/trace.json.gz");
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/trace.json.gz: no such file or directory");
  }
}

}  // namespace
}  // namespace bubblescope::traces::import

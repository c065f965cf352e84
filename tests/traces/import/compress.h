#pragma once
// gzip and zstd in memory, for tests of compressed input.
#include <string>

namespace bubblescope::testing {

std::string gzipped(const std::string& data);
std::string zstdCompressed(const std::string& data);

}  // namespace bubblescope::testing

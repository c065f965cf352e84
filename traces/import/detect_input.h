#pragma once
// What a path holds, told by content, not by name (input_formats.h lists the formats and how
// each is told): a gzip/zstd magic number is looked through, and a directory is read for the
// traces among its files. A name counts only where the content says nothing we read: a
// *.sqlite file goes to our reader, which names its problem; a *.nsys-rep is Nsight Systems'.
#include <filesystem>
#include <string>
#include <vector>

#include "traces/import/input_formats.h"

namespace bubblescope::traces::import {

struct Detection {
  InputFormat format = InputFormat::Unknown;
  std::string why;          // for Unknown: what the file is instead ("a SQLite database, but ...")
  bool nsysReport = false;  // an Nsight Systems report (.nsys-rep), read once exported to SQLite
};

// Throws TraceError for a path that does not exist or cannot be read.
Detection detectFile(const std::filesystem::path& file);

// One directory's traces: every regular file that is a trace, in natural name order (rank2
// before rank10). Throws TraceError when it has none, or traces of two formats.
struct DirectoryContents {
  InputFormat format = InputFormat::Unknown;
  std::vector<std::filesystem::path> files;
};
DirectoryContents scanDirectory(const std::filesystem::path& dir);

// Natural order: digit runs compare as numbers.
bool naturalLess(const std::string& a, const std::string& b);

}  // namespace bubblescope::traces::import

#pragma once
// What a path holds, told by content, never by name: a gzip/zstd magic number is looked through,
// JSON whose top level has "traceEvents" (or is an array of events) is a Chrome/Kineto trace, and
// a SQLite database is ours when its meta table says format = bubblescope-trace, an Nsight
// Systems export when it has nsys's tables (NVTX_EVENTS, CUPTI_ACTIVITY_KIND_*, ...).
#include <filesystem>
#include <string>
#include <vector>

namespace bubblescope::traces::import {

enum class InputFormat {
  Bubblescope,  // our per-rank SQLite trace
  ChromeTrace,  // Kineto / PyTorch profiler JSON, or a generic Chrome-trace timeline
  Nsys,         // Nsight Systems SQLite export
  Unknown,
};

const char* formatName(
    InputFormat f);  // "bubblescope trace", "Kineto JSON", "Nsight Systems export"
// The same in a sentence: "a bubblescope trace", "Kineto JSON", "an Nsight Systems export".
const char* formatPhrase(InputFormat f);

struct Detection {
  InputFormat format = InputFormat::Unknown;
  std::string why;  // for Unknown: what the file is instead ("a SQLite database, but ...")
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

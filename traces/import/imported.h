#pragma once
// What importing one input file produced: its ranks, and what it left out (so the import command
// can say so rather than drop it silently).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "traces/model/trace.h"

namespace bubblescope::traces::import {

struct ImportedFile {
  std::filesystem::path file;
  std::string format;  // "kineto", "ndtimeline", "chrome-trace", "nsys"
  std::vector<RankTrace> ranks;
  std::map<std::string, uint64_t> skipped;  // events not imported, by what they were
  std::vector<std::string> notes;           // one sentence each, for the import summary
};

}  // namespace bubblescope::traces::import

#pragma once
// The table `bubblescope import` prints: per rank, where it came from and how many events of each
// kind it holds, its steps, and what the import left out.
#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "traces/import/imported.h"

namespace bubblescope::traces::import {

// Training steps the trace marks (ProfilerStep#N or "step N" ranges).
size_t countSteps(const RankTrace& trace);

// One row of the table: what is left of a rank once it is written out.
struct RankSummary {
  std::filesystem::path file;
  std::string source;
  int rank = -1, worldSize = -1;
  int64_t pid = 0;
  size_t kernels = 0, memcpys = 0, memsets = 0, apiCalls = 0, ranges = 0, marks = 0, nccl = 0;
  size_t steps = 0, events = 0;
};
RankSummary summarize(const RankTrace& trace);

// `rows` in rank order; the files' skipped events and notes, and the run's notes, below them.
void printImportSummary(const std::vector<RankSummary>& rows,
                        const std::vector<ImportedFile>& files,
                        const std::vector<std::string>& notes, std::ostream& out);

}  // namespace bubblescope::traces::import

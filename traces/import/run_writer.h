#pragma once
// An import written as a run directory of our per-rank files, rank by rank as each input file is
// read, so memory holds only the files in flight however many ranks the run has.
#include <filesystem>
#include <string>
#include <vector>

#include "traces/import/import_summary.h"
#include "traces/import/run_import.h"

namespace bubblescope::traces::import {

struct WrittenRun {
  std::vector<RankSummary> ranks;   // in rank order
  std::vector<ImportedFile> files;  // what each input left out
  std::vector<std::string> notes;   // how ranks were numbered
};

// rank-00003.sqlite, as the agent names them. Every imported trace has a rank once numberRanks
// has run: the files' own, or their place in the input order.
std::string rankFileName(int rank);

// Imports `inputs` into `dir` (created if missing; it should be empty). Throws TraceError for bad
// input, and removes what it had written.
WrittenRun importToDirectory(const Inputs& inputs, const std::filesystem::path& dir,
                             const LoadOptions& options = {});

}  // namespace bubblescope::traces::import

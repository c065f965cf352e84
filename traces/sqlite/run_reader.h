#pragma once
// Loads a run: a directory with one trace file per rank (or a single file), ranks in parallel.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <vector>

#include "traces/model/trace.h"

namespace bubblescope::traces {

struct RunReadOptions {
  unsigned threads = 0;  // 0 = one per core
  // Called after each file is read (from the loading threads, one call at a time).
  std::function<void(size_t filesDone, size_t filesTotal)> progress;
};

// The trace files of a run directory (*.sqlite), sorted by name. Throws TraceError if there are
// none.
std::vector<std::filesystem::path> findTraceFiles(const std::filesystem::path& dir);

// Where each rank goes in a run: traces that say their rank by rank, the others after them in
// the order given. Returns the input positions in run order.
std::vector<size_t> rankOrder(const std::vector<RankTrace>& ranks);
// Throws TraceError naming `dir` and both files when two traces (in run order) claim one rank.
void requireDistinctRanks(const std::vector<RankTrace>& ranks, const std::filesystem::path& dir);

// Reads a directory of per-rank files, or one file. Ranks come out ordered by rank (files without
// a rank after, by name). Throws TraceError for a bad file, an empty directory, or two files that
// claim the same rank.
Run readRun(const std::filesystem::path& path, const RunReadOptions& options = {});

// The same for an explicit list of trace files (the run directory is the first one's).
Run readRunFiles(const std::vector<std::filesystem::path>& files,
                 const RunReadOptions& options = {});

}  // namespace bubblescope::traces

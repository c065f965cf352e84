#include "traces/sqlite/run_reader.h"

#include <algorithm>
#include <optional>

#include "traces/errors.h"
#include "traces/files/input_path.h"
#include "traces/files/path_names.h"
#include "traces/parallel/parallel_for.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::traces {
namespace fs = std::filesystem;

std::vector<fs::path> findTraceFiles(const fs::path& dir) {
  if (checkInputPath(dir) != InputKind::Directory) throw TraceError(dir, "not a directory");
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".sqlite" && entry.is_regular_file(ec)) {
      files.push_back(entry.path());
    }
  }
  if (ec) throw TraceError(dir, "cannot list the directory: " + ec.message());
  if (files.empty()) {
    throw TraceError(dir, "no bubblescope traces (*.sqlite files) in this directory");
  }
  std::sort(files.begin(), files.end());
  return files;
}

Run readRun(const fs::path& path, const RunReadOptions& options) {
  const bool isDir = checkInputPath(path) == InputKind::Directory;
  Run run = readRunFiles(isDir ? findTraceFiles(path) : std::vector<fs::path>{path}, options);
  run.dir = isDir ? path : path.parent_path();
  return run;
}

Run readRunFiles(const std::vector<fs::path>& files, const RunReadOptions& options) {
  Run run;
  if (!files.empty()) run.dir = files.front().parent_path();
  run.ranks.resize(files.size());

  // Files are independent: read them in parallel, first error wins.
  parallelFor(
      files.size(), options.threads, [&](size_t i) { run.ranks[i] = readRankTrace(files[i]); },
      [&](size_t done) {
        if (options.progress) options.progress(done, files.size());
      });

  // Order by rank; files without one keep their name order after the ranked ones.
  std::vector<RankTrace> read = std::move(run.ranks);
  run.ranks.clear();
  for (size_t i : rankOrder(read)) run.ranks.push_back(std::move(read[i]));
  requireDistinctRanks(run.ranks, run.dir);
  return run;
}

std::vector<size_t> rankOrder(const std::vector<RankTrace>& ranks) {
  std::vector<size_t> order(ranks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const RankTrace& a = ranks[x];
    const RankTrace& b = ranks[y];
    const bool aRanked = a.meta.rank >= 0, bRanked = b.meta.rank >= 0;
    if (aRanked != bRanked) return aRanked;
    return aRanked && a.meta.rank < b.meta.rank;
  });
  return order;
}

void requireDistinctRanks(const std::vector<RankTrace>& ranks, const fs::path& dir) {
  for (size_t i = 1; i < ranks.size(); ++i) {
    const auto& a = ranks[i - 1];
    const auto& b = ranks[i];
    if (a.meta.rank >= 0 && a.meta.rank == b.meta.rank) {
      const auto [nameA, nameB] = distinctNames(a.file, b.file);
      throw TraceError(dir, "two traces claim rank " + std::to_string(a.meta.rank) + ": " + nameA +
                                " and " + nameB);
    }
  }
}

}  // namespace bubblescope::traces

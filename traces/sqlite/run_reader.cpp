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
  std::stable_sort(run.ranks.begin(), run.ranks.end(), [](const RankTrace& a, const RankTrace& b) {
    const bool aRanked = a.meta.rank >= 0, bRanked = b.meta.rank >= 0;
    if (aRanked != bRanked) return aRanked;
    return aRanked && a.meta.rank < b.meta.rank;
  });
  for (size_t i = 1; i < run.ranks.size(); ++i) {
    const auto& a = run.ranks[i - 1];
    const auto& b = run.ranks[i];
    if (a.meta.rank >= 0 && a.meta.rank == b.meta.rank) {
      const auto [nameA, nameB] = distinctNames(a.file, b.file);
      throw TraceError(run.dir, "two traces claim rank " + std::to_string(a.meta.rank) + ": " +
                                    nameA + " and " + nameB);
    }
  }
  return run;
}

}  // namespace bubblescope::traces

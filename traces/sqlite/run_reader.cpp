#include "traces/sqlite/run_reader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "traces/errors.h"
#include "traces/files/input_path.h"
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

  // Files are independent: read them on a small pool, first error wins.
  std::atomic<size_t> next{0};
  std::mutex mutex;
  size_t done = 0;
  std::exception_ptr error;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < files.size();) {
      try {
        run.ranks[i] = readRankTrace(files[i]);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        next = files.size();
        return;
      }
      std::lock_guard lock(mutex);
      ++done;
      if (options.progress) options.progress(done, files.size());
    }
  };
  unsigned threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  threads = std::clamp<unsigned>(threads, 1, static_cast<unsigned>(files.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);

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
      throw TraceError(run.dir, "two traces claim rank " + std::to_string(a.meta.rank) + ": " +
                                    a.file.filename().string() + " and " +
                                    b.file.filename().string());
    }
  }
  return run;
}

}  // namespace bubblescope::traces

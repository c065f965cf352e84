#include "traces/import/run_import.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "traces/errors.h"
#include "traces/import/kineto/chrome_trace_import.h"
#include "traces/import/nsys/nsys_import.h"
#include "traces/sqlite/run_reader.h"

namespace bubblescope::traces::import {
namespace fs = std::filesystem;
namespace {

// Runs `work(i)` for every file on a small pool; the first error wins.
template <class Work>
void forEachFile(size_t n, const LoadOptions& options, Work work) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  size_t done = 0;
  std::exception_ptr error;
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        next = n;
        return;
      }
      std::lock_guard lock(mutex);
      ++done;
      if (options.progress) options.progress(done, n);
    }
  };
  unsigned threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  threads = std::clamp<unsigned>(threads, 1, static_cast<unsigned>(std::max<size_t>(n, 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

void numberRanks(ImportedRun& out, InputFormat format) {
  auto& ranks = out.run.ranks;
  // Two traces may not claim one rank: they are of two runs, or one file given twice.
  std::map<int, const RankTrace*> claimed;
  for (const RankTrace& t : ranks) {
    if (t.meta.rank < 0) continue;
    auto [it, added] = claimed.emplace(t.meta.rank, &t);
    if (!added) {
      const bool sameFile = it->second->file == t.file;
      throw TraceError(t.file, "claims rank " + std::to_string(t.meta.rank) + ", as " +
                                   (sameFile ? std::string("another process in it")
                                             : it->second->file.filename().string()) +
                                   " does; give each run its own directory");
    }
  }
  const bool none = claimed.empty();
  if (none && ranks.size() > 1) {
    out.notes.push_back(std::string(format == InputFormat::Nsys
                                        ? "no rank ids in the exports: ranks numbered by GPU, "
                                          "then process id, file by file"
                                        : "no rank ids in the traces: ranks numbered in file "
                                          "name order"));
  }
  if (none) {
    for (size_t i = 0; i < ranks.size(); ++i) ranks[i].meta.rank = static_cast<int>(i);
  }
  if (format == InputFormat::Nsys) {
    for (RankTrace& t : ranks) {
      if (t.meta.worldSize < 0) t.meta.worldSize = static_cast<int>(ranks.size());
    }
  }
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankTrace& a, const RankTrace& b) {
    const bool aRanked = a.meta.rank >= 0, bRanked = b.meta.rank >= 0;
    if (aRanked != bRanked) return aRanked;
    return aRanked && a.meta.rank < b.meta.rank;
  });
}

}  // namespace

Inputs resolveInputs(const std::vector<fs::path>& paths) {
  if (paths.empty()) throw TraceError(".", "no input given");
  Inputs in;
  for (const fs::path& p : paths) {
    std::error_code ec;
    if (!fs::exists(p, ec)) throw TraceError(p, "no such file or directory");
    InputFormat format;
    std::vector<fs::path> files;
    if (fs::is_directory(p, ec)) {
      DirectoryContents c = scanDirectory(p);
      format = c.format;
      files = std::move(c.files);
      if (in.dir.empty()) in.dir = p;
    } else {
      const Detection d = detectFile(p);
      if (d.format == InputFormat::Unknown) throw TraceError(p, d.why);
      format = d.format;
      files.push_back(p);
      if (in.dir.empty()) in.dir = p;
    }
    if (in.format != InputFormat::Unknown && format != in.format) {
      throw TraceError(p, std::string(formatPhrase(format)) + ", but the inputs before it are " +
                              formatPhrase(in.format) + ": give one run in one format");
    }
    in.format = format;
    for (auto& f : files) in.files.push_back(std::move(f));
  }
  // Several files: the run is where the first one lies; one file names itself in messages.
  if (in.files.size() > 1 && !fs::is_directory(in.dir)) {
    in.dir = in.dir.parent_path().empty() ? fs::path(".") : in.dir.parent_path();
  }
  return in;
}

ImportedRun importRun(const Inputs& inputs, const LoadOptions& options) {
  ImportedRun out;
  out.run.dir = inputs.dir;
  out.files.resize(inputs.files.size());
  forEachFile(inputs.files.size(), options, [&](size_t i) {
    const fs::path& f = inputs.files[i];
    switch (inputs.format) {
      case InputFormat::ChromeTrace:
        out.files[i] = importChromeTraceFile(f);
        break;
      case InputFormat::Nsys:
        out.files[i] = importNsysFile(f);
        break;
      case InputFormat::Bubblescope:
      case InputFormat::Unknown:
        throw TraceError(f, std::string(formatPhrase(inputs.format)) + ", nothing to import");
    }
  });
  for (ImportedFile& f : out.files) {
    for (RankTrace& t : f.ranks) out.run.ranks.push_back(std::move(t));
    f.ranks.clear();
  }
  numberRanks(out, inputs.format);
  return out;
}

Run loadAnyRun(const std::vector<fs::path>& paths, const LoadOptions& options) {
  const Inputs in = resolveInputs(paths);
  if (in.format == InputFormat::Bubblescope) {
    // Our own traces load as they always have (the run directory is the file's for one file).
    RunReadOptions read;
    read.threads = options.threads;
    read.progress = options.progress;
    if (paths.size() == 1) return readRun(paths[0], read);
    return readRunFiles(in.files, read);
  }
  return std::move(importRun(in, options).run);
}

}  // namespace bubblescope::traces::import

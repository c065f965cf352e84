#include "traces/import/run_import.h"

#include <algorithm>
#include <map>

#include "traces/errors.h"
#include "traces/files/input_path.h"
#include "traces/files/path_names.h"
#include "traces/import/detect_input.h"
#include "traces/parallel/parallel_for.h"
#include "traces/sqlite/run_reader.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::traces::import {
namespace fs = std::filesystem;
namespace {

// Runs `work(i)` for every file in parallel; the first error wins.
template <class Work>
void forEachFile(size_t n, const LoadOptions& options, Work work) {
  parallelFor(n, options.threads, work, [&](size_t done) {
    if (options.progress) options.progress(done, n);
  });
}

// `items` in the order `order` gives (positions into the old order; a permutation). In place,
// cycle by cycle: a second vector of 20,000 ranks' traces was 14 MB of the import's peak.
template <typename T>
void reorder(std::vector<T>& items, const std::vector<size_t>& order) {
  std::vector<bool> placed(items.size(), false);
  for (size_t start = 0; start < items.size(); ++start) {
    if (placed[start]) continue;
    T held = std::move(items[start]);
    for (size_t at = start;;) {
      placed[at] = true;
      const size_t from = order[at];
      if (from == start) {
        items[at] = std::move(held);
        break;
      }
      items[at] = std::move(items[from]);
      at = from;
    }
  }
}

// Whether a path given names one of the input files (else it names their directory), told from
// the list alone: a directory's files lie inside it.
bool isOneOf(const std::vector<fs::path>& files, const fs::path& given) {
  return std::find(files.begin(), files.end(), given) != files.end();
}

}  // namespace

Inputs resolveInputs(const std::vector<fs::path>& paths) {
  if (paths.empty()) throw TraceError(".", "no input given");
  Inputs in;
  for (const fs::path& p : paths) {
    const InputKind kind = checkInputPath(p);
    InputFormat format;
    std::vector<fs::path> files;
    if (kind == InputKind::Directory) {
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
  in.dir = inputsDir(in.dir, in.files);
  return in;
}

fs::path inputsDir(const fs::path& first, const std::vector<fs::path>& files) {
  // Several files: the run is where the first one lies; one file names itself in messages.
  if (files.size() > 1 && isOneOf(files, first)) {
    return first.parent_path().empty() ? fs::path(".") : first.parent_path();
  }
  return first;
}

void numberRanks(std::vector<RankClaim>& claims, InputFormat format,
                 std::vector<std::string>& notes) {
  // Two traces may not claim one rank: they are of two runs, or one file given twice.
  std::map<int, const RankClaim*> claimed;
  for (const RankClaim& c : claims) {
    if (c.rank < 0) continue;
    auto [it, added] = claimed.emplace(c.rank, &c);
    if (!added) {
      const bool sameFile = it->second->file == c.file;
      throw TraceError(c.file, "claims rank " + std::to_string(c.rank) + ", as " +
                                   (sameFile ? std::string("another process in it")
                                             : distinctNames(c.file, it->second->file).second) +
                                   " does; give each run its own directory");
    }
  }
  // Traces of one job agree on its size, and either all say their rank or none does (numbering
  // the silent ones could only guess, and would collide with the ranks claimed).
  const RankClaim* sized = nullptr;
  for (const RankClaim& c : claims) {
    if (c.worldSize <= 0) continue;
    if (sized && sized->worldSize != c.worldSize) {
      throw TraceError(c.file, "is of a world of " + std::to_string(c.worldSize) + " ranks, " +
                                   distinctNames(c.file, sized->file).second + " of " +
                                   std::to_string(sized->worldSize) +
                                   ": traces of two jobs; give each run its own directory");
    }
    if (!sized) sized = &c;
  }
  if (!claimed.empty()) {
    for (const RankClaim& c : claims) {
      if (c.rank >= 0) continue;
      const RankClaim& first = *claimed.begin()->second;
      throw TraceError(c.file, "says no rank, while " + distinctNames(c.file, first.file).second +
                                   " claims rank " + std::to_string(first.rank) +
                                   ": cannot tell which rank it is; import it on its own");
    }
  }
  const RankPolicy& policy = rankPolicy(format);
  if (claimed.empty()) {
    if (claims.size() > 1) notes.push_back(policy.note);
    for (size_t i = 0; i < claims.size(); ++i) claims[i].rank = static_cast<int>(i);
  }
  if (policy.worldIsRanksFound) {
    for (RankClaim& c : claims) {
      if (c.worldSize < 0) c.worldSize = static_cast<int>(claims.size());
    }
  }
}

std::vector<ImportedFile> importEach(const Inputs& inputs, const LoadOptions& options,
                                     const RankSink& sink) {
  std::vector<ImportedFile> files(inputs.files.size());
  // Ranks are indexed by file, then process: a file holds at most this many.
  constexpr size_t kPerFile = size_t{1} << 20;
  const InputFormatRow* format = findInputFormat(inputs.format);
  forEachFile(inputs.files.size(), options, [&](size_t i) {
    const fs::path& f = inputs.files[i];
    if (!format || !format->import) {
      throw TraceError(f, std::string(formatPhrase(inputs.format)) + ", nothing to import");
    }
    files[i] = format->import(f, threadsEach(inputs.files.size(), options.threads));
    if (!sink) return;
    for (size_t k = 0; k < files[i].ranks.size(); ++k) {
      sink(i * kPerFile + k, std::move(files[i].ranks[k]));
    }
    std::vector<RankTrace>().swap(files[i].ranks);  // its room too: 14 MB at 20,000 ranks
  });
  return files;
}

ImportedRun importRun(const Inputs& inputs, const LoadOptions& options) {
  ImportedRun out;
  out.run.dir = inputs.dir;
  // Each file's ranks stay in it until all are read, then go to the run in file order: one
  // file's vector becomes the run's (a map and a second vector of 20,000 ranks' traces were
  // 28 MB of the import's peak).
  out.files = importEach(inputs, options, RankSink());
  size_t total = 0;
  for (const ImportedFile& f : out.files) total += f.ranks.size();
  for (ImportedFile& f : out.files) {
    if (out.run.ranks.empty()) {
      out.run.ranks = std::move(f.ranks);
      out.run.ranks.reserve(total);  // growing would move every RankTrace held so far
    } else {
      for (RankTrace& t : f.ranks) out.run.ranks.push_back(std::move(t));
    }
    std::vector<RankTrace>().swap(f.ranks);
  }
  std::vector<RankClaim> claims;
  for (const RankTrace& t : out.run.ranks)
    claims.push_back({t.file, t.meta.rank, t.meta.worldSize});
  numberRanks(claims, inputs.format, out.notes);
  for (size_t i = 0; i < claims.size(); ++i) {
    out.run.ranks[i].meta.rank = claims[i].rank;
    out.run.ranks[i].meta.worldSize = claims[i].worldSize;
  }
  reorder(out.run.ranks, rankOrder(out.run.ranks));
  return out;
}

std::vector<RankTrace> loadInputFile(const Inputs& inputs, size_t file, unsigned threads) {
  const fs::path& f = inputs.files.at(file);
  if (inputs.format == InputFormat::Bubblescope) {
    std::vector<RankTrace> out;
    out.push_back(readRankTrace(f));
    return out;
  }
  const InputFormatRow* format = findInputFormat(inputs.format);
  if (!format || !format->import) {
    throw TraceError(f, std::string(formatPhrase(inputs.format)) + ", nothing to import");
  }
  return std::move(format->import(f, threads).ranks);
}

fs::path runDirOf(const Inputs& inputs, const std::vector<fs::path>& paths) {
  if (inputs.format != InputFormat::Bubblescope) return inputs.dir;
  // As readRun and readRunFiles name it. A path given is a file of the run when it is one of its
  // files, else the directory holding them (read off the list: the process that names the run
  // need not have the path, under `analyze --local`).
  if (paths.size() == 1) return isOneOf(inputs.files, paths[0]) ? paths[0].parent_path() : paths[0];
  return inputs.files.empty() ? fs::path() : inputs.files.front().parent_path();
}

std::vector<size_t> finishRun(Run& run, InputFormat format) {
  if (format != InputFormat::Bubblescope) {
    std::vector<RankClaim> claims;
    for (const RankTrace& t : run.ranks) claims.push_back({t.file, t.meta.rank, t.meta.worldSize});
    std::vector<std::string> notes;
    numberRanks(claims, format, notes);
    for (size_t i = 0; i < claims.size(); ++i) {
      run.ranks[i].meta.rank = claims[i].rank;
      run.ranks[i].meta.worldSize = claims[i].worldSize;
    }
  }
  std::vector<size_t> order = rankOrder(run.ranks);
  reorder(run.ranks, order);
  if (format == InputFormat::Bubblescope) requireDistinctRanks(run.ranks, run.dir);
  return order;
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

#include "cli/file_assignment.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "traces/import/detect_input.h"
#include "traces/model/byte_codec.h"

namespace bubblescope::cli {
namespace {

using traces::import::InputFormat;

// Input order: by argument, then as the format's loader lists a directory.
bool inputLess(const ListedFile& a, const ListedFile& b, InputFormat format) {
  if (a.argument != b.argument) return a.argument < b.argument;
  if (format == InputFormat::Bubblescope) return a.path < b.path;  // findTraceFiles: by name
  return traces::import::naturalLess(a.path, b.path);
}

// Without --local every process sees the run alike: a process that lists other files than rank
// 0's is on a node whose disk holds its own (or a stale copy).
std::string differentListing(const std::vector<Listing>& listings) {
  auto paths = [](const Listing& l) {
    std::vector<std::string> out;
    for (const ListedFile& f : l.files) out.push_back(f.path);
    return out;
  };
  const std::vector<std::string> first = paths(listings.front());
  for (size_t r = 1; r < listings.size(); ++r) {
    if (paths(listings[r]) == first) continue;
    return "MPI rank " + std::to_string(r) + " sees " + std::to_string(listings[r].files.size()) +
           " trace file(s) in the paths given where MPI rank 0 sees " +
           std::to_string(first.size()) +
           (listings[r].files.size() == first.size() ? " others" : "") +
           ": where each node holds its own traces, give --local";
  }
  return "";
}

}  // namespace

Assignment assignFiles(const std::vector<Listing>& listings, bool local) {
  Assignment out;
  out.byProcess.resize(listings.size());
  int formatFrom = -1;
  for (size_t r = 0; r < listings.size(); ++r) {
    const Listing& l = listings[r];
    if (!l.error.empty()) {
      out.error = l.error;
      return out;
    }
    if (l.format == InputFormat::Unknown) continue;
    if (out.format != InputFormat::Unknown && l.format != out.format) {
      out.error = "MPI rank " + std::to_string(r) + " found " +
                  traces::import::formatPhrase(l.format) + " where MPI rank " +
                  std::to_string(formatFrom) + " found " +
                  traces::import::formatPhrase(out.format) + ": give one run in one format";
      return out;
    }
    out.format = l.format;
    formatFrom = static_cast<int>(r);
  }
  if (!local && !listings.empty()) {
    out.error = differentListing(listings);
    if (!out.error.empty()) return out;
  }
  // Each file once, with the processes that list it.
  std::map<std::string, std::pair<ListedFile, std::vector<size_t>>> byPath;
  for (size_t r = 0; r < listings.size(); ++r) {
    for (const ListedFile& f : listings[r].files) {
      auto& entry = byPath[f.path];
      entry.first = f;
      entry.second.push_back(r);
    }
  }
  if (byPath.empty()) {
    out.error = "no process of the job found a trace in the paths given";
    return out;
  }
  std::vector<const std::pair<ListedFile, std::vector<size_t>>*> files;
  for (const auto& [path, entry] : byPath) files.push_back(&entry);
  std::stable_sort(files.begin(), files.end(), [&](const auto* a, const auto* b) {
    return inputLess(a->first, b->first, out.format);
  });
  for (const auto* f : files) out.files.push_back(f->first.path);
  // Largest first, each to the least loaded process that has it.
  std::vector<size_t> bySize(files.size());
  std::iota(bySize.begin(), bySize.end(), 0);
  std::stable_sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) {
    return files[a]->first.bytes > files[b]->first.bytes;
  });
  std::vector<uint64_t> load(listings.size(), 0);
  for (size_t i : bySize) {
    size_t best = files[i]->second.front();
    for (size_t r : files[i]->second) {
      if (load[r] < load[best]) best = r;
    }
    load[best] += std::max<uint64_t>(files[i]->first.bytes, 1);
    out.byProcess[best].push_back(i);
  }
  for (size_t r = 0; r < listings.size(); ++r) {
    std::sort(out.byProcess[r].begin(), out.byProcess[r].end());
    const uint64_t atOnce = std::max<uint32_t>(1, listings[r].filesAtOnce);
    out.rounds = std::max<uint64_t>(out.rounds, (out.byProcess[r].size() + atOnce - 1) / atOnce);
  }
  out.rounds = std::min(out.rounds, kMostRounds);
  return out;
}

std::string encodeListing(const Listing& listing) {
  std::string out;
  traces::ByteWriter w(out);
  w.value(listing.format);
  w.value(listing.filesAtOnce);
  w.text(listing.error);
  w.value<uint64_t>(listing.files.size());
  for (const ListedFile& f : listing.files) {
    w.value(f.argument);
    w.text(f.path);
    w.value(f.bytes);
  }
  return out;
}

Listing decodeListing(const std::string& bytes) {
  traces::ByteReader r(bytes);
  Listing l;
  l.format = r.value<InputFormat>();
  l.filesAtOnce = r.value<uint32_t>();
  l.error = r.text();
  for (auto n = r.value<uint64_t>(); n > 0; --n) {
    ListedFile f;
    f.argument = r.value<uint32_t>();
    f.path = r.text();
    f.bytes = r.value<uint64_t>();
    l.files.push_back(std::move(f));
  }
  return l;
}

std::string encodeAssignment(const Assignment& a) {
  std::string out;
  traces::ByteWriter w(out);
  w.value(a.format);
  w.value(a.rounds);
  w.text(a.error);
  w.value<uint64_t>(a.files.size());
  for (const std::string& f : a.files) w.text(f);
  w.value<uint64_t>(a.byProcess.size());
  for (const auto& mine : a.byProcess) w.column(mine);
  return out;
}

Assignment decodeAssignment(const std::string& bytes) {
  traces::ByteReader r(bytes);
  Assignment a;
  a.format = r.value<InputFormat>();
  a.rounds = r.value<uint64_t>();
  a.error = r.text();
  for (auto n = r.value<uint64_t>(); n > 0; --n) a.files.push_back(r.text());
  a.byProcess.resize(r.value<uint64_t>());
  for (auto& mine : a.byProcess) r.column(mine);
  return a;
}

}  // namespace bubblescope::cli

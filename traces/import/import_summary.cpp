#include "traces/import/import_summary.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace bubblescope::traces::import {
namespace {

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool isStepName(std::string_view n) {
  if (n.starts_with("ProfilerStep#")) return allDigits(n.substr(13));
  if (n.starts_with("step ")) return allDigits(n.substr(5));
  return false;
}

}  // namespace

size_t countSteps(const RankTrace& t) {
  std::vector<signed char> isStep(t.strings.size(), -1);
  std::set<StringId> seen;
  for (StringId name : t.ranges->name) {
    if (isStep[name] < 0) isStep[name] = isStepName(t.strings.at(name)) ? 1 : 0;
    if (isStep[name]) seen.insert(name);
  }
  return seen.size();
}

RankSummary summarize(const RankTrace& t) {
  RankSummary s;
  s.file = t.file;
  s.source = t.meta.source;
  s.rank = t.meta.rank;
  s.worldSize = t.meta.worldSize;
  s.pid = t.meta.pid;
  s.kernels = t.kernels->size();
  s.memcpys = t.memcpys->size();
  s.memsets = t.memsets->size();
  s.apiCalls = t.apiCalls->size();
  s.ranges = t.ranges->size();
  s.marks = t.marks->size();
  s.nccl = t.ncclCalls->size();
  s.steps = countSteps(t);
  s.events = t.eventCount();
  return s;
}

void printImportSummary(const std::vector<RankSummary>& rows,
                        const std::vector<ImportedFile>& files,
                        const std::vector<std::string>& notes, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "%5s  %-36s %8s %8s %8s %9s %8s %8s %6s %6s\n", "rank", "from",
                "kernels", "memcpys", "memsets", "api calls", "ranges", "marks", "nccl", "steps");
  out << line;
  int worldSize = -1;
  size_t events = 0;
  for (const RankSummary& r : rows) {
    std::string from = r.file.filename().string();
    if (from.size() > 28) from = from.substr(0, 12) + "..." + from.substr(from.size() - 13);
    if (r.source == "nsys") from += " pid " + std::to_string(r.pid);
    std::snprintf(line, sizeof line, "%5d  %-36s %8zu %8zu %8zu %9zu %8zu %8zu %6zu %6zu\n", r.rank,
                  from.c_str(), r.kernels, r.memcpys, r.memsets, r.apiCalls, r.ranges, r.marks,
                  r.nccl, r.steps);
    out << line;
    worldSize = std::max(worldSize, r.worldSize);
    events += r.events;
  }
  out << rows.size() << (rows.size() == 1 ? " rank" : " ranks");
  if (worldSize > 0) out << " of a world of " << worldSize;
  out << ", " << events << " events\n";
  for (const ImportedFile& f : files) {
    for (const auto& [what, n] : f.skipped) {
      out << "  " << f.file.filename().string() << ": not imported: " << n << " " << what << "\n";
    }
    for (const std::string& note : f.notes) {
      out << "  " << f.file.filename().string() << ": " << note << "\n";
    }
  }
  for (const std::string& note : notes) out << "  " << note << "\n";
}

}  // namespace bubblescope::traces::import

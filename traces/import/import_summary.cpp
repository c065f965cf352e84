#include "traces/import/import_summary.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

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

std::string cell(size_t v) {
  return std::to_string(v);
}

}  // namespace

size_t countSteps(const RankTrace& t) {
  std::vector<char> isStep(t.strings.size(), -1);
  std::set<StringId> seen;
  for (StringId name : t.ranges.name) {
    if (isStep[name] < 0) isStep[name] = isStepName(t.strings.at(name)) ? 1 : 0;
    if (isStep[name]) seen.insert(name);
  }
  return seen.size();
}

void printImportSummary(const ImportedRun& imported, std::ostream& out) {
  const Run& run = imported.run;
  char line[256];
  std::snprintf(line, sizeof line, "%5s  %-36s %8s %8s %8s %9s %8s %8s %6s %6s\n", "rank", "from",
                "kernels", "memcpys", "memsets", "api calls", "ranges", "marks", "nccl", "steps");
  out << line;
  for (const RankTrace& t : run.ranks) {
    std::string from = t.file.filename().string();
    if (from.size() > 28) from = from.substr(0, 12) + "..." + from.substr(from.size() - 13);
    if (t.meta.source == "nsys") from += " pid " + std::to_string(t.meta.pid);
    std::snprintf(line, sizeof line, "%5d  %-36s %8s %8s %8s %9s %8s %8s %6s %6s\n", t.meta.rank,
                  from.c_str(), cell(t.kernels.size()).c_str(), cell(t.memcpys.size()).c_str(),
                  cell(t.memsets.size()).c_str(), cell(t.apiCalls.size()).c_str(),
                  cell(t.ranges.size()).c_str(), cell(t.marks.size()).c_str(),
                  cell(t.ncclCalls.size()).c_str(), cell(countSteps(t)).c_str());
    out << line;
  }
  int worldSize = -1;
  for (const RankTrace& t : run.ranks) worldSize = std::max(worldSize, t.meta.worldSize);
  out << run.ranks.size() << (run.ranks.size() == 1 ? " rank" : " ranks");
  if (worldSize > 0) out << " of a world of " << worldSize;
  out << ", " << run.eventCount() << " events\n";
  for (const ImportedFile& f : imported.files) {
    for (const auto& [what, n] : f.skipped) {
      out << "  " << f.file.filename().string() << ": not imported: " << n << " " << what << "\n";
    }
    for (const std::string& note : f.notes) {
      out << "  " << f.file.filename().string() << ": " << note << "\n";
    }
  }
  for (const std::string& note : imported.notes) out << "  " << note << "\n";
}

}  // namespace bubblescope::traces::import

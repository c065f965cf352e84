#include <cstdio>

#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/report/format.h"
#include "analyzer/report/sections/utilization_report.h"

namespace bubblescope::analysis {
namespace {

// Rows per rank beyond which steps are summarised (a 1000-step trace is not read line by line).
constexpr size_t kStepRows = 20;

std::string row(const std::string& name, const UtilizationSplit& s) {
  // A wait that holds a partial collective's is marked; the note under the table says how.
  const std::string wait = formatMs(s.commWait) + (s.waitMembers.partial() ? "*" : "");
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-14s %9s %9s %9s %9s %9s %9s %7s\n", name.c_str(),
                formatMs(s.span).c_str(), formatMs(s.compute).c_str(),
                formatMs(s.exposedComm).c_str(), wait.c_str(), formatMs(s.otherBusy).c_str(),
                formatMs(s.idle).c_str(), formatPercent(share(s.idle, s.span)).c_str());
  return buf;
}

}  // namespace

void writeUtilizationText(const AnalysisResult& r, std::ostream& out) {
  const UtilizationResult& u = *r.utilization;
  out << "bubblescope analysis of " << r.runDir << "\n";
  if (!r.command.empty()) out << "command:  " << r.command << "\n";
  out << "ranks:    " << r.ranks << " (no pipeline: utilization only";
  if (!u.commKinds.empty()) out << "; NCCL " << u.commKinds;
  out << ")\n";
  out << "steps:    "
      << (u.stepsFromMarkers ? "from step ranges" : "none marked: the capture is one step") << "\n";
  for (const std::string& h : u.headline) out << "headline: " << h << "\n";
  out << "step time " << formatMs(u.meanStepTime) << " ms mean, " << formatMs(u.medianStepTime)
      << " ms median; slowest rank " << u.slowestRank << " step " << u.slowestStep << " at "
      << formatMs(u.slowestStepTime) << " ms ("
      << formatPercent(
             u.medianStepTime ? static_cast<double>(u.slowestStepTime) / u.medianStepTime - 1 : 0)
      << " over the median)\n\n";
  out << "All figures in ms: compute, NCCL moving data with no compute (comm), NCCL waiting for "
         "its\n"
         "peers (wait), copies and sets (other), nothing on the device (idle).\n";
  char head[256];
  std::snprintf(head, sizeof head, "%-14s %9s %9s %9s %9s %9s %9s %7s\n", "rank / step", "span",
                "compute", "comm", "wait", "other", "idle", "idle%");
  out << head;
  for (const RankUtilization& ru : u.ranks) {
    out << row("rank " + std::to_string(ru.rank), ru.total);
    if (ru.steps.size() <= kStepRows) {
      for (const UtilizationStep& s : ru.steps)
        out << row("  step " + std::to_string(s.number), s.split);
    }
  }
  out << row("all", u.total);
  if (u.total.waitMembers.partial()) {
    out << "* wait in collectives with members the run does not hold, for the traced ones only\n"
        << "  (" << tracedMembersText(u.total.waitMembers)
        << "): a lower bound, not the job's wait\n";
  }
  out << "\nIdle by what the host was doing:\n";
  for (const IdleCause& c : u.idleByCause) {
    out << "  " << c.cause << ": " << formatMs(c.idle) << " ms in " << c.gaps << " gap(s) ("
        << formatPercent(share(c.idle, u.total.idle)) << " of idle)\n";
  }
  out << "\nLargest idle gaps:\n";
  int i = 0;
  for (const IdleGap& g : u.largestGaps) {
    out << "  " << ++i << ". rank " << g.rank << ", step " << g.step << ", "
        << formatMs(g.length(), 2) << " ms idle, host: " << g.cause;
    if (!g.detail.empty()) out << " (" << g.detail.substr(0, 80) << ")";
    if (g.freeMemory != traces::kBytesUnknown) out << ", " << formatGiB(g.freeMemory) << " free";
    out << "\n";
  }
  writeRankInventoryText(u.ranks, out);
  if (!r.warnings.empty()) {
    out << "\nWarnings:\n";
    for (const std::string& w : r.warnings) out << "  - " << w << "\n";
  }
}

}  // namespace bubblescope::analysis

// The utilization in Markdown (a PR comment) and HTML (a self-contained page).
#include <sstream>

#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/report/format.h"
#include "analyzer/report/markup.h"
#include "analyzer/report/sections/utilization_report.h"

namespace bubblescope::analysis {
namespace {

constexpr size_t kStepRows = 20;

// The table as rows of cells, shared by both formats.
std::vector<std::vector<std::string>> splitRows(const UtilizationResult& u) {
  std::vector<std::vector<std::string>> rows;
  auto add = [&](const std::string& name, const UtilizationSplit& s) {
    // A wait that holds a partial collective's says from how many members it was measured.
    const std::string wait =
        formatMs(s.commWait) +
        (s.waitMembers.partial() ? " (" + tracedMembersText(s.waitMembers) + ")" : "");
    rows.push_back({name, formatMs(s.span), formatMs(s.compute), formatMs(s.exposedComm), wait,
                    formatMs(s.otherBusy), formatMs(s.idle), formatPercent(share(s.idle, s.span))});
  };
  for (const RankUtilization& ru : u.ranks) {
    add("rank " + std::to_string(ru.rank), ru.total);
    if (ru.steps.size() <= kStepRows) {
      for (const UtilizationStep& s : ru.steps)
        add("rank " + std::to_string(ru.rank) + " step " + std::to_string(s.number), s.split);
    }
  }
  add("all", u.total);
  return rows;
}

const std::vector<std::string> kHeads = {"rank / step", "span ms", "compute", "comm",
                                         "wait",        "other",   "idle",    "idle %"};

std::string slowest(const UtilizationResult& u) {
  std::ostringstream s;
  s << "step time " << formatMs(u.meanStepTime) << " ms mean, " << formatMs(u.medianStepTime)
    << " ms median; slowest rank " << u.slowestRank << " step " << u.slowestStep << " at "
    << formatMs(u.slowestStepTime) << " ms ("
    << formatPercent(
           u.medianStepTime ? static_cast<double>(u.slowestStepTime) / u.medianStepTime - 1 : 0)
    << " over the median)";
  return s.str();
}

std::string gapLine(const IdleGap& g) {
  return "rank " + std::to_string(g.rank) + ", step " + std::to_string(g.step) + ", " +
         formatMs(g.length(), 2) + " ms idle, host: " + g.cause +
         (g.detail.empty() ? "" : " (" + g.detail.substr(0, 80) + ")") +
         (g.freeMemory == traces::kBytesUnknown ? "" : ", " + formatGiB(g.freeMemory) + " free");
}

}  // namespace

void writeUtilizationMarkdown(const AnalysisResult& r, std::ostream& out) {
  const UtilizationResult& u = *r.utilization;
  out << "## bubblescope: utilization (no pipeline)\n\n**Run** " << markdownCode(r.runDir) << " · "
      << r.ranks << " ranks"
      << (u.commKinds.empty() ? "" : " · NCCL " + escapeMarkdownCell(u.commKinds)) << "\n\n";
  for (const std::string& h : u.headline) {
    out << "**Headline:** " << escapeMarkdownCell(h) << "\n\n";
  }
  out << escapeMarkdownCell(slowest(u)) << "\n\n|";
  for (const auto& h : kHeads) out << " " << h << " |";
  out << "\n|";
  for (size_t i = 0; i < kHeads.size(); ++i) out << (i ? " ---: |" : " --- |");
  out << "\n";
  for (const auto& row : splitRows(u)) {
    out << "|";
    for (const auto& c : row) out << " " << escapeMarkdownCell(c) << " |";
    out << "\n";
  }
  out << "\n**Idle by what the host was doing**\n\n";
  for (const IdleCause& c : u.idleByCause) {
    out << "- " << escapeMarkdownCell(c.cause) << ": " << formatMs(c.idle) << " ms in " << c.gaps
        << " gap(s)\n";
  }
  out << "\n**Largest idle gaps**\n\n";
  int i = 0;
  for (const IdleGap& g : u.largestGaps)
    out << ++i << ". " << escapeMarkdownCell(gapLine(g)) << "\n";
  writeRankInventoryMarkdown(u.ranks, out);
  if (!r.warnings.empty()) {
    out << "\n";
    for (const std::string& w : r.warnings) out << "> " << escapeMarkdownCell(w) << "\n";
  }
}

void writeUtilizationHtml(const AnalysisResult& r, std::ostream& out) {
  const UtilizationResult& u = *r.utilization;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bubblescope: "
      << escapeXml(r.runDir) << "</title>\n<style>body{font-family:sans-serif;margin:2em}"
      << "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd}"
      << "td{text-align:right}td:first-child{text-align:left}</style></head><body>\n"
      << "<h1>bubblescope <small>utilization (no pipeline)</small></h1>\n<p>run <code>"
      << escapeXml(r.runDir) << "</code> · " << r.ranks << " ranks"
      << (u.commKinds.empty() ? "" : " · NCCL " + escapeXml(u.commKinds)) << "</p>\n";
  for (const std::string& h : u.headline) {
    out << "<p class=\"headline\"><strong>Headline:</strong> " << escapeXml(h) << "</p>\n";
  }
  out << "<p>" << escapeXml(slowest(u)) << "</p>\n<table><tr>";
  for (const auto& h : kHeads) out << "<th>" << escapeXml(h) << "</th>";
  out << "</tr>\n";
  for (const auto& row : splitRows(u)) {
    out << "<tr>";
    for (const auto& c : row) out << "<td>" << escapeXml(c) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n<h2>Idle by what the host was doing</h2>\n<ul>\n";
  for (const IdleCause& c : u.idleByCause) {
    out << "<li>" << escapeXml(c.cause) << ": " << formatMs(c.idle) << " ms in " << c.gaps
        << " gap(s)</li>\n";
  }
  out << "</ul>\n<h2>Largest idle gaps</h2>\n<ol>\n";
  for (const IdleGap& g : u.largestGaps) out << "<li>" << escapeXml(gapLine(g)) << "</li>\n";
  out << "</ol>\n";
  writeRankInventoryHtml(u.ranks, out);
  for (const std::string& w : r.warnings)
    out << "<p class=\"warning\">" << escapeXml(w) << "</p>\n";
  out << "</body></html>\n";
}

}  // namespace bubblescope::analysis

#include "analyzer/inventory/inventory_report.h"

#include "analyzer/report/format.h"
#include "analyzer/report/markup.h"

namespace bubblescope::analysis {
namespace {

const std::vector<std::string> kHeads = {
    "stage", "bubbles",        "idle ms", "largest ms", "<1 ms", "1-5",    "5-10",       "10-50",
    ">=50",  "idle in >=1 ms", ">=5",     ">=10",       ">=50",  "steady", "free memory"};

std::vector<std::string> cells(const StageInventory& s) {
  std::vector<std::string> c = {std::to_string(s.stage), std::to_string(s.bubbles),
                                formatMs(s.idle), formatMs(s.largest, 2)};
  for (const BubbleBucket& b : s.histogram) c.push_back(std::to_string(b.count));
  for (double share : s.shareAtLeast) c.push_back(formatPercent(share));
  c.push_back(s.steady ? "yes" : "no");
  c.push_back(s.freeMemoryKnown ? "known" : "not recorded");
  return c;
}

const char* kNote =
    "Bubbles: each gap's idle (transfers inside it left out). Free device memory during them is "
    "not recorded by any trace source yet.";

}  // namespace

nlohmann::json inventoryJson(const std::vector<StageInventory>& inventory) {
  nlohmann::json stages = nlohmann::json::array();
  for (const StageInventory& s : inventory) {
    nlohmann::json hist = nlohmann::json::array();
    for (const BubbleBucket& b : s.histogram) {
      hist.push_back({{"from_ns", b.from},
                      {"to_ns", b.to == 0 ? nlohmann::json() : nlohmann::json(b.to)},
                      {"count", b.count},
                      {"idle_ns", b.idle}});
    }
    nlohmann::json shares = nlohmann::json::object();
    for (size_t k = 0; k < kBubbleThresholds.size(); ++k) {
      shares["at_least_" + std::to_string(kBubbleThresholds[k] / 1'000'000) + "ms"] =
          s.shareAtLeast[k];
    }
    stages.push_back({{"stage", s.stage},
                      {"bubbles", s.bubbles},
                      {"idle_ns", s.idle},
                      {"largest_ns", s.largest},
                      {"histogram", hist},
                      {"idle_share_in_bubbles", shares},
                      {"steady", s.steady},
                      {"steady_note", s.steadyNote},
                      {"free_memory_bytes", nullptr}});
  }
  return stages;
}

void writeInventoryText(const std::vector<StageInventory>& inventory, std::ostream& out) {
  out << "\nBubble inventory (idle intervals a fill job could use):\n";
  for (const StageInventory& s : inventory) {
    out << "  stage " << s.stage << ": " << s.bubbles << " bubbles, " << formatMs(s.idle)
        << " ms idle, largest " << formatMs(s.largest, 2)
        << " ms; by length <1/1-5/5-10/10-50/>=50 ms:";
    for (const BubbleBucket& b : s.histogram) out << " " << b.count;
    out << "; idle in bubbles >=1/5/10/50 ms:";
    for (double share : s.shareAtLeast) out << " " << formatPercent(share, 0);
    out << "; " << (s.steady ? "steady" : "not steady") << " (" << s.steadyNote << ")\n";
  }
  out << "  " << kNote << "\n";
}

void writeInventoryMarkdown(const std::vector<StageInventory>& inventory, std::ostream& out) {
  out << "\n**Bubble inventory** (idle intervals a fill job could use)\n\n|";
  for (const auto& h : kHeads) out << " " << escapeMarkdownCell(h) << " |";
  out << "\n|";
  for (size_t i = 0; i < kHeads.size(); ++i) out << (i ? "---:|" : "---|");
  out << "\n";
  for (const StageInventory& s : inventory) {
    out << "|";
    for (const auto& c : cells(s)) out << " " << escapeMarkdownCell(c) << " |";
    out << "\n";
  }
  out << "\n" << kNote << "\n";
}

void writeInventoryHtml(const std::vector<StageInventory>& inventory, std::ostream& out) {
  out << "<h3>Bubble inventory</h3>\n<table class=\"inventory\"><tr>";
  for (const auto& h : kHeads) out << "<th>" << escapeXml(h) << "</th>";
  out << "</tr>\n";
  for (const StageInventory& s : inventory) {
    out << "<tr>";
    for (const auto& c : cells(s)) out << "<td>" << escapeXml(c) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n<p class=\"note\">" << escapeXml(kNote) << "</p>\n";
}

void inventoryProperties(const StageInventory& s, JunitProperties& p) {
  p.emplace_back("bubbles", std::to_string(s.bubbles));
  p.emplace_back("largest_bubble_ms", formatMs(s.largest, 3));
  for (size_t k = 0; k < kBubbleThresholds.size(); ++k) {
    p.emplace_back(
        "idle_in_bubbles_at_least_" + std::to_string(kBubbleThresholds[k] / 1'000'000) + "ms_pct",
        formatPercent(s.shareAtLeast[k], 3));
  }
  p.emplace_back("bubbles_steady", s.steady ? "true" : "false");
}

}  // namespace bubblescope::analysis

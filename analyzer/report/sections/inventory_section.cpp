#include "analyzer/report/sections/inventory_section.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <utility>

#include "analyzer/report/format.h"
#include "analyzer/report/markup.h"

namespace bubblescope::analysis {
namespace {

// One row of a table: the stage or rank number and its inventory.
using Row = std::pair<int, const IdleInventory*>;

std::vector<Row> rowsOf(const std::vector<StageInventory>& inventory) {
  std::vector<Row> rows;
  for (const StageInventory& s : inventory) rows.emplace_back(s.stage, &s);
  return rows;
}

std::vector<Row> rowsOf(const std::vector<RankUtilization>& ranks) {
  std::vector<Row> rows;
  for (const RankUtilization& r : ranks) rows.emplace_back(r.rank, &r.inventory);
  return rows;
}

std::vector<std::string> heads(std::string_view unit) {
  return {std::string(unit),
          "bubbles",
          "idle ms",
          "largest ms",
          "<1 ms",
          "1-5",
          "5-10",
          "10-50",
          ">=50",
          "idle in >=1 ms",
          ">=5",
          ">=10",
          ">=50",
          "steady",
          "free memory in >=1 ms (min / median)"};
}

std::string freeMemoryCell(const IdleInventory& s) {
  if (s.memoryBasis == MemoryBasis::NotRecorded) return "not recorded";
  if (s.deviceMemory == 0) return "capacity not recorded";
  if (!s.freeMemoryKnown()) return "no bubble of 1 ms or more measured";
  return formatGiB(s.freeMemoryMin) + " / " + formatGiB(s.freeMemoryMedian) + " of " +
         formatGiB(static_cast<int64_t>(s.deviceMemory)) + " (" + memoryBasisName(s.memoryBasis) +
         ")";
}

std::vector<std::string> cells(const Row& row) {
  const IdleInventory& s = *row.second;
  std::vector<std::string> c = {std::to_string(row.first), std::to_string(s.bubbles),
                                formatMs(s.idle), formatMs(s.largest, 2)};
  for (const BubbleBucket& b : s.histogram) c.push_back(std::to_string(b.count));
  for (double share : s.shareAtLeast) c.push_back(formatPercent(share, 1));
  c.push_back(s.steady ? "yes" : "no");
  c.push_back(freeMemoryCell(s));
  return c;
}

const char* kNote =
    "Bubbles: idle intervals of the device (a gap's idle, transfers inside it left out). Free "
    "memory: the device's capacity less the most the job held during the bubble (the allocator's "
    "reserve when the trace records it, else its allocated bytes: the column says which); other "
    "processes on the device are not seen.";

void writeFreeMemoryJson(const IdleInventory& s, JsonWriter& out) {
  auto bytes = [&](const char* name, int64_t b) {
    out.key(name);
    b == traces::kBytesUnknown ? out.null() : out.value(b);
  };
  out.beginObject();
  out.field("basis", memoryBasisName(s.memoryBasis));
  out.field("bubbles_at_least_1ms_known", s.freeMemoryBubbles);
  out.key("device_memory_bytes");
  s.deviceMemory == 0 ? out.null() : out.value(s.deviceMemory);
  bytes("median_bytes", s.freeMemoryMedian);
  bytes("min_bytes", s.freeMemoryMin);
  out.field("note", s.freeMemoryNote);
  out.endObject();
}

// `unit` is "stage" or "rank": both sort between "largest_ns" and "steady".
void writeJson(std::string_view unit, const std::vector<Row>& rows, JsonWriter& out) {
  out.beginArray();
  for (const auto& [id, inv] : rows) {
    const IdleInventory& s = *inv;
    out.beginObject();
    out.field("bubbles", s.bubbles);
    out.key("free_memory");
    writeFreeMemoryJson(s, out);
    out.key("histogram").beginArray();
    for (const BubbleBucket& b : s.histogram) {
      out.beginObject();
      out.field("count", b.count);
      out.field("from_ns", b.from);
      out.field("idle_ns", b.idle);
      out.key("to_ns");
      b.to == 0 ? out.null() : out.value(b.to);
      out.endObject();
    }
    out.endArray();
    out.field("idle_ns", s.idle);
    std::vector<std::pair<std::string, double>> shares;
    for (size_t k = 0; k < kBubbleThresholds.size(); ++k) {
      shares.emplace_back("at_least_" + std::to_string(kBubbleThresholds[k] / 1'000'000) + "ms",
                          s.shareAtLeast[k]);
    }
    std::sort(shares.begin(), shares.end());  // "at_least_10ms" before "at_least_1ms"
    out.key("idle_share_in_bubbles").beginObject();
    for (const auto& [name, share] : shares) out.field(name, share);
    out.endObject();
    out.field("largest_ns", s.largest);
    out.field(unit, id);
    out.field("steady", s.steady);
    out.field("steady_note", s.steadyNote);
    out.endObject();
  }
  out.endArray();
}

void text(std::string_view unit, const std::vector<Row>& rows, std::ostream& out) {
  out << "\nBubble inventory (idle intervals a fill job could use):\n";
  for (const auto& [id, inv] : rows) {
    const IdleInventory& s = *inv;
    out << "  " << unit << " " << id << ": " << s.bubbles << " bubbles, " << formatMs(s.idle)
        << " ms idle, largest " << formatMs(s.largest, 2)
        << " ms; by length <1/1-5/5-10/10-50/>=50 ms:";
    for (const BubbleBucket& b : s.histogram) out << " " << b.count;
    out << "; idle in bubbles >=1/5/10/50 ms:";
    for (double share : s.shareAtLeast) out << " " << formatPercent(share, 0);
    out << "; " << (s.steady ? "steady" : "not steady") << " (" << s.steadyNote << ")";
    out << "; free memory in bubbles >=1 ms (min / median): " << freeMemoryCell(s) << "\n";
  }
  out << "  " << kNote << "\n";
}

void markdown(std::string_view unit, const std::vector<Row>& rows, std::ostream& out) {
  const std::vector<std::string> h = heads(unit);
  out << "\n**Bubble inventory** (idle intervals a fill job could use)\n\n|";
  for (const auto& c : h) out << " " << escapeMarkdownCell(c) << " |";
  out << "\n|";
  for (size_t i = 0; i < h.size(); ++i) out << (i ? "---:|" : "---|");
  out << "\n";
  for (const Row& row : rows) {
    out << "|";
    for (const auto& c : cells(row)) out << " " << escapeMarkdownCell(c) << " |";
    out << "\n";
  }
  out << "\n" << kNote << "\n";
}

void html(std::string_view unit, const std::vector<Row>& rows, std::ostream& out) {
  out << "<h3>Bubble inventory</h3>\n<table class=\"inventory\"><tr>";
  for (const auto& c : heads(unit)) out << "<th>" << escapeXml(c) << "</th>";
  out << "</tr>\n";
  for (const Row& row : rows) {
    out << "<tr>";
    for (const auto& c : cells(row)) out << "<td>" << escapeXml(c) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n<p class=\"note\">" << escapeXml(kNote) << "</p>\n";
}

}  // namespace

std::string formatGiB(int64_t bytes) {
  if (bytes == traces::kBytesUnknown) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buf;
}

void writeInventoryText(const std::vector<StageInventory>& inventory, std::ostream& out) {
  text("stage", rowsOf(inventory), out);
}
void writeInventoryMarkdown(const std::vector<StageInventory>& inventory, std::ostream& out) {
  markdown("stage", rowsOf(inventory), out);
}
void writeInventoryHtml(const std::vector<StageInventory>& inventory, std::ostream& out) {
  html("stage", rowsOf(inventory), out);
}

void writeRankInventoryText(const std::vector<RankUtilization>& ranks, std::ostream& out) {
  text("rank", rowsOf(ranks), out);
}
void writeRankInventoryMarkdown(const std::vector<RankUtilization>& ranks, std::ostream& out) {
  markdown("rank", rowsOf(ranks), out);
}
void writeRankInventoryHtml(const std::vector<RankUtilization>& ranks, std::ostream& out) {
  html("rank", rowsOf(ranks), out);
}

void inventoryProperties(const IdleInventory& s, JunitProperties& p) {
  p.emplace_back("bubbles", std::to_string(s.bubbles));
  p.emplace_back("largest_bubble_ms", formatMs(s.largest, 3));
  for (size_t k = 0; k < kBubbleThresholds.size(); ++k) {
    p.emplace_back(
        "idle_in_bubbles_at_least_" + std::to_string(kBubbleThresholds[k] / 1'000'000) + "ms_pct",
        formatPercent(s.shareAtLeast[k], 3));
  }
  p.emplace_back("bubbles_steady", s.steady ? "true" : "false");
  if (s.freeMemoryKnown()) {
    p.emplace_back("bubble_free_memory_min_bytes", std::to_string(s.freeMemoryMin));
    p.emplace_back("bubble_free_memory_median_bytes", std::to_string(s.freeMemoryMedian));
    p.emplace_back("bubble_free_memory_basis", memoryBasisName(s.memoryBasis));
  }
}

void writeInventoryJson(const std::vector<StageInventory>& inventory, JsonWriter& out) {
  writeJson("stage", rowsOf(inventory), out);
}

void writeRankInventoryJson(const std::vector<RankUtilization>& ranks, JsonWriter& out) {
  writeJson("rank", rowsOf(ranks), out);
}

}  // namespace bubblescope::analysis

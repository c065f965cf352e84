#pragma once
// The inventory of idle intervals (idle_inventory.h) as every report shows it: a section of the
// text, Markdown and HTML reports, a field of the JSON, JUnit properties. One row per pipeline
// stage (bubble_inventory.h), or per rank for a job with no pipeline (its utilization).
#include <ostream>
#include <vector>

#include "analyzer/inventory/bubble_inventory.h"
#include "analyzer/report/json_writer.h"
#include "analyzer/report/junit_xml.h"
#include "analyzer/result/utilization_result.h"

namespace bubblescope::analysis {

void writeInventoryJson(const std::vector<StageInventory>& inventory, JsonWriter& out);
void writeInventoryText(const std::vector<StageInventory>& inventory, std::ostream& out);
void writeInventoryMarkdown(const std::vector<StageInventory>& inventory, std::ostream& out);
void writeInventoryHtml(const std::vector<StageInventory>& inventory, std::ostream& out);

// The same per rank of a job with no pipeline.
void writeRankInventoryJson(const std::vector<RankUtilization>& ranks, JsonWriter& out);
void writeRankInventoryText(const std::vector<RankUtilization>& ranks, std::ostream& out);
void writeRankInventoryMarkdown(const std::vector<RankUtilization>& ranks, std::ostream& out);
void writeRankInventoryHtml(const std::vector<RankUtilization>& ranks, std::ostream& out);

void inventoryProperties(const IdleInventory& inventory, JunitProperties& properties);

// Bytes as GiB with one decimal ("71.3 GiB"); "" for kBytesUnknown.
std::string formatGiB(int64_t bytes);

}  // namespace bubblescope::analysis

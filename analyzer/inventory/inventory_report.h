#pragma once
// The bubble inventory (bubble_inventory.h) as every report shows it: a section of the text,
// Markdown and HTML reports, a field of the JSON, properties of the JUnit stage cases.
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/inventory/bubble_inventory.h"
#include "analyzer/report/junit_xml.h"

namespace bubblescope::analysis {

nlohmann::json inventoryJson(const std::vector<StageInventory>& inventory);
void writeInventoryText(const std::vector<StageInventory>& inventory, std::ostream& out);
void writeInventoryMarkdown(const std::vector<StageInventory>& inventory, std::ostream& out);
void writeInventoryHtml(const std::vector<StageInventory>& inventory, std::ostream& out);
void inventoryProperties(const StageInventory& inventory, JunitProperties& properties);

}  // namespace bubblescope::analysis

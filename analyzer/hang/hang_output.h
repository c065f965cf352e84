#pragma once
// The hang report as a person reads it (the diagnosis first, then a line per rank and the
// wait-for graph) and as a program does (JSON, docs/hang.md).
#include <ostream>

#include <nlohmann/json.hpp>

#include "analyzer/hang/hang.h"

namespace bubblescope::analysis::hang {

void printHangReport(const HangReport& report, std::ostream& out);
nlohmann::json hangReportJson(const HangReport& report);

}  // namespace bubblescope::analysis::hang

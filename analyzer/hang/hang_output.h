#pragma once
// The hang report as a person reads it (the diagnosis first, then a line per rank and the
// wait-for graph) and as a program does (JSON, docs/hang.md).
#include <ostream>

#include "analyzer/hang/hang.h"

namespace bubblescope::analysis::hang {

void printHangReport(const HangReport& report, std::ostream& out);
// Streamed as it is written (traces/json), one space a level: nlohmann's dump(1) of the document.
// No newline after it.
void writeHangReportJson(const HangReport& report, std::ostream& out);

}  // namespace bubblescope::analysis::hang

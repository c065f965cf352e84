// bubblescope hang: reads a run and tells where each rank stopped and why the job hung.
#include "cli/cmd_hang.h"

#include <fstream>
#include <iostream>

#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/hang_output.h"
#include "cli/exit_codes.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"

namespace bubblescope::cli {

int runHang(const HangOptions& o) {
  if (o.format != "text" && o.format != "json") {
    throw UsageError("--format '" + o.format + "': expected text or json");
  }
  const traces::Run run = loadRun(o.runs);
  const analysis::hang::HangReport report = analysis::hang::analyzeHang(run);
  std::ofstream file;
  if (!o.output.empty()) {
    file.open(o.output, std::ios::binary);
    if (!file) throw UsageError(o.output + ": cannot be written");
  }
  std::ostream& out = o.output.empty() ? std::cout : file;
  if (o.format == "json") {
    out << analysis::hang::hangReportJson(report).dump(1) << "\n";
  } else {
    analysis::hang::printHangReport(report, out);
  }
  out.flush();
  if (!out) throw UsageError(o.output + ": cannot be written (disk full?)");
  return report.found() ? kCheckFailed : kOk;
}

}  // namespace bubblescope::cli

// libFuzzer target: any bytes as a JSON report given to `bubblescope check` (`analyze --format
// json`), read as check reads a report's text (figuresFromText), then compared with itself and
// with a copy a quarter worse, each verdict written as check prints it and as its JUnit file. Bad
// input must end in one CheckInputError naming the report.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "analyzer/check/check_output.h"
#include "analyzer/check/compare.h"
#include "analyzer/check/report_figures.h"

namespace {

using bubblescope::TimeNs;
using namespace bubblescope::analysis;

// A quarter more, where that still fits.
TimeNs grown(TimeNs v) {
  return v < INT64_MAX / 2 ? v + v / 4 : v;
}

// The same report a quarter worse: every figure moves, so every line of a verdict is written.
ReportFigures quarterWorse(ReportFigures r) {
  r.source = "slower.json";
  for (PipelineFigures& pl : r.pipelines) {
    pl.span = grown(pl.span);
    pl.idle = grown(pl.idle);
    for (TimeNs& c : pl.idleByClass) c = grown(c);
    pl.slowdown *= 1.25;
    pl.stepTime = grown(pl.stepTime);
    for (double& s : pl.stageSlowdown) s *= 1.25;
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ReportFigures report = figuresFromText(text, "fuzz.json");
    const ReportFigures slower = quarterWorse(report);
    const CheckNames names{"fuzz.json", "slower.json", "", ""};
    for (const ReportFigures* current : {&report, &slower}) {
      const CheckResult result = compareReports(report, *current, CheckThresholds{});
      if (result.pipelines.empty()) __builtin_trap();  // compared, or refused
      std::ostringstream out;
      printCheck(result, names, out, true);
      writeCheckJunit(result, names, out);
      if (checkVerdict(result).empty()) __builtin_trap();
    }
  } catch (const CheckInputError& e) {
    // One sentence naming the report: the file read, or the one compared with it.
    const std::string_view what = e.what();
    if (!what.starts_with("fuzz.json: ") && !what.starts_with("slower.json: ")) __builtin_trap();
  }
  return 0;
}

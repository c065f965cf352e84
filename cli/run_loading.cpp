#include "cli/run_loading.h"

#include <unistd.h>

#include <chrono>
#include <iostream>

#include "cli/input_kind.h"
#include "traces/errors.h"
#include "traces/import/run_import.h"

namespace bubblescope::cli {
namespace {

// What to give instead of one of bubblescope's own outputs, after what it is.
std::string insteadOf(FileKind kind, const std::string& path) {
  switch (kind) {
    case FileKind::AnalysisReport:
      return ", not a trace; use the run it was written from ('bubblescope check' compares "
             "reports)";
    case FileKind::HangAnswers:
      return ", not a trace; 'bubblescope hang " + path + "' reads them";
    case FileKind::HangReport:
      return ", not a trace; use the run it was written for";
    case FileKind::PerfettoExport:
      return ", not a trace of a run; use the run it was exported from, or open it at "
             "https://ui.perfetto.dev";
    case FileKind::CheckVerdict:
      return ", not a trace";
    default:  // a report of `analyze` in another format
      return ", not a trace; use the run it was written from";
  }
}

}  // namespace

void refuseOwnOutputs(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    const FileKind kind = fileKindOf(path);
    if (const char* what = ownOutputPhrase(kind)) {
      throw traces::TraceError(path, what + insteadOf(kind, path));
    }
  }
}

traces::Run loadRun(const std::vector<std::string>& paths) {
  refuseOwnOutputs(paths);
  const bool tty = isatty(2);
  const auto begin = std::chrono::steady_clock::now();
  bool shown = false;
  traces::import::LoadOptions options;
  // Only loads that take a while say so, and only on a terminal (not in CI logs).
  options.progress = [&](size_t done, size_t total) {
    if (!tty || std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(500)) return;
    std::cerr << "\rbubblescope: loading traces " << done << "/" << total << std::flush;
    shown = true;
  };
  // Our run directories and files are read; Kineto JSON and nsys exports, told by their content,
  // are imported in memory.
  traces::Run run = traces::import::loadAnyRun({paths.begin(), paths.end()}, options);
  if (shown) std::cerr << "\r\033[K" << std::flush;
  return run;
}

}  // namespace bubblescope::cli

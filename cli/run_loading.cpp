#include "cli/run_loading.h"

#include <unistd.h>

#include <chrono>
#include <iostream>

#include "traces/import/run_import.h"

namespace bubblescope::cli {

traces::Run loadRun(const std::vector<std::string>& paths) {
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

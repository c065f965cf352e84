// bubblescope demo: the whole product on the bundled reference engine. A 4-stage 1F1B pipeline
// runs as real processes under the capture agent, with a slow stage and a stall injected; the
// analysis then finds both and says what they cost and what a schedule change would buy.
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "analyzer/report/report.h"
#include "cli/cmd_demo.h"
#include "cli/exit_codes.h"
#include "cli/self_exe.h"
#include "reference_engine/sim/timeline_text.h"
#include "traces/files/output_file.h"
#include "traces/sqlite/run_reader.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;

// A fresh directory: the given one if it does not exist or is empty, else one with a suffix.
fs::path freshDirectory(const fs::path& wanted) {
  std::error_code ec;
  if (!fs::exists(wanted) || fs::is_empty(wanted, ec)) return wanted;
  for (int i = 2;; ++i) {
    fs::path candidate = wanted.string() + "-" + std::to_string(i);
    if (!fs::exists(candidate)) return candidate;
  }
}

// Times from the step's start, like the simulated one.
std::vector<std::vector<engine::TimedOp>> measuredStep(const analysis::PipelineResult& pl,
                                                       int step) {
  std::vector<std::vector<engine::TimedOp>> stages(pl.stages.size());
  const TimeNs start = pl.steps[step].start;
  for (const auto& o : pl.ops) {
    if (o.step == step) stages[o.stage].push_back({o.op, o.start - start, o.end - start});
  }
  return stages;
}

std::vector<std::vector<engine::TimedOp>> idealStep(const analysis::PipelineResult& pl) {
  std::vector<std::vector<engine::TimedOp>> stages(pl.stages.size());
  for (const auto& o : pl.idealOps) stages[o.stage].push_back({o.op, o.start, o.end});
  return stages;
}

// The step to draw: the one holding the largest avoidable gap, else the first.
int stepToDraw(const analysis::PipelineResult& pl) {
  return pl.topGaps.empty() ? 0 : pl.gaps[pl.topGaps.front()].step;
}

}  // namespace

int runDemo(const DemoOptions& o) {
  const fs::path dir = fs::absolute(freshDirectory(o.output));
  const std::string self = selfExecutable();
  std::vector<std::string> engine = {self,
                                     "engine",
                                     "run",
                                     "--schedule",
                                     o.schedule,
                                     "-p",
                                     std::to_string(o.p),
                                     "-m",
                                     std::to_string(o.m),
                                     "--steps",
                                     std::to_string(o.steps),
                                     "--truth",
                                     (dir / "truth.json").string()};
  std::cout << "bubblescope demo: a " << o.p << "-stage " << o.schedule << " pipeline, " << o.m
            << " microbatches, " << o.steps << " steps, one process per stage, recorded by the "
            << "capture agent";
  if (o.faults) {
    // Stage 2 runs 1.3x slower (an unbalanced split) and stage 1 stalls 15 ms before microbatch
    // 5 of step 2 (a host hiccup): the analysis must find and blame both. A smaller pipeline
    // gets them on stages and microbatches it has (-p 2: the last stage is the slow one).
    const std::string slow = std::to_string(std::min(2, o.p - 1));
    const std::string mb = std::to_string(std::min(5, o.m - 1));
    for (const std::string& f : {std::string("--slow-stage"), slow + ":1.3", std::string("--stall"),
                                 "1:" + mb + ":15:2"}) {
      engine.push_back(f);
    }
    std::cout << ", with stage " << slow << " made 1.3x slower and a 15 ms stall on stage 1 before "
              << "microbatch " << mb << " of step 2";
  }
  std::cout << ".\n\n" << std::flush;
  std::vector<std::string> record = {self, "record", "-o", dir.string(), "--"};
  record.insert(record.end(), engine.begin(), engine.end());
  if (const int rc = runChild(record); rc != 0) {
    std::cerr << "bubblescope: demo: the recorded engine run failed (exit code " << rc << ")\n";
    return kInternalError;
  }

  const traces::Run run = traces::readRun(dir);
  analysis::AnalyzeOptions options;
  options.leaveOutWarmupStep = true;  // as analyze does: step 0 warms up
  const analysis::AnalysisResult result = analysis::analyzeRun(run, options);
  const auto& pl = result.pipelines.front();

  const int step = stepToDraw(pl);
  engine::TimelineStyle style;
  style.width = 110;
  std::cout << "\nMeasured timeline of step " << pl.steps[step].number
            << " (F forward, BW backward, '.' idle):\n"
            << engine::renderTimeline(measuredStep(pl, step), style);
  std::cout << "\nThe same order with ideal costs (balanced stages, no stalls):\n"
            << engine::renderTimeline(idealStep(pl), style) << "\n";
  analysis::writeReport(result, analysis::reportFormat("text"), std::cout,
                        {.color = isatty(1) != 0});

  std::cout << "\nFiles:\n  traces   " << dir.string() << " (" << run.ranks.size()
            << " rank files, truth.json)\n";
  for (const char* name : {"report.json", "report.html", "report.md"}) {
    try {
      traces::writeOutputFile(dir / name, [&](std::ostream& out) {
        analysis::writeReport(result, *analysis::reportFormatForFile(name), out);
      });
      std::cout << "  report   " << (dir / name).string() << "\n";
    } catch (const std::invalid_argument&) {
      // A writer that refuses this result: nothing was written.
    }
  }
  std::cout << "\nNext: bubblescope analyze " << dir.string() << " --format html -o "
            << "report.html\n";
  return kOk;
}

}  // namespace bubblescope::cli

#pragma once
// What `bubblescope check` compares, read back from a JSON report (`analyze --format json`):
// per pipeline, the bubble share, the idle classes, S, the step time and each stage's S_s.
// Reading is strict: anything that is not a bubblescope report, or one from a newer schema, is
// refused with one sentence naming the file.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// A report `check` cannot use (exit code 2). The message names the file.
class CheckInputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct PipelineFigures {
  int dpRank = 0;
  int p = 0;  // stages: the pipeline's shape
  std::string schedule;
  int m = 0;
  TimeNs span = 0;  // all stages, all steps
  TimeNs idle = 0;
  IdleByClass idleByClass{};
  double slowdown = 1;  // S
  TimeNs stepTime = 0;  // measured, mean per step
  TimeNs idealStepTime = 0;
  std::vector<double> stageSlowdown;  // S_s by stage
  // A job with no pipeline (the report's "utilization"): p counts its ranks, idle is all of its
  // idle, the step time its mean step; no S.
  bool utilization = false;

  double bubbleShare() const;
  double classShare(int c) const;
};

struct ReportFigures {
  std::string source;  // the file or run directory, for messages
  int schemaVersion = 0;
  std::vector<PipelineFigures> pipelines;
};

// From a parsed JSON document. Throws CheckInputError naming `source`.
ReportFigures figuresFromJson(const nlohmann::json& doc, const std::string& source);
// From a report's text: not JSON, not a bubblescope report or a newer schema each throw
// CheckInputError with one sentence naming `source` (a number beyond a double's range is named by
// its key).
ReportFigures figuresFromText(std::string_view text, const std::string& source);

}  // namespace bubblescope::analysis

#pragma once
// What a path given to `bubblescope check` (as the run or as the baseline) is, told by content: a
// JSON report to read, or a run or trace to analyse first; anything else is refused in one
// sentence that names the file and says what it is instead.
#include <string>

#include "traces/import/input_formats.h"
#include "traces/model/trace.h"

namespace bubblescope::cli {

struct CheckInput {
  enum class Kind { Report, Trace };
  Kind kind = Kind::Report;
  std::string reportText;  // a report's text, decompressed
  bool directory = false;  // a trace: a run directory
  traces::import::InputFormat format = traces::import::InputFormat::Unknown;  // a trace file's
};

// Throws analysis::CheckInputError or traces::TraceError naming the path when it is neither a
// report nor a trace: saved hang answers, a hang report, a Perfetto trace bubblescope exported,
// a report in another format, other JSON, a file that is neither JSON nor SQLite.
CheckInput recogniseCheckInput(const std::string& path);

// What an input analysed for `check` was, once loaded: "run directory", "Kineto JSON",
// "NDTimeline timeline", "Nsight Systems export", ...
std::string analysedInputName(const CheckInput& input, const traces::Run& run);

}  // namespace bubblescope::cli

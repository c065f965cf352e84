#pragma once
// The --steps option: "N", "A:B", "A:" or ":B" (step numbers, inclusive), or "all".
#include <string>

#include "analyzer/analyze.h"

namespace bubblescope::cli {

// Sets options.firstStep/lastStep; "" and "all" leave every step. Throws UsageError for anything
// else.
void parseStepRange(const std::string& spec, analysis::AnalyzeOptions& options);

}  // namespace bubblescope::cli

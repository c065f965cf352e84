#pragma once
// Which steps the figures hold, in the words every report uses: the capture's first step is left
// out as warm-up by default (analysis.md, "Steps"), and a user must see that it was.
#include <string>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// "step 0 left out: a capture's first step warms up (allocator, NCCL set-up); --steps all keeps
// it"; "" when every step in range was analysed.
std::string warmupLeftOut(const AnalysisResult& r);

}  // namespace bubblescope::analysis

#include "analyzer/report/steps_source.h"

namespace bubblescope::analysis {

std::string warmupLeftOut(const AnalysisResult& r) {
  if (!r.warmupStepLeftOut) return {};
  return "step " + std::to_string(*r.warmupStepLeftOut) +
         " left out: a capture's first step warms up (allocator, NCCL set-up); --steps all "
         "keeps it";
}

}  // namespace bubblescope::analysis

#include "analyzer/report/ops_source.h"

namespace bubblescope::analysis {

std::string opsSource(const AnalysisResult& r) {
  if (r.inference.fromP2p) {
    return "inferred from p2p traffic (no labels; confidence " + r.inference.confidence + ": " +
           r.inference.evidence + ")";
  }
  return "recognised by the " + r.ruleSet + " rule set" +
         (r.opsInferred ? " (microbatches numbered by order)" : "");
}

}  // namespace bubblescope::analysis

#include "analyzer/result/model_check.h"

#include <cstdio>

namespace bubblescope::analysis {

std::string modelCheckSentence(const ModelCheck& c) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "the observed order re-run with the measured op costs takes %.1f ms a step "
                "against %.1f ms measured (%+.1f%%)",
                static_cast<double>(c.replayed) / 1e6, static_cast<double>(c.measured) / 1e6,
                c.excess() * 100.0);
  return buf;
}

}  // namespace bubblescope::analysis

#include "analyzer/hang/hang_analysis.h"

#include "analyzer/hang/diagnose.h"
#include "analyzer/hang/nccl_waits.h"
#include "analyzer/hang/stop_points.h"

namespace bubblescope::analysis::hang {

HangReport analyzeHang(const traces::Run& run) {
  return diagnose(stopPoints(run), ncclFindings(run));
}

}  // namespace bubblescope::analysis::hang

#pragma once
// `bubblescope hang` on a recorded run: where each rank stopped (stop_points.h), what its NCCL
// calls say (nccl_waits.h), and the diagnosis (diagnose.h). Pure over the loaded run.
#include "analyzer/hang/hang.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis::hang {

HangReport analyzeHang(const traces::Run& run);

}  // namespace bubblescope::analysis::hang

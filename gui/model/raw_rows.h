#pragma once
// Detail rows from one rank's raw trace: a row per GPU stream (kernels, memcpys, memsets), and per
// host thread a row of NCCL calls, one of CUDA API calls and one of NVTX ranges (a lane per
// nesting depth). Rows without events are left out.
#include <vector>

#include "gui/model/timeline_model.h"

namespace bubblescope::gui {

// `offset` is added to every time (the rank's clock correction).
std::vector<Row> rawRows(const traces::RankTrace& trace, int rankIndex, TimeNs offset);

}  // namespace bubblescope::gui

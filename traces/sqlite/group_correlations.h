#pragma once
// A fused NCCL kernel serves every call of its group (ncclGroupStart ... ncclGroupEnd), but the
// agent ties it only to the ncclGroupEnd that launched it: its external id is the group's block
// (traces/format/nccl_ids.h). The analysis reads a fused kernel's calls from one correlations row
// per call, as the importers write them; this adds those rows when an agent's file is read.
#include "traces/model/trace.h"

namespace bubblescope::traces {

// For every correlations row naming a group's GroupEnd, one row more per communication call of
// that group (same CUDA correlation, in id order). Files not written by the agent are left as
// they are: their ids follow no such layout.
void tieGroupKernelsToCalls(RankTrace& trace);

}  // namespace bubblescope::traces

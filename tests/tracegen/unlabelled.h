#pragma once
// The same job as nobody labelled it, which is how most jobs arrive: no `PP:` record_functions
// (or NVTX op ranges) around the ops, everything else as the stack writes it (ProfilerStep#N,
// the optimizer's range, the aten ops, NCCL's calls and kernels). Truth stays the labelled job's.
#include "tests/tracegen/execution.h"

namespace bubblescope::tracegen {

JobTimeline withoutOpLabels(JobTimeline job);

// Nor any step or optimizer range: a capture with no NVTX at all (nsys --trace=cuda), or a
// training loop the profiler's schedule did not wrap.
JobTimeline withoutAnyMarkers(JobTimeline job);

}  // namespace bubblescope::tracegen

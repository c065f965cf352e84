#pragma once
// Free device memory during a pipeline's gaps: each stage's representative rank's memory series
// (device_memory.h), in the pipeline's aligned clock, read over the idle part of each gap. A
// gap's interval runs from one op to the next and may hold other device work (the optimizer at a
// step's end): the memory a fill job could use is what is free while the stage computes nothing,
// so the windows are the parts of the gap that no compute kernel covers (NCCL kernels, which
// wait or move data, do not count as compute).
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/result.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// Sets each stage's memory basis and device capacity and each gap's least free bytes.
void attachFreeMemory(const traces::Run& run, const PipelineTrace& trace, PipelineResult& result);

}  // namespace bubblescope::analysis

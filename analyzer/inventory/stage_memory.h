#pragma once
// Free device memory during a pipeline's gaps: each stage's representative rank's memory series
// (device_memory.h), in the pipeline's aligned clock, read over each of its gaps.
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// Sets each stage's memory basis and device capacity and each gap's least free bytes.
void attachFreeMemory(const traces::Run& run, const PipelineTrace& trace, PipelineResult& result);

}  // namespace bubblescope::analysis

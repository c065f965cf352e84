#pragma once
// What one microbatch's activations take on each stage, read off the trace's live-tensor samples
// (Kineto's Total Allocated), so the what-if table can give its memory column in bytes. Per step
// and stage: the most bytes the stage held while running its ops, above the least it held in the
// step, over the microbatches' activations the measured order holds at its peak there (the
// what-if's measured row); the median over the steps. The allocator's reserve, all that CUDA-level
// recorders see, does not fall as tensors are freed, so it tells nothing of them.
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/result.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// Sets result.activationSize, and each what-if row's activationBytes from it when known.
void attachActivationSize(const traces::Run& run, const PipelineTrace& trace,
                          PipelineResult& result);

}  // namespace bubblescope::analysis

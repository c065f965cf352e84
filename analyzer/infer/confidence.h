#pragma once
// How sure an inferred pipeline is (analysis.md §1b): whether every step holds each microbatch's
// forward and backward on every stage, and whether their order is a known schedule's. Pure.
#include "analyzer/infer/infer_pipeline.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

OpInference judgeInference(const P2pInference& inference,
                           const std::vector<PipelineResult>& pipelines);

}  // namespace bubblescope::analysis

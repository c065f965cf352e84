#pragma once
// Pipelines written op by op, for the analyzer's unit tests: each stage's recognised ops,
// transfers and step markers as the recognizer leaves them, made into a PipelineTrace the way the
// analysis makes one (buildPipeline on a one-replica topology, clocks left as written).
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/recognize/recognized.h"

namespace bubblescope::testing {

using analysis::Op;
using analysis::OpKind;

inline constexpr TimeNs kMs = 1'000'000;

class HandPipeline {
 public:
  explicit HandPipeline(int p) : stages_(p) {}

  // Step `number` spans [start, end] on every stage. Without any, one step 0 spans everything.
  HandPipeline& step(int64_t number, TimeNs start, TimeNs end);
  // On one stage only (steps missing on a stage, or numbered differently).
  HandPipeline& stageStep(int stage, int64_t number, TimeNs start, TimeNs end);
  // An op that ran [start, end], launched at `start` unless `launch` is given.
  HandPipeline& op(int stage, Op op, TimeNs start, TimeNs end, TimeNs launch = -1);
  // Transfers: labelled host ranges, or with `onDevice` their NCCL kernels' times.
  HandPipeline& send(int stage, OpKind pass, int mb, int to, TimeNs start, TimeNs end,
                     int chunk = 0, bool onDevice = false);
  HandPipeline& recv(int stage, OpKind pass, int mb, int from, TimeNs start, TimeNs end,
                     int chunk = 0, bool onDevice = false);
  HandPipeline& optimizer(int stage, TimeNs start, TimeNs end);
  // Unrecognised host work (data loading, Python): stall evidence.
  HandPipeline& host(int stage, TimeNs start, TimeNs end,
                     const std::string& name = "dataloader");

  // Each stage's RankOps: sorted by start, ops and transfers placed in the step holding them.
  std::vector<analysis::RankOps> rankOps() const;
  analysis::PipelineTrace build(analysis::PipelineOptions options = noClockAlignment()) const;

  static analysis::PipelineOptions noClockAlignment() {
    analysis::PipelineOptions o;
    o.alignClocks = false;
    return o;
  }

 private:
  std::vector<analysis::RankOps> stages_;
  std::vector<analysis::StepMarker> steps_;  // on every stage
};

// A one-replica topology: rank s is stage s.
analysis::Topology chainTopology(int p);

}  // namespace bubblescope::testing

#pragma once
// Pipelines nobody labelled (analysis.md §1b): when no rule set recognises an op, the stages are
// read off the NCCL point-to-point traffic (p2p_chain.h) and each stage's ops off where its
// compute falls between its sends and receives (op_segments.h), or, on a stage that ran no device
// work, where its host time does (host_stage.h). The result is the same RankOps
// a rule set would give, so the rest of the analysis runs unchanged.
#include <string>
#include <vector>

#include "analyzer/recognize/recognized.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

struct P2pInference {
  bool found = false;  // at least one chain of 2+ ranks, with ops on every stage
  int pipelines = 0;
  int stretches = 0;      // runs of compute between calls, all stages
  int unclassified = 0;   // runs no transfer explains (left as other device work)
  int splits = 0;         // runs holding a forward and a backward
  int splitsGuessed = 0;  // ... split by another stage's kernel counts, or in half
  int notChains = 0;      // rank sets whose peers form no chain
  int hostStages = 0;     // stages with no device work: ops read off host time (host_stage.h)
  int vPipelines = 0;     // pipelines whose traffic crosses the chain both ways as a V (ZB-V)
  std::string vSchedule;  // the known V schedule their order matched ("" = none)
  std::vector<std::string> notes;
};

// `ops`: every rank's recognition (nothing found). On success they are replaced by the inferred
// ops, each rank's stageFromLabels holding its inferred stage.
P2pInference inferFromP2p(const traces::Run& run, std::vector<RankOps>& ops);

}  // namespace bubblescope::analysis

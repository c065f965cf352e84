#pragma once
// The job's grid (analysis.md §1): which rank is which stage of which pipeline (DP replica);
// ranks of one TP group share a stage. Taken from the traces' metadata (BUBBLESCOPE_PP_RANK...),
// else from stage ids in the labels, else from who sends activations to whom, else rank order.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/recognize/recognized.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

struct Topology {
  int pp = 0, dp = 0, tp = 1;
  std::string source;  // "metadata", "labels", "p2p", "rank order"
  // ranksOf[dp][stage]: indexes into Run::ranks, the first being the stage's representative.
  std::vector<std::vector<std::vector<size_t>>> ranksOf;
  std::vector<int> dpRanks;     // the DP rank of each ranksOf row
  std::vector<size_t> outside;  // ranks with no pipeline ops (launchers, data workers)
  std::vector<std::string> warnings;
};

// Throws AnalysisInputError when no rank has pipeline ops, when the traces come from two runs,
// or when a stage has no trace.
Topology buildTopology(const traces::Run& run, const std::vector<RankOps>& ops);

// An integer the trace's metadata carries under `key` (meta.extra: BUBBLESCOPE_PP_RANK, ...), or
// none when absent or not a whole number.
std::optional<int> extraInt(const traces::RankTrace& t, const char* key);

}  // namespace bubblescope::analysis

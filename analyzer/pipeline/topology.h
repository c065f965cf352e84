#pragma once
// The job's grid (analysis.md §1): which rank is which stage of which pipeline (DP replica);
// ranks of one TP group share a stage. Taken from the traces' metadata (BUBBLESCOPE_PP_RANK...),
// else from stage ids in the labels, else from who sends activations to whom, else rank order.
#include <cstddef>
#include <cstdint>
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

// What the topology reads of a rank's recognised ops: a few bytes a rank, so that one process can
// place the ranks of a job whose ops are recognised and held elsewhere (`analyze` under MPI).
struct RankPlace {
  bool hasOps = false;                 // it ran pipeline ops (else it is outside the pipelines)
  std::optional<int> stageFromLabels;  // RankOps::stageFromLabels
  std::optional<int> stageFromPeers;   // the stage its labelled transfers' peers give it
  TimeNs busyTime = 0;                 // its ops' summed length: a TP group's slowest represents it
};
RankPlace placeOf(const RankOps& ops);

// Throws AnalysisInputError when no rank has pipeline ops, when the traces come from two runs,
// or when a stage has no trace. `places[i]`: run.ranks[i]'s.
Topology buildTopology(const traces::Run& run, const std::vector<RankPlace>& places);
Topology buildTopology(const traces::Run& run, const std::vector<RankOps>& ops);

// An integer the trace's metadata carries under `key` (meta.extra: BUBBLESCOPE_PP_RANK, ...), or
// none when absent. AnalysisInputError naming the file and the key when it is not a whole number
// from `lo` to `hi`: a cast would wrap it, and a rank whose size (one more) is beyond int would
// make a negative size.
std::optional<int> extraInt(const traces::RankTrace& t, const char* key, int lo, int hi);
// The largest DP, PP or TP rank: its size, one more, fits an int.
inline constexpr int kMaxGridRank = INT32_MAX - 1;
// Throws as extraInt does when the trace's BUBBLESCOPE_DP_RANK, _PP_RANK, _TP_RANK or _PP_SIZE is
// out of range (a hang answer's, read before its run is built).
void checkGridMetadata(const traces::RankTrace& t);

// Throws AnalysisInputError when two of `ranks` (indexes into run.ranks) say one DP, PP and TP rank
// in their metadata: they would be folded into one TP group as two TP ranks without a word.
void requireOnePlaceEach(const traces::Run& run, const std::vector<size_t>& ranks);

// A DP, PP or TP rank under `key` (BUBBLESCOPE_DP_RANK, ...): extraInt from 0 to kMaxGridRank.
inline std::optional<int> gridRank(const traces::RankTrace& t, const char* key) {
  return extraInt(t, key, 0, kMaxGridRank);
}

}  // namespace bubblescope::analysis

#pragma once
// Steps of the analysis that one process analysing the whole run (analyze.cpp) and processes
// analysing each replica where its ranks are (owned_analysis.h) both take, so that they
// say the same in the same words.
#include <string>
#include <vector>

#include "analyzer/comm/comm_match.h"
#include "analyzer/infer/infer_pipeline.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/pipeline_analysis.h"
#include "analyzer/recognize/recognized.h"
#include "analyzer/result/result.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// A rank's send or receive that names no peer (an nsys export without NCCL's payloads).
bool hasUnnamedPointToPoint(const traces::RankTrace& t);

// What the run says of itself: its ranks, the command (`bubblescope record` keeps the one the
// user launched; without it, a rank's own) and the events the agent dropped.
AnalysisResult describeRun(const traces::Run& run);

// The job's shape and how its ops were found, with what the reader should know about both. Reads
// of `ops` only the first stage's rule set and whether its microbatches were inferred.
void describeTopology(const Topology& topo, const std::vector<RankOps>& ops,
                      const P2pInference& inferred, AnalysisResult& result);

// NCCL kernels matched across ranks: their ends align the clocks (the offsets applied to `ops`
// are returned; none when alignment is off), and their last starts split each into waiting (idle)
// and transfer. A kernel that cannot be matched is communication whole: say how many, and why
// (comm_warnings.h).
std::vector<TimeNs> alignAndSplitComms(const CommMatches& comms, std::vector<RankOps>& ops,
                                       bool alignClocks, std::vector<std::string>& warnings);

// A built pipeline's stages' clock corrections, as `result.clock` records them, and the
// sentences for the large ones (in stage order).
struct StageOffset {
  uint32_t rank = 0;  // the stage's representative: index into the run
  TimeNs offset = 0;
};
std::vector<StageOffset> stageOffsetsOf(const PipelineTrace& pl);
// Into `result.clock` (offsets sized to the run).
void recordOffsets(const std::vector<StageOffset>& offsets, AnalysisResult& result);
// The sentences ("clock skew corrected: ..."), from the stages' traces (their recorded ranks).
std::vector<std::string> stageOffsetWarnings(const traces::Run& run, const PipelineTrace& pl);

// One replica's pipeline analysed (with its drain gaps holding `waits`), its free memory and
// activation sizes attached, summarised unless `whole`. `opsReadAfter`: every op record is read
// once the pipelines are analysed (the inference check). What it says goes to `said`.
PipelineResult analyzeReplica(const traces::Run& run, const PipelineTrace& pl, const DpWaits& waits,
                              KeptGaps kept, bool opsReadAfter, bool whole, unsigned threads,
                              std::vector<std::string>& said);

}  // namespace bubblescope::analysis

#pragma once
// Sends and receives that name no peer (nsys's default export drops NCCL's payloads), given
// their peers where the labels give the pipeline: a send carries the output of the op its stage
// ran before posting it, a receive the input of the op after it; a forward's output goes to the
// next (virtual) stage, a backward's to the previous, and inputs come the other way. matchCalls
// then pairs each link's sends with its receives in posting order, as NCCL itself does; how far
// to trust that is judged from the pairs' kernels. Pure.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/comm/comm_match.h"
#include "analyzer/recognize/recognized.h"
#include "reference_engine/schedule/schedule.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// Where the labelled pipelines' ranks are: ranksOf[replica][stage] (run indexes; the TP ranks of
// a stage in order, each paired with the same place of its neighbours), and each replica's chunk
// layout (p, v, looped or V).
struct PipelinePlaces {
  std::vector<std::vector<std::vector<size_t>>> ranksOf;
  std::vector<engine::Schedule> layouts;
};

// peerOf[rank][call]: the global rank a peer-less send goes to or receive comes from (-1: none;
// calls that name their peer are left alone).
struct PostingOrderPeers {
  std::vector<std::vector<int32_t>> peerOf;
  size_t withoutPeer = 0;  // sends and receives of the run that name no peer
  size_t given = 0;        // of those, the ones given a peer here

  int32_t peer(uint32_t rank, int32_t call) const {
    return rank < peerOf.size() && call >= 0 && static_cast<size_t>(call) < peerOf[rank].size()
               ? peerOf[rank][call]
               : -1;
  }
};

PostingOrderPeers peersByPostingOrder(const traces::Run& run, const std::vector<RankOps>& ops,
                                      const PipelinePlaces& places);

// How far the pairing by posting order holds: its pairs (P2pMatch::byPostingOrder) whose kernels
// ran at the same time once each rank's clock is shifted by `offsets` (clockOffsetsFromComms;
// empty: none), and the confidence that gives: high when every peer-less call was paired and 95%
// of the pairs ran together, medium at 80% of both, low below.
struct PostingOrderJudgement {
  size_t calls = 0, withoutPeer = 0;  // calls paired this way, of the peer-less ones
  size_t pairs = 0, together = 0;     // kernel pairs, and those that ran at the same time
  std::string confidence;             // "high", "medium", "low"; "" when nothing was paired
};

PostingOrderJudgement judgePostingOrder(const CommMatches& matches, const std::vector<RankOps>& ops,
                                        const std::vector<TimeNs>& offsets);

}  // namespace bubblescope::analysis

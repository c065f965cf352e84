#pragma once
// One pipeline (a DP replica) ready for analysis: each stage's recognised ops, clock-aligned,
// with sends matched to receives and steps numbered alike on every stage.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/pipeline/topology.h"
#include "analyzer/recognize/recognized.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {

struct StageTrace {
  int stage = 0;
  std::vector<size_t> ranks;  // indexes into the Run; the first is the representative
  RankOps ops;                // the representative's, times shifted by its clock offset
  TimeNs clockOffset = 0;
};

// A send matched to its receive: stage and index into that stage's comms. Not held: made from
// the comms' places (PipelineTrace::transfer).
struct Transfer {
  int fromStage = 0, toStage = 0;
  uint32_t send = 0, recv = 0;
};

// Where a comm is: its stage and its index into that stage's comms.
struct CommAt {
  int stage = -1;
  uint32_t comm = 0;
};

struct PipelineTrace {
  int dpRank = 0;
  int p = 0;
  int v = 1;             // model chunks per stage
  bool vLayout = false;  // chunks laid out in a V (ZB-V) rather than looped
  std::vector<StageTrace> stages;
  // The matched transfers, in the order matching found them (step, pass, microbatch, sender,
  // receiver), each as its send's place among the pipeline's comms (commAt); its receive is the
  // send's RecognizedComm::peerPlace. 4 bytes a transfer, where its stages and comms held beside
  // the comms were 16 (10 MB of 10,000 stages, issue 28). Set by linkTransfers.
  std::vector<uint32_t> transferSends;
  // commBase[s]: the place of stage s's first comm among the pipeline's (p + 1 of them, the last
  // their count). The places hold while the stages' comms are neither added to nor reordered.
  std::vector<uint32_t> commBase;
  std::vector<int64_t> stepNumbers;  // steps present on every stage, in order
  // stepIndex[s][k]: index into stages[s].ops.steps of stepNumbers[k].
  std::vector<std::vector<int>> stepIndex;
  std::vector<std::string> warnings;

  size_t transferCount() const { return transferSends.size(); }
  Transfer transfer(size_t i) const;
  // The comm at `place`; `near`, a stage it is likely on or next to (-1: none), is tried first.
  CommAt commAt(uint32_t place, int near = -1) const;
  // The other side of stage `stage`'s comm `comm`, if it was matched.
  std::optional<CommAt> peerOf(int stage, size_t comm) const;
};

// Makes `transfers` the pipeline's: numbers its comms (commBase), points each matched comm at its
// other side and each unmatched one nowhere, and keeps the sends in the order given. Refuses a
// pipeline of more comms than a place can count (AnalysisInputError).
void linkTransfers(PipelineTrace& pl, const std::vector<Transfer>& transfers);
// Every transfer, in order: for a test or a caller that adds comms and links again.
std::vector<Transfer> transfersOf(const PipelineTrace& pl);

struct CommMatches;

struct PipelineOptions {
  bool alignClocks = true;  // from labelled transfers (when the clocks were not aligned before)
  int64_t firstStep = INT64_MIN, lastStep = INT64_MAX;  // step numbers to keep
  // NCCL kernels matched across ranks (analyzer/comm): stages whose labels name no transfer
  // take theirs from these.
  const CommMatches* comms = nullptr;
  // Offsets already applied to every rank (index into the run), reported as the stages'.
  std::vector<TimeNs> appliedOffsets;
};

// The pipeline's p, v and chunk layout (no ops): for the virtual-stage arithmetic, and the
// frame of the schedule a step observed.
engine::Schedule layoutOf(const PipelineTrace& pl);

// The same before the pipeline is built, from a replica's stages as the topology places them (v
// from the ops' chunks, a V as buildPipeline detects it): what the sends and receives that name
// no peer follow (comm/posting_order.h).
engine::Schedule chunkLayoutOf(const Topology& topo, size_t replica,
                               const std::vector<RankOps>& ops);

// The capture's first step in [first, last]: the smallest step number any rank's ops hold, when
// the range holds another after it (a capture of one step keeps it); none otherwise.
std::optional<int64_t> warmupStep(const std::vector<RankOps>& ops, int64_t first, int64_t last);
// The same from what it reads of each rank: the step numbers its ops ran in (stepsWithOps), a few
// numbers a rank where its ops are held elsewhere (`analyze` under MPI).
std::vector<int64_t> stepsWithOps(const RankOps& ops);
std::optional<int64_t> warmupStep(const std::vector<std::vector<int64_t>>& stepsOfRanks,
                                  int64_t first, int64_t last);

// Moves the stages' representatives' ops out of `ops` (each rank belongs to one pipeline).
PipelineTrace buildPipeline(const Topology& topo, size_t replica, std::vector<RankOps>& ops,
                            const PipelineOptions& options);

}  // namespace bubblescope::analysis

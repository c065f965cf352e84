#pragma once
// What `analyze` finds in a job that is not a pipeline (DDP, FSDP, TP-only; analysis.md §7): per
// rank and step, where the device time went (compute, exposed communication, waiting inside
// communication, other device work, idle), what the host was doing while the device idled, the
// largest idle gaps and the slowest rank and step.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/result/inventory_result.h"
#include "analyzer/result/traced_members.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

// The parts add up to the span exactly (integer ns).
struct UtilizationSplit {
  TimeNs span = 0;
  TimeNs compute = 0;      // compute kernels
  TimeNs exposedComm = 0;  // NCCL kernels moving data while no compute ran
  TimeNs commWait = 0;     // NCCL kernels waiting for their peers (matched across ranks)
  // Some of commWait is waiting inside collectives with members the run does not trace: the wait
  // for the traced members only (traced_members.h); every report marks the figure.
  TracedMembers waitMembers;
  TimeNs otherBusy = 0;  // copies and sets while nothing above ran
  TimeNs idle = 0;       // no device work at all

  UtilizationSplit& operator+=(const UtilizationSplit& o);
  TimeNs sum() const { return compute + exposedComm + commWait + otherBusy + idle; }
};

struct UtilizationStep {
  int64_t number = 0;
  TimeNs start = 0, end = 0;  // device window: from the previous step's last work to its own
  UtilizationSplit split;
};

// One interval in which a rank's device ran nothing, and what its host was doing meanwhile.
struct IdleGap {
  int rank = 0;
  int64_t step = 0;
  TimeNs start = 0, end = 0;
  std::string cause;   // "data loading", "synchronize", "optimizer (host)", "host work", "nothing"
  std::string detail;  // the range or call that shows it ("enumerate(DataLoader)#...")
  int64_t freeMemory = traces::kBytesUnknown;  // least device bytes free in it (device_memory.h)
  TimeNs length() const { return end - start; }
};

struct RankUtilization {
  int rank = 0;  // the job's rank (its place in the run when unknown)
  std::string file;
  UtilizationSplit total;
  std::vector<UtilizationStep> steps;
  IdleInventory inventory;  // its idle gaps, as the bubble inventory of a pipeline stage
};

// The copies and sets of one direction over the ranks: how long they ran while no compute or NCCL
// transfer did (the split's otherBusy, by direction; directions that ran at once on separate copy
// engines count in each) and the bytes they moved (or set).
struct CopyTraffic {
  std::string direction;  // copyDirection(): "HtoD", "DtoH", "DtoD", "PtoP", "memset", ...
  TimeNs alone = 0;
  uint64_t bytes = 0;
  int64_t count = 0;
};

struct IdleCause {
  std::string cause;
  TimeNs idle = 0;
  int gaps = 0;
};

struct UtilizationResult {
  std::vector<RankUtilization> ranks;
  UtilizationSplit total;
  std::vector<IdleGap> largestGaps;    // largest first, at most 10, none under kLeastListedGap
  std::vector<IdleCause> idleByCause;  // largest first; adds up to total.idle
  bool stepsFromMarkers = false;       // ProfilerStep#N / step N, else the capture is one step
  // The slowest (rank, step) by its device window, against the median of all of them.
  int slowestRank = 0;
  int64_t slowestStep = 0;
  TimeNs slowestStepTime = 0, medianStepTime = 0;
  TimeNs meanStepTime = 0;
  std::string commKinds;            // what the NCCL calls were ("all-reduce, send/recv"), "" = none
  std::vector<CopyTraffic> copies;  // per direction, the longest alone first
  CollectiveCoverage collectives;   // how many of the collectives' members the run traced
  // The sentences the report opens with (utilization/headline.h): copies that dominate the
  // device time, a wait measured among a minority of the members. Empty: nothing to say first.
  std::vector<std::string> headline;
};

}  // namespace bubblescope::analysis

#pragma once
// A rank's ops and comms in start order, with what is kept beside them (RankOps::opKernels,
// RankOps::opHosts, RankOps::commLaunches): lists one per record, or empty, that whoever reorders
// the records reorders too.
#include <vector>

#include "analyzer/recognize/recognized.h"

namespace bubblescope::analysis {

// Puts ops.ops in start order (stable), their kernels and host ranges (RankOps::opKernels,
// RankOps::opHosts) with them. Throws std::logic_error if either is neither empty nor one per op.
void sortOpsByStart(RankOps& ops);

// Makes each op's host range its own entry of opHosts (its span, where the list was empty),
// before an op's start or end moves away from its range's (its kernels' span), or ops whose
// host ranges are not their spans join it.
void holdOpHosts(RankOps& ops);

// Puts ops.comms in start order (stable), their launches (RankOps::commLaunches) with them. Throws
// std::logic_error if commLaunches is neither empty nor one per comm.
void sortCommsByStart(RankOps& ops);

// Makes each comm's launch its own entry of commLaunches (its start, where the list was empty),
// before a comm's start moves away from when it was posted (its kernels' span) or comms posted
// otherwise join it.
void holdCommLaunches(RankOps& ops);

// Comms made from NCCL kernels, each with its kernel's launch: what addComms takes.
struct PostedComms {
  std::vector<RecognizedComm> comms;
  std::vector<TimeNs> launches;  // one per comm
  void add(const RecognizedComm& c, TimeNs launch) {
    comms.push_back(c);
    launches.push_back(launch);
  }
};

// Appends `added` to ops.comms (its launches to ops.commLaunches) and puts them in start order.
void addComms(RankOps& ops, PostedComms added);

}  // namespace bubblescope::analysis

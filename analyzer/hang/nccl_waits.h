#pragma once
// What the NCCL calls of a run say about a hang, matched across ranks with comm_match's
// matchCalls(): a send or receive whose other side never came (its rank waits on the peer), a
// collective some member never entered (the members that did wait on it), and matched calls whose
// two sides disagree (counts, element types, ops): a sequence mismatch. Host-side: NCCL calls
// return at once, so a call with no partner is where its rank's stream waits. With CUDA, a call
// whose kernel never finished (device_waits.h) is where its stream stopped, partner or not: it
// comes first among its rank's waits. Pure.
#include <string>
#include <vector>

#include "analyzer/hang/hang.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis::hang {

// A collective some members entered and others never did.
struct MissingMember {
  std::string what;                   // "all-reduce #42 of comm 0x1f2e3d4c5b6a7988"
  std::vector<int> missing, waiting;  // indexes into the run
  TimeNs since = 0;                   // when the first waiting member posted it
};

struct NcclFindings {
  // Per rank: its calls stuck on the device (the first per stream), then its first call without a
  // partner.
  std::vector<std::vector<Wait>> waits;
  std::vector<MissingMember> missing;           // in order of `since`
  std::vector<std::string> mismatches;          // one sentence each, in posting order
  std::vector<std::vector<int>> mismatchRanks;  // the ranks each mismatch involves
};

NcclFindings ncclFindings(const traces::Run& run);

}  // namespace bubblescope::analysis::hang

#pragma once
// NCCL calls from a Kineto trace: each record_param_comms CPU op (c10d's collective metadata) and
// each ProcessGroupNCCL "nccl:*" range becomes one NcclCalls row, and the NCCL kernels it launched
// are tied to it through the correlations table. A kernel no call launched stands for one of its
// own, from the collective args Kineto copied onto it (untied_kernels.h).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/import/collectives.h"
#include "traces/model/trace.h"

namespace bubblescope::traces::import {

// A process group as c10d names it on a call: its name and its members' global ranks. Interned
// by the builder (ProcessGroups): a trace has a few groups and a call per op, and a copy of the
// name and the rank list per call was a fifth of a Kineto import's peak.
struct ProcessGroup {
  std::string name;
  std::vector<int> ranks;
  uint64_t comm = 0;  // the communicator id its calls get: stableHash("pg:" + name); 0 unnamed
};

// The distinct process groups of one trace; what intern returns lives as long as this.
class ProcessGroups {
 public:
  // The group named `name` with the ranks written as `ranksText` ("[0, 1]"); null for neither.
  const ProcessGroup* intern(std::string_view name, std::string_view ranksText);

 private:
  std::unordered_map<std::string, std::unique_ptr<ProcessGroup>> byText_;
  std::string key_;  // the lookup's key, built in place: one allocation per group, not per call
};

struct CommRecord {  // one record_param_comms
  TimeNs start = 0, end = 0;
  ThreadIndex thread = 0;
  uint64_t externalId = 0;
  bool named = false;      // it had a "Collective name" (newer PyTorch)
  bool coalesced = false;  // "coalesced": the end of a group whose one kernel serves its calls
  std::optional<NcclOp> op;
  int32_t peer = -1;
  uint64_t inNelems = 0, outNelems = 0;
  std::optional<DataType> dtype;
  const ProcessGroup* group = nullptr;  // none named
  int32_t groupSize = -1;
  uint64_t seq = 0;
};

struct CommTitle {  // one "nccl:all_reduce", "nccl:send 0->1", ... range
  TimeNs start = 0, end = 0;
  ThreadIndex thread = 0;
  uint64_t externalId = 0;
  NcclTitle title;
};

struct NcclKernelRef {  // an NCCL kernel: what launched it, and what it says of its call
  uint64_t externalId = 0;
  uint32_t correlation = 0;
  TimeNs start = 0;                // on the device; 0 for a launch whose kernel never finished
  StreamIndex stream = kNoStream;  // kNoStream likewise
  bool pointToPointName = false;   // its name says send/receive ("ncclDevKernel_SendRecv")
  // The collective's args newer Kineto copies onto the kernel ("Collective name", "Process Group
  // Ranks", sizes, dtype); nullopt when it carries none. Times, thread and external id unset.
  std::optional<CommRecord> args;
};

// What a record says of its call: op (Unknown if none), peer and own rank within the group (from
// its ranks, with the trace's global `rank`), element count, bytes, dtype, communicator, sequence.
NcclCallFields callFieldsOf(const CommRecord& r, int rank);

// The integers in a list written as text ("[0, 1]", "0,1") or as a JSON array.
std::vector<int> parseRankList(std::string_view text);

// The kernel launches inside a record_param_comms (their call's, or their group's) that have no
// kernel record: CUPTI records a kernel once it finished, so these had not when the profiler
// collected (a hung job). Each is returned as a kernel of that record's external id, for
// buildNcclCalls to tie to its call like a recorded one. Few: one per call at most.
std::vector<NcclKernelRef> unrecordedCommLaunches(const RankTrace& trace,
                                                  const std::vector<CommRecord>& records);

// Fills trace.ncclCalls and trace.correlations (times still relative, as the records are).
void buildNcclCalls(RankTrace& trace, std::vector<CommRecord> records,
                    std::vector<CommTitle> titles, const std::vector<NcclKernelRef>& kernels);

}  // namespace bubblescope::traces::import

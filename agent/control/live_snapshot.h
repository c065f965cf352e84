#pragma once
// What one process answers to `hang` on its control socket: where each of its threads is now
// (its open push/pop ranges) and its last NCCL calls with the call counts that pair them across
// ranks (agent/nccl/recent_calls.h). Pure: the struct and its encoding in a reply's fields,
// shared by the agent (which fills it) and `bubblescope hang --all` (which reads it).
//
// Fields, besides status's identity fields: alive_ns (CLOCK_REALTIME when it answered),
// env.NAME (BUBBLESCOPE_PP_RANK and the like, as the trace's meta keeps them),
// o<i> = "tid,depth,start_ns,name" (name last: it may hold commas), od<i> = its domain if any,
// c<i> = "op,peer,count,bytes,dtype,comm,comm_rank,comm_size,seq,start_ns,end_ns,tid" (comm in hex,
// end_ns 0 while the call has not returned), n<i> = "kind,comm,peer,calls,comm_rank" (kind
// collective, send or recv; comm_rank: this process's rank in it), nccl = "ok" or "busy" (its
// history could not be read in time), and the counts open_ranges, nccl_calls, call_counts.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/control/protocol.h"
#include "traces/model/nccl_call.h"

namespace bubblescope::control {

struct LiveRange {
  uint64_t tid = 0;
  uint32_t depth = 0;  // 0 = outermost on its thread
  int64_t startNs = 0;
  std::string domain;  // "" = the default domain
  std::string name;
};

// seq: collectives per communicator, send/recv per communicator and peer; no groupDepth.
struct LiveCall : traces::NcclCallFields {
  int64_t startNs = 0, endNs = 0;
  uint64_t tid = 0;
};

struct LiveCount {
  std::string kind;  // "collective", "send", "recv"
  uint64_t comm = 0;
  int32_t peer = -1;
  uint64_t calls = 0;
  int32_t commRank = -1;  // the answering process's own rank in the communicator
};

struct LiveSnapshot {
  int64_t aliveNs = 0;
  std::map<std::string, std::string> env;
  std::vector<LiveRange> ranges;
  std::vector<LiveCall> calls;  // oldest first
  std::vector<LiveCount> counts;
  bool ncclRead = true;  // false: its NCCL history was busy (a thread stopped inside it)
};

// Adds the snapshot's fields to `reply`, dropping the oldest calls and the outermost ranges of
// the deepest threads if it would not fit in kMaxReplyBytes.
void addSnapshot(const LiveSnapshot& snapshot, Reply& reply);
// The snapshot a reply holds; false (and `error`, one line) if its fields are malformed.
bool snapshotFromReply(const Reply& reply, LiveSnapshot* out, std::string* error);

}  // namespace bubblescope::control

#pragma once
// The comms of a job matched where its ranks are (`analyze` under MPI, docs/mpi.md): each DP
// replica's owner matches the calls whose other sides are all in its replica (its pipeline's
// sends and receives, its own collectives) and keeps the median clock gap of each pair of its
// ranks; one process, the coordinator, matches the rest (collectives on communicators that span
// replicas, sends and receives between replicas) from those calls alone, chains every pair's
// median into the job's clock offsets, and splits the kernels it matched. Together they give what
// matchComms(), clockOffsetsFromComms() and splitCommKernels() give of the whole run, so that no
// process holds every rank's NCCL calls and kernels.
//
// A pair of ranks both of which ran calls the coordinator matches may have gaps from both: the
// owner sends those gaps, not their median. A kernel that ran calls of both kinds (a group of a
// send within the replica and a collective beyond it) has its waits split between them: its
// owner then leaves the replica's every call to the coordinator. A peer is read through the
// members of a spanning communicator as the whole run's calls claim them. Pure: no I/O.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/comm/comm_match.h"
#include "analyzer/recognize/recognized.h"
#include "analyzer/result/traced_members.h"
#include "traces/model/byte_codec.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// What the coordinator reads of a rank's comms before any moves: the communicators its NCCL
// kernels ran data-moving calls on, and the ranks in them it claimed.
struct CommRoster {
  std::vector<uint64_t> comms;  // sorted
  struct Claim {
    uint64_t comm = 0;
    int32_t commRank = 0;
    auto operator<=>(const Claim&) const = default;
  };
  std::vector<Claim> claims;  // sorted, each once
  bool unnamedP2p = false;    // a send or receive that names no peer
};
CommRoster rosterOf(const traces::RankTrace& kept, const RankOps& ops);
void encodeCommRoster(const CommRoster& r, traces::ByteWriter& out);
CommRoster decodeCommRoster(traces::ByteReader& in);

// The communicators whose ranks are in more than one replica (`replicaOf[rank]`, -1 for a rank
// of none), sorted, and their members as the whole run claims them (`global[rank]`: its global
// rank, globalRanks()).
struct SpanningComms {
  std::vector<uint64_t> ids;
  CommMembers members;
};
SpanningComms spanningComms(const std::vector<CommRoster>& rosters,
                            const std::vector<int>& replicaOf, const std::vector<int>& global);
void encodeSpanningComms(const SpanningComms& s, traces::ByteWriter& out);
SpanningComms decodeSpanningComms(traces::ByteReader& in);

// Which calls of replica `ranks` its owner matches (matchCommsIn): those whose other sides are
// all in the replica, unless a kernel ran calls of both kinds (then none). `run` and `ops` hold
// the replica's ranks whole and every rank's number.
MatchScope ownerScope(const traces::Run& run, const std::vector<RankOps>& ops,
                      const std::vector<uint32_t>& ranks, const SpanningComms& spanning);

// One rank's calls on the communicators the coordinator matches, and the kernels that ran them,
// each with its index in the rank's own columns.
struct SpanningCalls {
  uint32_t rank = 0;        // index into the run
  traces::NcclCalls calls;  // what matching reads: start, op, peer, comm, commRank, commSize, seq
  std::vector<int32_t> callIndex;     // per call, its row in the rank's ncclCalls
  std::vector<CommKernel> kernels;    // their calls: commCalls[callBegin, callEnd)
  std::vector<int32_t> commCalls;     // indexes into `calls`
  std::vector<uint32_t> kernelIndex;  // per kernel, its index in the rank's commKernels
};
// The calls `keep` leaves to the coordinator (keep: ownerScope's of the rank).
SpanningCalls spanningCallsOf(uint32_t rank, const traces::RankTrace& kept, const RankOps& ops,
                              const std::vector<bool>& keep);
void encodeSpanningCalls(const SpanningCalls& s, traces::ByteWriter& out);
SpanningCalls decodeSpanningCalls(traces::ByteReader& in);

// What a replica's comms say of themselves for the run's warnings (comm_warnings.h).
struct CommTally {
  int32_t p2pUnmatched = 0, p2pWithoutPeer = 0, collectiveUnmatched = 0, withoutCall = 0;
  std::vector<TracedMembers> partial;  // each collective matched among fewer than its members
  static CommTally of(const CommMatches& m);
  void add(const CommTally& t);
  // A CommMatches whose warnings are these.
  CommMatches forWarnings() const;
};

// An owner's matching of one replica: whether it matched anything, the pairs' medians (their
// gaps, for a pair the coordinator may have gaps of too), and the calls it leaves to the
// coordinator.
struct ReplicaMatching {
  bool matchedAny = false;
  PairMedians medians;
  PairDeltas deltas;
  CommTally tally;
  std::vector<SpanningCalls> spanning;
};
ReplicaMatching matchReplica(const traces::Run& run, const std::vector<RankOps>& ops,
                             const std::vector<uint32_t>& ranks, const SpanningComms& spanning);
void encodeReplicaMatching(const ReplicaMatching& m, traces::ByteWriter& out);
ReplicaMatching decodeReplicaMatching(traces::ByteReader& in);

// A send matched with its receive, with where the job's matching put it: per (communicator,
// sender, receiver) in that order.
struct KeyedP2p {
  uint64_t comm = 0;
  int32_t from = 0, to = 0;  // global ranks
  P2pMatch match;
};
// A kernel the coordinator split: as splitCommKernels() leaves it.
struct KernelSplit {
  uint32_t rank = 0, kernel = 0;
  TimeNs transferStart = 0;
  bool matched = false;
  TracedMembers members;
};

// What the coordinator sends a replica's owner back: its ranks' offsets (applied: the job's
// clocks were aligned by its comms), its kernels the coordinator split, and the sends and
// receives it matched with a side on the replica.
struct ReplicaAlignment {
  bool offsetsApplied = false;
  std::vector<TimeNs> offsets;  // per rank of the replica, in stage order
  std::vector<KernelSplit> splits;
  std::vector<KeyedP2p> p2p;
};
void encodeReplicaAlignment(const ReplicaAlignment& a, traces::ByteWriter& out);
ReplicaAlignment decodeReplicaAlignment(traces::ByteReader& in);

// The coordinator's part, from every replica's matching: `run` holds each rank's metadata (its
// NCCL calls are not read), `ranksOf[d]` replica d's ranks in stage order, `spanning` what the
// owners divided their calls by. Returns each replica's alignment (its ranks' offsets, empty
// unless the clocks were aligned) and adds the comms' warnings to `warnings`.
std::vector<ReplicaAlignment> alignReplicas(const traces::Run& run,
                                            std::vector<ReplicaMatching>&& replicas,
                                            const std::vector<std::vector<uint32_t>>& ranksOf,
                                            const SpanningComms& spanning, bool alignClocks,
                                            std::vector<std::string>& warnings);

// The job's sends and receives of `local` (matched by the owner in `run`, whose ranks' calls it
// holds) and `spanning` (by the coordinator), in the job's order.
std::vector<P2pMatch> mergedP2p(const traces::Run& run, const CommMatches& local,
                                const std::vector<KeyedP2p>& spanning);

}  // namespace bubblescope::analysis

#pragma once
// Who waited for whom inside NCCL: every NCCL kernel of the run matched with its peers' kernels
// (a send with its receive, a collective with its other members), from the calls the traces
// hold (peer, communicator, sequence number), whatever recorded them. Pure: no I/O.
//
// A kernel starts when its stream reaches it and then spins until its peers' kernels have
// started; only from then on does data move. So the matched kernels' last start splits each of
// them into waiting (idle: analysis.md §2) and transfer (exposed communication). Matched kernels
// also end together, which ties the ranks' clocks to each other.
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "analyzer/comm/kernel_partners.h"
#include "analyzer/recognize/recognized.h"
#include "analyzer/result/traced_members.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// A send matched with its receive: their calls (rows of each trace's ncclCalls), the kernels
// that ran them (a fused group kernel may run several calls) and when each call was posted.
struct P2pMatch {
  KernelRef sendKernel, recvKernel;
  int32_t sendCall = -1, recvCall = -1;
  TimeNs sendPosted = 0, recvPosted = 0;
  bool byPostingOrder =
      false;  // its calls named no peer: paired by posting order (posting_order.h)
};

struct CommMatches {
  std::vector<P2pMatch> p2p;
  std::vector<std::vector<KernelRef>> collectives;  // the members' kernels of each collective
  // Per collective, its communicator's members when the run traces fewer (of = 0 otherwise).
  std::vector<TracedMembers> collectiveMembers;
  // partners.of(rank, kernel): the kernels it waited for (the other sides of its calls).
  KernelPartners partners;
  // collective[rank][kernel]: it ran a collective, which moves data once every member is there
  // (a point-to-point kernel moves data once its first peer is).
  std::vector<std::vector<bool>> collective;
  int p2pUnmatched = 0;         // send/recv calls whose other side is not in the run
  int p2pWithoutPeer = 0;       // of those, the calls that name no peer at all
  int p2pByPostingOrder = 0;    // calls that named no peer, paired by posting order
  int collectiveUnmatched = 0;  // collective calls with a member not in the run
  int withoutCall = 0;          // NCCL kernels the trace ties to no call

  bool empty() const { return p2p.empty() && collectives.empty(); }
};

// One NCCL call: a row of a rank's ncclCalls.
struct CallRef {
  uint32_t rank = 0;  // index into the run
  int32_t call = -1;
  bool operator==(const CallRef&) const = default;
};

// NCCL calls matched across ranks, and those left over: what the kernel matching below stands
// on, and what a hang leaves behind (a receive whose send never came, a collective a member never
// entered).
struct CallMatches {
  std::vector<std::pair<CallRef, CallRef>> p2p;   // (send, receive)
  std::vector<std::vector<CallRef>> collectives;  // the members' calls of one collective
  // Per collective: how many members its communicator holds when the run traces fewer (of = 0
  // otherwise). Its traced members are matched among themselves: their wait is theirs only.
  std::vector<TracedMembers> collectiveMembers;
  std::vector<CallRef> p2pLeft;  // no other side in the run
  // Of those, the calls that name no peer at all (an nsys export without --include-json).
  size_t p2pWithoutPeer = 0;
  std::vector<CallRef> collectiveLeft;  // a member never made its call, or the members disagree
  // Members' calls at the same place in their communicator's sequence whose op or sequence
  // number differ (also in collectiveLeft).
  std::vector<std::vector<CallRef>> collectiveDisagree;
};

// Who the traced members of communicators are, as the run's calls claim them: (communicator,
// rank in it) -> global rank (the first rank in run order to claim it), and each one's members.
struct CommMembers {
  std::map<std::pair<uint64_t, int32_t>, int> global;
  std::map<uint64_t, std::set<int>> members;

  // The global peer of a call on `comm` naming `peer`, made by the rank whose global rank is
  // `self` and whose own rank in it is `commRank` (-1: none known; a two-member communicator's
  // peer is then its other member, else `peer` is global); -1 when no trace claims it.
  int peerOf(uint64_t comm, int32_t commRank, int32_t peer, int self) const;
};

// Peers given to calls that name none (posting_order.h): peers[rank][call], a global rank or -1.
using AssignedPeers = std::vector<std::vector<int32_t>>;

// Matches the given calls of each rank (`calls[rank]`: rows of its ncclCalls; calls other than
// sends, receives and collectives are ignored) as matchComms() describes; a call that names no
// peer takes the one `assigned` gives it, if any.
// `claimed`: the members of some communicators as the whole run's calls claim them (a process
// that holds a share of their calls), read for those in place of what `calls` claim.
CallMatches matchCalls(const traces::Run& run, const std::vector<std::vector<int32_t>>& calls,
                       const AssignedPeers* assigned = nullptr,
                       const CommMembers* claimed = nullptr);

// The global rank of each trace: its recorded rank, else its place in the run.
std::vector<int> globalRanks(const traces::Run& run);

// Matches p2p calls per (communicator, sender, receiver) in posting order and collectives per
// communicator by sequence number (in posting order when a trace has none). A communicator of
// more members than the run traces (its size as the calls give it, else the job's world size)
// has its traced members' collectives matched among them, marked partial. A p2p peer is the
// rank within the communicator, translated to a global rank through the communicator's members
// as the traces record them (their own rank in it); a communicator two traced ranks share is
// taken as theirs alone; a call that knows no rank of its own names a global peer. A call that
// names no peer takes the one `assigned` gives it (a global rank), if any.
CommMatches matchComms(const traces::Run& run, const std::vector<RankOps>& ops,
                       const AssignedPeers* assigned = nullptr);

// What one process matches of a job whose ranks are spread over several (`analyze` under MPI,
// split_matching.h): the calls of the ranks `inScope` (by run index; empty: every rank) that
// `keep` keeps (keep[r][call row]; a rank's empty: all of its calls), with the members of the
// communicators `given` holds as the whole run claims them. Kernels that ran no call are counted
// (withoutCall) for the ranks in scope.
struct MatchScope {
  std::vector<bool> inScope;
  std::vector<std::vector<bool>> keep;
  const CommMembers* given = nullptr;
};
// matchComms() of the calls `scope` holds: what matchComms() of the whole run gives of them, when
// no call it holds would have been matched with one it leaves out.
CommMatches matchCommsIn(const traces::Run& run, const std::vector<RankOps>& ops,
                         const MatchScope& scope);

// Per ordered pair of ranks (a, b) that ran matched kernels together: the median of end_a - end_b
// over their matched kernels (what b's clock lags a's by), the lower middle of an even count.
using PairMedians = std::map<std::pair<uint32_t, uint32_t>, TimeNs>;
PairMedians pairMedians(const CommMatches& matches, const std::vector<RankOps>& ops);
// The gaps those medians are of: end_a - end_b per pair of matched kernels, in no stated order.
using PairDeltas = std::map<std::pair<uint32_t, uint32_t>, std::vector<TimeNs>>;
PairDeltas pairDeltas(const CommMatches& matches, const std::vector<RankOps>& ops);
// The median pairMedians() takes of one pair's gaps (reorders them).
TimeNs medianOf(std::vector<TimeNs>& deltas);
// Offsets of `ranks` ranks chained from the pairs' medians: from the lowest rank of each connected
// set, breadth first, each rank's pairs in order of the other rank.
std::vector<TimeNs> chainOffsets(const PairMedians& medians, size_t ranks);

// Offsets to add to each rank's times so that matched kernels end together (median per pair of
// ranks, chained from the lowest rank of each connected set). Empty when nothing is matched.
std::vector<TimeNs> clockOffsetsFromComms(const CommMatches& matches,
                                          const std::vector<RankOps>& ops);

// Sets each matched kernel's transferStart: when it and the first of its partners had both
// started (at most its own end), and, for a partial collective's, its traced members. Times must
// be aligned first.
void splitCommKernels(const CommMatches& matches, std::vector<RankOps>& ops);

}  // namespace bubblescope::analysis

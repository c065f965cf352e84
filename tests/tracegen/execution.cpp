#include "tests/tracegen/execution.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "tests/tracegen/p2p_order.h"
#include "tests/tracegen/zb_v_order.h"

namespace bubblescope::tracegen {
namespace {

constexpr TimeNs kUnknown = -1;
constexpr TimeNs kCallHost = 40'000;      // record_param_comms around one NCCL call
constexpr TimeNs kCallLaunchAt = 10'000;  // where in it NCCL launches its kernel
constexpr TimeNs kSyncReturn = 15'000;    // the CPU wakes this long after the event completes
constexpr TimeNs kBufferCopy = 5'000;     // a receive copies a buffered message out

// Deterministic across platforms: the jitter of one op from the seed and the op alone.
double unitNoise(uint64_t seed, const OpId& op) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ull ^ (uint64_t(op.stage) << 48) ^
               (uint64_t(op.step) << 32) ^ (uint64_t(op.pass) << 24) ^ (uint64_t(op.chunk) << 20) ^
               uint64_t(op.mb);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<double>(x >> 11) / static_cast<double>(1ull << 53);  // [0, 1)
}

// The chunk a message left from: a receive names its own op, whose input the looped layout's
// wrap sends from the other chunk.
int sentFromChunk(const JobSpec& spec, int rank, const NcclCall& c) {
  if (c.kind == CallKind::Send) return c.chunk;
  return inputOf(spec, stageOfRank(spec, rank), {c.pass, c.mb, c.chunk}).op.chunk;
}

// One piece of GPU work.
struct Item {
  enum Kind { Compute, P2P, Coll } kind = Compute;
  int rank = 0, stream = 0;
  TimeNs duration = 0;  // Compute: run time; P2P/Coll: the transfer
  TimeNs launch = 0;    // device-side: the call began + launch latency
  std::vector<int> waitOn;
  int partner = -1;  // P2P: the matching item on the peer
  bool buffered = false;  // P2P: sends only, each fitting NCCL's buffer: no wait for the peer
  bool receives = false;  // P2P: the batch receives
  int group = -1;    // Coll: index into groups
  int prev = -1;     // the item before it on its stream
  TimeNs start = kUnknown, transferStart = kUnknown, end = kUnknown;
  int kernel = -1;  // into its rank's kernels
};

// A CPU-side action of one rank's program.
struct Action {
  enum Kind { Begin, End, LaunchOp, Post, AllReduce, Sync, Optimizer, HostDelay } kind;
  HostKind range = HostKind::PipelineOp;
  // Begin/End: the range's index; LaunchOp: the op; Post: the call; HostDelay: the late launch
  int index = 0;
};

class Model {
 public:
  explicit Model(const JobSpec& spec) : spec_(spec) {
    out_.spec = spec;
    out_.ranks.resize(world_);
    for (int r = 0; r < world_; ++r) out_.ranks[r].rank = r;
    programs_.resize(world_);
    streamTail_.resize(world_);
    for (int r = 0; r < world_; ++r) plan(r);
  }

  JobTimeline run() {
    std::vector<size_t> pc(world_, 0);
    std::vector<TimeNs> cpu(world_, spec_.start);
    bool done = false;
    while (!done) {
      bool progress = false;
      done = true;
      for (int r = 0; r < world_; ++r) {
        while (pc[r] < programs_[r].size()) {
          if (!step(r, programs_[r][pc[r]], cpu[r])) break;
          ++pc[r];
          progress = true;
        }
        done = done && pc[r] == programs_[r].size();
      }
      progress = resolve() || progress;
      if (!done && !progress) throw std::logic_error("tracegen: the job deadlocked");
    }
    if (!resolveAll()) throw std::logic_error("tracegen: work left unfinished");
    finish();
    return std::move(out_);
  }

 private:
  // The program of one rank: each step's ops in its schedule's order with their sends and
  // receives, the grad-norm all-reduce, the wait for it, the optimizer.
  // A rank's stage and replica: the schedule's orders and peers are a stage's, the calls' peers
  // the replica's ranks.
  void plan(int r) {
    auto& prog = programs_[r];
    auto& tl = out_.ranks[r];
    const int stage = stageOfRank(spec_, r), replica = replicaOfRank(spec_, r);
    auto peerRank = [&](int peerStage) {
      return peerStage < 0 ? peerStage : rankOf(spec_, replica, peerStage);
    };
    const bool multiChunk = chunksPerStage(spec_) > 1;
    const std::vector<RankAction> program =
        multiChunk ? multiChunkProgram(spec_, stage) : std::vector<RankAction>{};
    for (int k = 0; k < spec_.steps; ++k) {
      const int stepRange = addRange(r, HostKind::ProfilerStep, k);
      prog.push_back({Action::Begin, HostKind::ProfilerStep, stepRange});
      // The host's lost time before it posts `o`'s receive (LateLaunch::beforeInputPost).
      auto lateBeforePost = [&](const StageOp& o) {
        for (size_t i = 0; i < spec_.lateLaunches.size(); ++i) {
          const LateLaunch& late = spec_.lateLaunches[i];
          if (late.beforeInputPost && late.replica == replica &&
              late.op == OpId{stage, k, o.pass, o.mb, o.chunk}) {
            prog.push_back({Action::HostDelay, HostKind::PipelineOp, static_cast<int>(i)});
          }
        }
      };
      auto call = [&](CallKind kind, int peer, const StageOp& o) {
        return addCall(r, kind, peer, o.pass, o.mb, o.chunk, k);
      };
      auto post = [&](std::vector<int> batch) {
        const int b = static_cast<int>(tl.batches.size());
        for (int c : batch) tl.calls[c].batch = b;
        tl.batches.push_back(batch);
        // One call each; the fused kernel is launched where the group ends: inside the single
        // call's range, or in a coalesced range after the calls.
        for (int c : batch) {
          const int range = addRange(r, HostKind::CommCall, c);
          prog.push_back({Action::Begin, HostKind::CommCall, range});
          if (batch.size() == 1) prog.push_back({Action::Post, HostKind::CommCall, b});
          prog.push_back({Action::End, HostKind::CommCall, range});
        }
        if (batch.size() > 1) {
          const int range = addRange(r, HostKind::Coalesced, b);
          prog.push_back({Action::Begin, HostKind::Coalesced, range});
          prog.push_back({Action::Post, HostKind::Coalesced, b});
          prog.push_back({Action::End, HostKind::Coalesced, range});
        }
      };
      auto run = [&](const StageOp& o) {
        const int op = static_cast<int>(tl.ops.size());
        tl.ops.push_back({OpId{stage, k, o.pass, o.mb, o.chunk}, 0, 0, 0});
        const int opRange = addRange(r, HostKind::PipelineOp, op);
        prog.push_back({Action::Begin, HostKind::PipelineOp, opRange});
        prog.push_back({Action::LaunchOp, HostKind::PipelineOp, op});
        prog.push_back({Action::End, HostKind::PipelineOp, opRange});
      };
      if (multiChunk) {
        // Each send and receive alone, in the order its pair shares (p2p_order.h).
        for (const RankAction& a : program) {
          if (a.kind == RankAction::Run) {
            run(a.op);
            continue;
          }
          if (a.kind == RankAction::Recv) lateBeforePost(a.op);
          const int c = call(a.kind == RankAction::Send ? CallKind::Send : CallKind::Recv,
                             peerRank(a.peer), a.op);
          const int label = spec_.labelP2p ? addRange(r, HostKind::PipelineComm, c) : -1;
          if (label >= 0) prog.push_back({Action::Begin, HostKind::PipelineComm, label});
          post({c});
          if (label >= 0) prog.push_back({Action::End, HostKind::PipelineComm, label});
        }
      } else {
        // 1F1B: a receive just before its op; an op's output posted with the next op's input when
        // that comes from the same peer (fwd_send_bwd_recv, bwd_send_fwd_recv: fused, or each
        // alone without fuseP2p), else alone.
        const std::vector<StageOp> order = stageOrder(spec_, stage);
        bool inputPosted = false;  // the next op's receive went out with the last send
        for (size_t i = 0; i < order.size(); ++i) {
          const StageOp& o = order[i];
          const int from = peerRank(inputPeer(spec_, stage, o));
          if (from >= 0 && !inputPosted) {
            lateBeforePost(o);
            post({call(CallKind::Recv, from, o)});
          }
          inputPosted = false;
          run(o);
          const int to = peerRank(outputPeer(spec_, stage, o));
          if (to < 0) continue;
          const bool pair =
              i + 1 < order.size() && peerRank(inputPeer(spec_, stage, order[i + 1])) == to;
          if (!pair) {
            post({call(CallKind::Send, to, o)});
            continue;
          }
          const StageOp& next = order[i + 1];
          inputPosted = true;
          if (spec_.fuseP2p) {
            lateBeforePost(next);
            post({call(CallKind::Send, to, o), call(CallKind::Recv, to, next)});
          } else if (stage % 2 == 0) {
            // Alone, rendezvous sends on one stream per pair: the sides must agree on which
            // message goes first or each waits on the other's.
            post({call(CallKind::Send, to, o)});
            lateBeforePost(next);
            post({call(CallKind::Recv, to, next)});
          } else {
            lateBeforePost(next);
            post({call(CallKind::Recv, to, next)});
            post({call(CallKind::Send, to, o)});
          }
        }
      }
      const int ar = addCall(r, CallKind::AllReduce, -1, PassKind::F, 0, 0, k);
      const int arRange = addRange(r, HostKind::CommCall, ar);
      prog.push_back({Action::Begin, HostKind::CommCall, arRange});
      prog.push_back({Action::AllReduce, HostKind::CommCall, ar});
      prog.push_back({Action::End, HostKind::CommCall, arRange});
      prog.push_back({Action::Sync, HostKind::CommCall, ar});
      const int optRange = addRange(r, HostKind::Optimizer, k);
      prog.push_back({Action::Begin, HostKind::Optimizer, optRange});
      prog.push_back({Action::Optimizer, HostKind::Optimizer, k});
      prog.push_back({Action::End, HostKind::Optimizer, optRange});
      prog.push_back({Action::End, HostKind::ProfilerStep, stepRange});
    }
  }

  int addRange(int r, HostKind kind, int index) {
    auto& ranges = out_.ranks[r].ranges;
    ranges.push_back({0, 0, kind, index});
    return static_cast<int>(ranges.size()) - 1;
  }

  int addCall(int r, CallKind kind, int peer, PassKind pass, int mb, int chunk, int step) {
    auto& calls = out_.ranks[r].calls;
    NcclCall c;
    c.kind = kind;
    c.peer = peer;
    c.pass = pass;
    c.mb = mb;
    c.chunk = chunk;
    c.step = step;
    c.bytes = kind == CallKind::AllReduce ? 4 : spec_.activationBytes;
    c.seq = kind == CallKind::AllReduce ? ++collSeq_[r] : ++p2pSeq_[r];
    calls.push_back(c);
    return static_cast<int>(calls.size()) - 1;
  }

  // One CPU action; false when it must wait (a sync on work not yet finished).
  bool step(int r, const Action& a, TimeNs& cpu) {
    auto& tl = out_.ranks[r];
    switch (a.kind) {
      case Action::Begin:
        tl.ranges[a.index].start = cpu;
        cpu += 1'000;
        return true;
      case Action::End:
        tl.ranges[a.index].end = cpu;
        cpu += 1'000;
        return true;
      case Action::LaunchOp: {
        OpRun& op = tl.ops[a.index];
        const StageOp self{op.id.pass, op.id.mb, op.id.chunk};
        const int replica = replicaOfRank(spec_, r);
        for (const LateLaunch& late : spec_.lateLaunches) {
          const bool atPost = late.beforeInputPost && inputPeer(spec_, op.id.stage, self) >= 0;
          if (late.op == op.id && late.replica == replica && !atPost) cpu += late.delay;
        }
        const TimeNs cost = opCost(spec_, op.id, replica);
        const int n = spec_.kernelsPerOp;
        std::vector<int> wait;
        if (auto it = recvItem_.find(key(r, op.id.step, op.id.pass, op.id.mb, op.id.chunk));
            it != recvItem_.end()) {
          wait.push_back(it->second);
        }
        for (int i = 0; i < n; ++i) {
          const TimeNs d = cost / n + (i == n - 1 ? cost % n : 0);
          const int item = launch(r, cpu, Item::Compute, 0, d, i == 0 ? wait : std::vector<int>{});
          cpu += spec_.launchCpu;
          items_[item].kernel = addKernel(r, KernelKind::Compute, 0, a.index, item);
          if (i == 0) op.firstKernel = items_[item].kernel;
          op.lastKernel = items_[item].kernel;
          opItem_[{r, a.index}] = item;
          if (i == 0) firstItemOfOp_[{r, a.index}] = item;
        }
        producedBy_[key(r, op.id.step, op.id.pass, op.id.mb, op.id.chunk)] = opItem_[{r, a.index}];
        lastOpItem_[r] = opItem_[{r, a.index}];
        return true;
      }
      case Action::Post: {
        const std::vector<int>& batch = tl.batches[a.index];
        std::vector<int> wait;
        TimeNs transfer = spec_.transfer;
        for (int ci : batch) {
          const NcclCall& c = tl.calls[ci];
          if (c.kind == CallKind::Send)
            wait.push_back(producedBy_.at(key(r, c.step, c.pass, c.mb, c.chunk)));
          const int from = c.kind == CallKind::Send ? r : c.peer,
                    to = c.kind == CallKind::Send ? c.peer : r;
          for (const SlowLink& l : spec_.slowLinks) {
            if (l.from == from && l.to == to)
              transfer = std::max(transfer, spec_.transfer + l.extra);
          }
        }
        if (spec_.p2pWaitsForCompute) {
          if (auto last = lastOpItem_.find(r); last != lastOpItem_.end()) {
            wait.push_back(last->second);
          }
        }
        const int peer = tl.calls[batch.front()].peer;
        const int stream = !spec_.p2pStreamsQueue  ? 2 + world_ + a.index
                           : spec_.sharedP2pStream ? 2
                                                   : 2 + peer;
        const int item = launch(r, cpu + kCallLaunchAt, Item::P2P, stream, transfer, wait);
        cpu += kCallHost;
        items_[item].receives = std::any_of(batch.begin(), batch.end(), [&](int ci) {
          return tl.calls[ci].kind == CallKind::Recv;
        });
        items_[item].buffered =
            !items_[item].receives && std::all_of(batch.begin(), batch.end(), [&](int ci) {
              return tl.calls[ci].bytes <= spec_.bufferedBytes;
            });
        items_[item].kernel = addKernel(r, KernelKind::SendRecv, stream, a.index, item);
        for (int ci : batch) {
          NcclCall& c = tl.calls[ci];
          c.kernel = items_[item].kernel;
          // The peer's batch holding the other side of this call is this batch's partner. NCCL
          // pairs a pair's messages in order: the n-th send from -> to meets the n-th receive.
          const int from = c.kind == CallKind::Send ? r : c.peer,
                    to = c.kind == CallKind::Send ? c.peer : r;
          const int n = messages_[{from, to, c.kind == CallKind::Send}]++;
          const auto k = std::make_tuple(from, to, n);
          if (auto it = pending_.find(k); it != pending_.end()) {
            const auto [otherItem, otherRank, otherCall] = it->second;
            const NcclCall& o = out_.ranks[otherRank].calls[otherCall];
            if (o.step != c.step || o.pass != c.pass || o.mb != c.mb ||
                sentFromChunk(spec_, otherRank, o) != sentFromChunk(spec_, r, c)) {
              throw std::logic_error(
                  "tracegen: a pair's sends and receives are posted in different orders");
            }
            if (items_[item].partner >= 0 && items_[item].partner != otherItem) {
              throw std::logic_error("tracegen: a batch's calls meet two different peer batches");
            }
            items_[item].partner = otherItem;
            items_[otherItem].partner = item;
            pending_.erase(it);
          } else {
            pending_[k] = {item, r, ci};
          }
          if (c.kind == CallKind::Recv) recvItem_[key(r, c.step, c.pass, c.mb, c.chunk)] = item;
        }
        return true;
      }
      case Action::AllReduce: {
        NcclCall& c = tl.calls[a.index];
        const int last = lastOpItem_.at(r);
        const int item = launch(r, cpu + kCallLaunchAt, Item::Coll, 1, spec_.allReduce, {last});
        cpu += kCallHost;
        items_[item].kernel = addKernel(r, KernelKind::AllReduce, 1, a.index, item);
        c.kernel = items_[item].kernel;
        if (static_cast<int>(groups_.size()) <= c.step) groups_.resize(c.step + 1);
        items_[item].group = c.step;
        groups_[c.step].push_back(item);
        allReduceItem_[{r, c.step}] = item;
        return true;
      }
      case Action::Sync: {
        const int item = allReduceItem_.at({r, tl.calls[a.index].step});
        if (items_[item].end == kUnknown) return false;
        const TimeNs begin = cpu;
        cpu = std::max(cpu, items_[item].end) + kSyncReturn;
        tl.api.push_back({begin, cpu, false, 0});
        return true;
      }
      case Action::HostDelay:
        cpu += spec_.lateLaunches[a.index].delay;
        return true;
      case Action::Optimizer: {
        const int k = a.index;
        const int n = spec_.optimizerKernels;
        std::vector<int> wait{allReduceItem_.at({r, k})};
        for (int i = 0; i < n; ++i) {
          const TimeNs d = spec_.optimizer / n + (i == n - 1 ? spec_.optimizer % n : 0);
          const int item = launch(r, cpu, Item::Compute, 0, d, i == 0 ? wait : std::vector<int>{});
          cpu += spec_.launchCpu;
          items_[item].kernel = addKernel(r, KernelKind::Optimizer, 0, k, item);
        }
        return true;
      }
    }
    return true;
  }

  static uint64_t key(int r, int step, PassKind pass, int mb, int chunk) {
    return (uint64_t(r) << 48) ^ (uint64_t(step) << 32) ^ (uint64_t(pass) << 24) ^
           (uint64_t(chunk) << 20) ^ uint64_t(mb);
  }

  // A launch call made on the CPU at `at` (launchCpu of host time), and its item on a stream.
  int launch(int r, TimeNs at, Item::Kind kind, int stream, TimeNs duration,
             std::vector<int> wait) {
    auto& tl = out_.ranks[r];
    const uint32_t corr = nextCorrelation_++;
    tl.api.push_back({at, at + spec_.launchCpu * 3 / 5, true, corr});
    Item it;
    it.kind = kind;
    it.rank = r;
    it.stream = stream;
    it.duration = duration;
    it.launch = at + spec_.launchLatency;
    it.waitOn = std::move(wait);
    auto [tail, added] = streamTail_[r].try_emplace(stream, -1);
    it.prev = tail->second;
    items_.push_back(std::move(it));
    tail->second = static_cast<int>(items_.size()) - 1;
    correlationOf_.push_back(corr);
    return static_cast<int>(items_.size()) - 1;
  }

  int addKernel(int r, KernelKind kind, int stream, int owner, int item) {
    auto& ks = out_.ranks[r].kernels;
    Kernel k;
    k.kind = kind;
    k.stream = stream;
    k.owner = owner;
    k.correlation = correlationOf_[item];
    ks.push_back(k);
    return static_cast<int>(ks.size()) - 1;
  }

  bool known(int i) const { return i < 0 || items_[i].end != kUnknown; }

  // Settles every item whose inputs are known; true if any was.
  bool resolve() {
    bool any = false, changed = true;
    while (changed) {
      changed = false;
      for (size_t i = 0; i < items_.size(); ++i) {
        Item& it = items_[i];
        if (it.start == kUnknown) {
          if (!known(it.prev)) continue;
          bool ready = true;
          for (int w : it.waitOn) ready = ready && known(w);
          if (!ready) continue;
          it.start = std::max(it.launch, it.prev >= 0 ? items_[it.prev].end : it.launch);
          for (int w : it.waitOn) it.start = std::max(it.start, items_[w].end);
          changed = any = true;
        }
        if (it.end != kUnknown) continue;
        if (it.kind == Item::Compute) {
          it.transferStart = it.start;
          it.end = it.start + it.duration;
        } else if (it.kind == Item::P2P && it.buffered) {
          it.transferStart = it.start;  // into the peer's buffer, whether it receives yet or not
          it.end = it.start + it.duration;
        } else if (it.kind == Item::P2P) {
          if (it.partner < 0 || items_[it.partner].start == kUnknown) continue;
          const Item& other = items_[it.partner];
          if (other.buffered) {
            // The data streams into this rank's buffer while the send runs: a receive already
            // posted takes it as it comes, one posted later only copies it out.
            if (other.end == kUnknown) continue;
            it.transferStart = std::max(it.start, other.transferStart);
            it.end = std::max(it.start, other.end) + kBufferCopy;
          } else {
            it.transferStart = std::max(it.start, other.start);
            it.end = it.transferStart + it.duration;
          }
        } else {
          TimeNs last = 0;
          bool all = static_cast<int>(groups_[it.group].size()) == world_;
          for (int g : groups_[it.group]) {
            all = all && items_[g].start != kUnknown;
            if (all) last = std::max(last, items_[g].start);
          }
          if (!all) continue;
          it.transferStart = last;
          it.end = last + it.duration;
        }
        changed = any = true;
      }
    }
    return any;
  }

  bool resolveAll() {
    resolve();
    return std::all_of(items_.begin(), items_.end(),
                       [](const Item& i) { return i.end != kUnknown; });
  }

  void finish() {
    for (const Item& it : items_) {
      Kernel& k = out_.ranks[it.rank].kernels[it.kernel];
      k.start = it.start;
      k.end = it.end;
      k.transferStart = it.transferStart;
    }
    for (auto& tl : out_.ranks) {
      for (size_t i = 0; i < tl.ops.size(); ++i) {
        const Item& first = items_[firstItemOfOp_.at({tl.rank, static_cast<int>(i)})];
        TimeNs ready = first.prev >= 0 ? items_[first.prev].end : spec_.start;
        for (int w : first.waitOn) ready = std::max(ready, items_[w].end);
        tl.ops[i].ready = ready;
      }
      if (spec_.stepRangeLag > 0) shiftStepRanges(tl);
    }
  }

  // ProfilerStep#N opens `stepRangeLag` after the step's first op annotation began.
  void shiftStepRanges(RankTimeline& tl) const {
    std::vector<TimeNs> firstOp(spec_.steps, INT64_MAX);
    for (const HostRange& h : tl.ranges) {
      if (h.kind == HostKind::PipelineOp) {
        const int k = tl.ops[h.index].id.step;
        firstOp[k] = std::min(firstOp[k], h.start);
      }
    }
    for (HostRange& h : tl.ranges) {
      if (h.kind == HostKind::ProfilerStep && firstOp[h.index] != INT64_MAX) {
        h.start = std::max(h.start, firstOp[h.index] + spec_.stepRangeLag);
      }
    }
  }

  const JobSpec& spec_;
  const int world_ = worldSize(spec_);
  JobTimeline out_;
  std::vector<std::vector<Action>> programs_;
  std::vector<Item> items_;
  std::vector<uint32_t> correlationOf_;
  std::vector<std::map<int, int>> streamTail_;  // per rank: stream -> its last item
  // Posted calls waiting for their other side, by (from, to, n-th message on the pair): the
  // batch's item, and the rank and index of the call.
  std::map<std::tuple<int, int, int>, std::tuple<int, int, int>> pending_;
  std::map<std::tuple<int, int, bool>, int> messages_;  // (from, to, send?) -> calls posted
  std::map<uint64_t, int> recvItem_, producedBy_;
  std::map<std::pair<int, int>, int> opItem_, firstItemOfOp_, allReduceItem_;
  std::map<int, int> lastOpItem_;
  std::vector<std::vector<int>> groups_;
  std::map<int, uint64_t> collSeq_, p2pSeq_;
  uint32_t nextCorrelation_ = 1;
};

}  // namespace

TimeNs opCost(const JobSpec& spec, const OpId& op, int replica) {
  const TimeNs base = op.pass == PassKind::F    ? spec.costF
                      : op.pass == PassKind::BW ? spec.costBW
                      : op.pass == PassKind::B  ? spec.costB
                                                : spec.costW;
  double cost = static_cast<double>(base);
  if (spec.slowStage && *spec.slowStage == op.stage) cost *= spec.slowFactor;
  if (spec.slowReplica && *spec.slowReplica == replica) cost *= spec.slowFactor;
  // Replica 0's noise is the seed's alone, as in a job of one replica.
  const uint64_t seed = spec.seed + 0x51ed27ull * static_cast<uint64_t>(replica);
  if (spec.jitter > 0) cost *= 1.0 + spec.jitter * (2.0 * unitNoise(seed, op) - 1.0);
  return static_cast<TimeNs>(cost);
}

JobTimeline execute(const JobSpec& spec) {
  return Model(spec).run();
}

}  // namespace bubblescope::tracegen

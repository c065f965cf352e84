#include "analyzer/infer/infer_pipeline.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analyzer/comm/comm_match.h"
#include "analyzer/infer/device_stage.h"
#include "analyzer/infer/host_stage.h"
#include "analyzer/infer/op_segments.h"
#include "analyzer/infer/p2p_chain.h"
#include "analyzer/infer/step_pattern.h"
#include "analyzer/infer/v_pipeline.h"
#include "analyzer/infer/v_schedule.h"
#include "analyzer/recognize/kernel_attribution.h"
#include "analyzer/recognize/recognizer.h"
#include "analyzer/recognize/rule_set.h"
#include "traces/parallel/parallel_for.h"

namespace bubblescope::analysis {
namespace {

// The rank's matched transfers: call row -> what it tells.
std::map<int32_t, CutKind> typedCalls(uint32_t rank, const CommMatches& matches, int prevRank,
                                      int nextRank) {
  std::map<int32_t, CutKind> typed;
  for (const P2pMatch& m : matches.p2p) {
    if (m.sendKernel.rank == rank && m.sendCall >= 0) {
      const int to = static_cast<int>(m.recvKernel.rank);
      typed[m.sendCall] = to == nextRank   ? CutKind::ActOut
                          : to == prevRank ? CutKind::GradOut
                                           : CutKind::Other;
    }
    if (m.recvKernel.rank == rank && m.recvCall >= 0) {
      const int from = static_cast<int>(m.sendKernel.rank);
      typed[m.recvCall] = from == prevRank   ? CutKind::ActIn
                          : from == nextRank ? CutKind::GradIn
                                             : CutKind::Other;
    }
  }
  return typed;
}

// A stage laid out for reading a V: its calls (as the chain reading cuts with them) and its
// compute, on the device or, for a stage with none, on the thread that posts its calls.
VStage vStageOf(const traces::RankTrace& t, const RankOps& marks, const Launches& l,
                const std::map<int32_t, CutKind>& typed, bool onHost, traces::ThreadIndex poster) {
  std::vector<StageCall> calls;
  const auto& c = *t.ncclCalls;
  for (size_t i = 0; i < c.size(); ++i) {
    if (onHost ? c.thread[i] != poster : !traces::movesData(c.op[i])) continue;
    const auto row = static_cast<int32_t>(i);
    auto kind = typed.find(row);
    calls.push_back(
        {c.start[i], c.end[i], kind == typed.end() ? CutKind::Other : kind->second, row});
  }
  for (const Interval& o : marks.optimizer) calls.push_back({o.start, o.end, CutKind::Other});
  if (onHost) {
    for (const Interval& g : marks.gradSync) calls.push_back({g.start, g.end, CutKind::Other});
    return vStageOnHost(std::move(calls), kPostedTogether);
  }
  std::vector<TimeNs> times;
  for (const LaunchCall& launch : l.compute) times.push_back(launch.start);
  return vStageOnDevice(std::move(calls), times);
}

// A V stage's sends and receives on the device: each matched transfer's kernel, with the pass,
// chunk and microbatch the schedule reading gave its call. commsFromKernels would pair receives
// with ops in op order, but a receive posted early, in the sender's order, feeds a later op.
PostedComms vComms(const RankOps& marks, uint32_t rank, int stage, const CommMatches& matches,
                   const std::unordered_map<int32_t, VCarried>& messageOfRow) {
  PostedComms out;
  for (const P2pMatch& m : matches.p2p) {
    for (bool send : {true, false}) {
      const KernelRef& mine = send ? m.sendKernel : m.recvKernel;
      const int32_t row = send ? m.sendCall : m.recvCall;
      if (mine.rank != rank || mine.kernel >= marks.commKernels.size()) continue;
      auto it = messageOfRow.find(row);
      if (it == messageOfRow.end()) continue;
      const VMessage type = it->second.message;
      const bool down = type == VMessage::A0 || type == VMessage::G1;
      const CommKernel& ck = marks.commKernels[mine.kernel];
      RecognizedComm c;
      c.send = send;
      c.pass = passOf(type);
      c.chunk = static_cast<uint8_t>(chunkOf(type));  // 0 or 1
      c.mb = it->second.mb;
      c.peer = send == down ? stage + 1 : stage - 1;
      c.start = ck.start;
      c.end = ck.end;
      c.onDevice = true;
      out.add(c, ck.launch);
    }
  }
  return out;
}

// The chain read as a V, if its traffic is one: every stage's ops and transfers built, the
// counts added to `out`.
bool buildV(const traces::Run& run, const std::vector<uint32_t>& chain, const CommMatches& matches,
            const std::vector<std::map<int32_t, CutKind>>& typed, const std::vector<char>& onHost,
            const std::vector<traces::ThreadIndex>& poster, const std::vector<Launches>& launches,
            const std::vector<std::vector<int8_t>>& nccl,
            const std::vector<std::vector<OpKind>>& chainKinds, std::vector<RankOps>& marks,
            P2pInference& out) {
  const size_t p = chain.size();
  std::vector<VStage> stages(p);
  std::vector<int64_t> slack(p);
  traces::parallelFor(p, 0, [&](size_t s) {
    const uint32_t r = chain[s];
    stages[s] = vStageOf(run.ranks[r], marks[r], launches[r], typed[s], onHost[s], poster[s]);
    slack[s] = onHost[s] ? kPostedTogether : 0;
  });
  const VPipeline v = readVPipeline(stages, slack);
  if (!v.isV || isKnownChainOrder(chainKinds, 2 * v.m)) return false;
  const int m = v.m;
  traces::parallelFor(p, 0, [&](size_t s) {
    const uint32_t r = chain[s];
    const VStageOps& st = v.stages[s];
    const int stage = static_cast<int>(s);
    if (onHost[s]) {
      HostSegmentation seg;
      for (const SplitOp& o : st.ops) {
        if (o.end > o.begin) seg.ops.push_back({o.op.kind, o.begin, o.end, o.op.chunk, o.op.mb});
      }
      for (const auto& [begin, end] : st.other) seg.other.push_back({begin, end});
      marks[r] =
          withHostOps(run.ranks[r], std::move(marks[r]), seg, typed[s], stage, m, &st.messageOfRow);
      return;
    }
    Segmentation seg;
    for (const SplitOp& o : st.ops) {
      if (o.end > o.begin) {
        seg.ops.push_back({o.op.kind, static_cast<size_t>(o.begin), static_cast<size_t>(o.end),
                           o.op.chunk, o.op.mb});
      }
    }
    auto comms = vComms(marks[r], r, stage, matches, st.messageOfRow);
    marks[r] = withOps(run.ranks[r], std::move(marks[r]), launches[r], nccl[r], seg, stage, m,
                       std::move(comms));
  });
  ++out.pipelines;
  ++out.vPipelines;
  out.vSchedule = v.schedule;
  out.splitsGuessed += v.guessedCosts;
  for (size_t s = 0; s < p; ++s) {
    out.hostStages += onHost[s] ? 1 : 0;
    for (const StretchSpan& span : stages[s].spans) out.stretches += span.end > span.begin;
  }
  return true;
}

// What each stage of a chain reads as: its transfers typed by direction, then cut points and op
// segments of its device launches, or, for a stage that launched no compute (a CPU job), of the
// host time of the thread that posts its calls.
struct ChainStages {
  std::vector<std::map<int32_t, CutKind>> typed;
  std::vector<char> onHost;
  std::vector<traces::ThreadIndex> poster;
  std::vector<std::vector<Cut>> cuts;
  std::vector<Segmentation> segs;
  std::vector<HostSegmentation> hostSegs;

  explicit ChainStages(int p)
      : typed(p), onHost(p, 0), poster(p, 0), cuts(p), segs(p), hostSegs(p) {}
  int p() const { return static_cast<int>(typed.size()); }
  std::vector<OpKind> kinds(int s) const {
    std::vector<OpKind> out;
    if (onHost[s]) {
      for (const HostOp& o : hostSegs[s].ops) out.push_back(o.kind);
    } else {
      for (const SegmentOp& o : segs[s].ops) out.push_back(o.kind);
    }
    return out;
  }
};

// What every rank's own trace says before the chains are known: step and optimizer markers,
// NCCL call names, launches and NCCL kernels.
struct RankReadings {
  std::vector<RankOps> marks;
  std::vector<std::vector<int8_t>> nccl;
  std::vector<Launches> launches;
};

RankReadings readRanks(const traces::Run& run) {
  const size_t n = run.ranks.size();
  RankReadings ranks{std::vector<RankOps>(n), std::vector<std::vector<int8_t>>(n),
                     std::vector<Launches>(n)};
  traces::parallelFor(n, 0, [&](size_t r) {
    ranks.marks[r] = recognizeWith(run.ranks[r], commonMarkers(), false);
    ranks.nccl[r] = ncclNames(run.ranks[r]);
    ranks.launches[r] = launchesOf(run.ranks[r]);
    ncclKernelsOf(run.ranks[r], ranks.nccl[r], ranks.launches[r], ranks.marks[r]);
  });
  return ranks;
}

std::vector<TimeNs> computeLaunchTimes(const Launches& launches) {
  std::vector<TimeNs> times;
  for (const LaunchCall& l : launches.compute) times.push_back(l.start);
  return times;
}

// Each stage of the chain cut into ops by its typed transfers.
ChainStages readChain(const traces::Run& run, const std::vector<uint32_t>& chain,
                      const CommMatches& matches, RankReadings& ranks) {
  const int p = static_cast<int>(chain.size());
  ChainStages c(p);
  traces::parallelFor(static_cast<size_t>(p), 0, [&](size_t s) {
    const uint32_t r = chain[s];
    computeLaunches(run.ranks[r], ranks.marks[r], ranks.nccl[r], ranks.launches[r]);
    c.typed[s] = typedCalls(r, matches, s > 0 ? static_cast<int>(chain[s - 1]) : -1,
                            s + 1 < static_cast<size_t>(p) ? static_cast<int>(chain[s + 1]) : -1);
    if (ranks.launches[r].compute.empty()) {
      c.onHost[s] = 1;
      c.poster[s] = postingThread(run.ranks[r]);
      c.hostSegs[s] =
          segmentHostStage(run.ranks[r], ranks.marks[r], c.typed[s], c.poster[s], {0, 0});
      return;
    }
    c.cuts[s] = cutsOf(run.ranks[r], ranks.marks[r], c.typed[s]);
    c.segs[s] = segmentOps(computeLaunchTimes(ranks.launches[r]), c.cuts[s], {0, 0});
  });
  return c;
}

// A stage with no run of one op (the last, in 1F1B) splits by its neighbour's kernel counts
// (or, on the host, its neighbour's proportions of F and B).
void resplitGuessedStages(const traces::Run& run, const std::vector<uint32_t>& chain,
                          const RankReadings& ranks, ChainStages& c) {
  const int p = c.p();
  for (int s = 0; s < p; ++s) {
    const bool guessed =
        c.onHost[s] ? c.hostSegs[s].splitsGuessed > 0 : c.segs[s].splitsGuessed > 0;
    if (!guessed) continue;
    std::array<size_t, 2> fallback{};
    std::array<TimeNs, 2> hostFallback{};
    for (int d = 1; d < p; ++d) {
      for (int q : {s - d, s + d}) {
        if (q < 0 || q >= p) continue;
        for (int k = 0; k < 2; ++k) {
          if (fallback[k] == 0) fallback[k] = c.segs[q].kernelsPerOp[k];
        }
        // Both from one stage: a proportion of two stages' durations means nothing.
        if (c.onHost[q] && hostFallback[0] == 0 && c.hostSegs[q].nsPerOp[0] > 0 &&
            c.hostSegs[q].nsPerOp[1] > 0) {
          hostFallback = c.hostSegs[q].nsPerOp;
        }
      }
    }
    const uint32_t r = chain[s];
    if (c.onHost[s]) {
      c.hostSegs[s] =
          segmentHostStage(run.ranks[r], ranks.marks[r], c.typed[s], c.poster[s], hostFallback);
      continue;
    }
    c.segs[s] = segmentOps(computeLaunchTimes(ranks.launches[r]), c.cuts[s], fallback);
  }
}

// A pipeline runs every microbatch's forward and backward on every stage: as many of each,
// everywhere. Traffic that gives anything else is not a pipeline's (an all-to-all made of
// sends and receives, a halo exchange). And a microbatch's backward never comes before its
// forward. Returns why the chain is not a pipeline, "" when it is one.
std::string notAPipeline(const ChainStages& c) {
  const int p = c.p();
  std::vector<size_t> forwards(p, 0), backwards(p, 0);
  bool pipeline = true;
  for (int s = 0; s < p; ++s) {
    for (OpKind kind : c.kinds(s)) {
      ++(kind == OpKind::F ? forwards : backwards)[s];
      pipeline = pipeline && backwards[s] <= forwards[s];
    }
  }
  pipeline = pipeline && forwards[0] > 0;
  for (int s = 0; s < p; ++s) {
    pipeline = pipeline && forwards[s] == forwards[0] && backwards[s] == forwards[0];
  }
  if (pipeline) return "";
  std::string counts;
  for (int s = 0; s < p; ++s) {
    counts +=
        (s ? ", " : "") + std::to_string(forwards[s]) + "F/" + std::to_string(backwards[s]) + "B";
  }
  return "the p2p traffic of " + std::to_string(p) +
         " ranks forms a chain but not a pipeline (forwards/backwards per rank: " + counts + ")";
}

// Every stage of a chain that is a pipeline given its ops, and the counts added to `out`.
void buildChain(const traces::Run& run, const std::vector<uint32_t>& chain, const ChainStages& c,
                RankReadings& ranks, P2pInference& out) {
  const int p = c.p();
  // Where nothing marks or ends the steps, the first stage's microbatch count cuts them.
  const int m = microbatchesPerStep(c.kinds(0));
  traces::parallelFor(static_cast<size_t>(p), 0, [&](size_t s) {
    const uint32_t r = chain[s];
    ranks.marks[r] = c.onHost[s]
                         ? withHostOps(run.ranks[r], std::move(ranks.marks[r]), c.hostSegs[s],
                                       c.typed[s], static_cast<int>(s), m)
                         : withOps(run.ranks[r], std::move(ranks.marks[r]), ranks.launches[r],
                                   ranks.nccl[r], c.segs[s], static_cast<int>(s), m);
  });
  for (int s = 0; s < p; ++s) {
    if (c.onHost[s]) {
      ++out.hostStages;
      out.stretches += c.hostSegs[s].stretches;
      out.unclassified += c.hostSegs[s].unclassified;
      out.splits += c.hostSegs[s].splits;
      out.splitsGuessed += c.hostSegs[s].splitsGuessed;
      continue;
    }
    out.stretches += c.segs[s].stretches;
    out.unclassified += c.segs[s].unclassified;
    out.splits += c.segs[s].splits;
    out.splitsGuessed += c.segs[s].splitsGuessed;
  }
  ++out.pipelines;
}

}  // namespace

P2pInference inferFromP2p(const traces::Run& run, std::vector<RankOps>& ops) {
  P2pInference out;
  const size_t n = run.ranks.size();
  RankReadings ranks = readRanks(run);
  CommMatches matches = matchComms(run, ranks.marks);
  addHostMatches(run, ranks.marks, matches);
  std::vector<P2pEdge> edges;
  for (const P2pMatch& m : matches.p2p)
    edges.push_back({m.sendKernel.rank, m.recvKernel.rank, m.sendPosted});
  const P2pChains chains = p2pChains(edges, n);
  out.notChains = chains.notChains;
  if (chains.chains.empty()) return out;

  std::vector<int> built(n, 0);  // 1: rank's ops inferred
  for (const auto& chain : chains.chains) {
    ChainStages c = readChain(run, chain, matches, ranks);
    // A V (ZB-V) crosses the chain's links both ways; its traffic says so where a chain's
    // cannot be read that way (v_reading.h).
    std::vector<std::vector<OpKind>> chainKinds(chain.size());
    for (int s = 0; s < c.p(); ++s) chainKinds[s] = c.kinds(s);
    if (buildV(run, chain, matches, c.typed, c.onHost, c.poster, ranks.launches, ranks.nccl,
               chainKinds, ranks.marks, out)) {
      for (uint32_t r : chain) built[r] = 1;
      continue;
    }
    resplitGuessedStages(run, chain, ranks, c);
    if (std::string why = notAPipeline(c); !why.empty()) {
      out.notes.push_back(std::move(why));
      continue;
    }
    for (uint32_t r : chain) built[r] = 1;
    buildChain(run, chain, c, ranks, out);
  }
  if (out.pipelines == 0) return out;
  out.found = true;
  // Ranks outside every pipeline keep no ops (launchers, data workers): the topology leaves them.
  for (size_t r = 0; r < n; ++r) {
    if (built[r]) ops[r] = std::move(ranks.marks[r]);
  }
  return out;
}

}  // namespace bubblescope::analysis

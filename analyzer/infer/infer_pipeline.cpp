#include "analyzer/infer/infer_pipeline.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analyzer/comm/comm_match.h"
#include "analyzer/infer/op_segments.h"
#include "analyzer/infer/p2p_chain.h"
#include "analyzer/recognize/kernel_attribution.h"
#include "analyzer/recognize/recognizer.h"
#include "analyzer/recognize/rule_set.h"
#include "analyzer/recognize/steps.h"

namespace bubblescope::analysis {
namespace {

using traces::NcclOp;

struct LaunchCall {
  TimeNs start = 0, end = 0;
  traces::ThreadIndex thread = 0;
};

bool inside(const std::vector<Interval>& ranges, TimeNs t) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [t](const Interval& r) { return t >= r.start && t <= r.end; });
}

// The compute kernels' launch calls on the thread that launched most of them (the training
// loop's), the optimizer's left out, sorted.
std::vector<LaunchCall> computeLaunches(const traces::RankTrace& t, const RankOps& marks) {
  std::unordered_map<uint32_t, LaunchCall> byCorrelation;
  for (size_t i = 0; i < t.apiCalls.size(); ++i) {
    if (t.apiCalls.correlation[i] != 0) {
      byCorrelation[t.apiCalls.correlation[i]] = {t.apiCalls.start[i], t.apiCalls.end[i],
                                                  t.apiCalls.thread[i]};
    }
  }
  std::vector<LaunchCall> all;
  std::map<traces::ThreadIndex, size_t> perThread;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (isNcclKernel(t.strings.at(t.kernels.name[i]))) continue;
    auto it = byCorrelation.find(t.kernels.correlation[i]);
    if (it == byCorrelation.end() || inside(marks.optimizer, it->second.start)) continue;
    all.push_back(it->second);
    ++perThread[it->second.thread];
  }
  if (all.empty()) return all;
  const auto main = std::max_element(perThread.begin(), perThread.end(),
                                     [](auto& a, auto& b) { return a.second < b.second; })->first;
  std::erase_if(all, [main](const LaunchCall& l) { return l.thread != main; });
  std::sort(all.begin(), all.end(),
            [](const LaunchCall& a, const LaunchCall& b) { return a.start < b.start; });
  return all;
}

bool isCall(NcclOp op) {
  return op != NcclOp::Unknown && op != NcclOp::GroupStart && op != NcclOp::GroupEnd &&
         op != NcclOp::CommInitRank && op != NcclOp::CommSplit && op != NcclOp::CommDestroy;
}

// Where the rank's compute is cut: every NCCL call (typed when it is a matched transfer along
// the chain) and the optimizer. Not the step ranges: torch's ProfilerStep#N can open after the
// step's first op began launching, and a backward followed by the next step's forward is split
// like any other pair.
std::vector<Cut> cutsOf(const traces::RankTrace& t, const RankOps& marks, uint32_t rank,
                        const CommMatches& matches, int prevRank, int nextRank) {
  std::map<int32_t, CutKind> typed;  // call row -> kind
  for (const P2pMatch& m : matches.p2p) {
    if (m.sendKernel.rank == rank && m.sendCall >= 0) {
      const int to = static_cast<int>(m.recvKernel.rank);
      typed[m.sendCall] = to == nextRank ? CutKind::ActOut
                          : to == prevRank ? CutKind::GradOut
                                           : CutKind::Other;
    }
    if (m.recvKernel.rank == rank && m.recvCall >= 0) {
      const int from = static_cast<int>(m.sendKernel.rank);
      typed[m.recvCall] = from == prevRank ? CutKind::ActIn
                          : from == nextRank ? CutKind::GradIn
                                             : CutKind::Other;
    }
  }
  std::vector<Cut> cuts;
  const auto& calls = t.ncclCalls;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (!isCall(calls.op[i])) continue;
    auto it = typed.find(static_cast<int32_t>(i));
    cuts.push_back({calls.start[i], it == typed.end() ? CutKind::Other : it->second});
  }
  for (const Interval& o : marks.optimizer) cuts.push_back({o.start, CutKind::Other});
  return cuts;
}

// The stage's ops, with only the markers of the first pass kept: kernels are attributed and
// steps cut again over the inferred ops, as for labelled ones.
RankOps withOps(const traces::RankTrace& t, const RankOps& marks, const std::vector<LaunchCall>& launches,
                const Segmentation& seg, int stage) {
  RankOps out;
  out.ruleSet = "p2p";
  out.mbInferred = true;
  out.stageFromLabels = stage;
  out.steps = marks.steps;
  out.optimizer = marks.optimizer;
  out.gradSync = marks.gradSync;
  out.otherBusy = marks.otherBusy;
  out.hostActivity = marks.hostActivity;
  for (const SegmentOp& s : seg.ops) {
    const LaunchCall& a = launches[s.begin];
    const LaunchCall& b = launches[s.end - 1];
    RecognizedOp o;
    o.op = Op{s.kind, -1, 0};
    o.start = o.launch = a.start;
    o.end = o.hostEnd = b.end;
    o.computeBusy = b.end - a.start;
    o.thread = a.thread;
    out.ops.push_back(o);
  }
  attributeKernels(t, out);
  cutSteps(out);
  numberMicrobatchesByOrder(out);
  return out;
}

}  // namespace

P2pInference inferFromP2p(const traces::Run& run, std::vector<RankOps>& ops) {
  P2pInference out;
  const size_t n = run.ranks.size();
  std::vector<RankOps> marks(n);
  for (size_t r = 0; r < n; ++r) marks[r] = recognizeWith(run.ranks[r], commonMarkers());
  const CommMatches matches = matchComms(run, marks);
  std::vector<P2pEdge> edges;
  for (const P2pMatch& m : matches.p2p) edges.push_back({m.sendKernel.rank, m.recvKernel.rank, m.sendPosted});
  const P2pChains chains = p2pChains(edges, n);
  out.notChains = chains.notChains;
  if (chains.chains.empty()) return out;

  std::vector<RankOps> inferred(n);
  for (size_t r = 0; r < n; ++r) inferred[r] = marks[r];
  for (const auto& chain : chains.chains) {
    const int p = static_cast<int>(chain.size());
    std::vector<std::vector<LaunchCall>> launches(p);
    std::vector<std::vector<Cut>> cuts(p);
    std::vector<Segmentation> segs(p);
    for (int s = 0; s < p; ++s) {
      const uint32_t r = chain[s];
      launches[s] = computeLaunches(run.ranks[r], marks[r]);
      cuts[s] = cutsOf(run.ranks[r], marks[r], r, matches, s > 0 ? static_cast<int>(chain[s - 1]) : -1,
                       s + 1 < p ? static_cast<int>(chain[s + 1]) : -1);
      std::vector<TimeNs> times;
      for (const LaunchCall& l : launches[s]) times.push_back(l.start);
      segs[s] = segmentOps(times, cuts[s], {0, 0});
    }
    // A stage with no run of one op (the last, in 1F1B) splits by its neighbour's kernel counts.
    for (int s = 0; s < p; ++s) {
      if (segs[s].splits == 0 || segs[s].splitsGuessed == 0) continue;
      std::array<size_t, 2> fallback{};
      for (int d = 1; d < p && (fallback[0] == 0 || fallback[1] == 0); ++d) {
        for (int q : {s - d, s + d}) {
          if (q < 0 || q >= p) continue;
          for (int k = 0; k < 2; ++k) {
            if (fallback[k] == 0) fallback[k] = segs[q].kernelsPerOp[k];
          }
        }
      }
      std::vector<TimeNs> times;
      for (const LaunchCall& l : launches[s]) times.push_back(l.start);
      segs[s] = segmentOps(times, cuts[s], fallback);
    }
    // A pipeline runs every microbatch's forward and backward on every stage: as many of each,
    // everywhere. Traffic that gives anything else is not a pipeline's (an all-to-all made of
    // sends and receives, a halo exchange).
    // And a microbatch's backward never comes before its forward.
    std::vector<size_t> forwards(p, 0), backwards(p, 0);
    bool pipeline = true;
    for (int s = 0; s < p; ++s) {
      for (const SegmentOp& o : segs[s].ops) {
        ++(o.kind == OpKind::F ? forwards : backwards)[s];
        pipeline = pipeline && backwards[s] <= forwards[s];
      }
    }
    pipeline = pipeline && forwards[0] > 0;
    for (int s = 0; s < p; ++s) {
      pipeline = pipeline && forwards[s] == forwards[0] && backwards[s] == forwards[0];
    }
    if (!pipeline) {
      std::string counts;
      for (int s = 0; s < p; ++s) {
        counts += (s ? ", " : "") + std::to_string(forwards[s]) + "F/" + std::to_string(backwards[s]) + "B";
      }
      out.notes.push_back("the p2p traffic of " + std::to_string(p) +
                          " ranks forms a chain but not a pipeline (forwards/backwards per rank: " +
                          counts + ")");
      continue;
    }
    for (int s = 0; s < p; ++s) {
      inferred[chain[s]] = withOps(run.ranks[chain[s]], marks[chain[s]], launches[s], segs[s], s);
      out.stretches += segs[s].stretches;
      out.unclassified += segs[s].unclassified;
      out.splits += segs[s].splits;
      out.splitsGuessed += segs[s].splitsGuessed;
    }
    ++out.pipelines;
  }
  if (out.pipelines == 0) return out;
  out.found = true;
  ops = std::move(inferred);
  return out;
}

}  // namespace bubblescope::analysis

#include "analyzer/pipeline/pipeline_trace.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "analyzer/comm/kernel_comms.h"
#include "analyzer/pipeline/clock_align.h"
#include "analyzer/result/errors.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {
namespace {

// Each stage's ops, in stage order.
using StageOps = std::vector<const RankOps*>;

StageOps stageOps(const PipelineTrace& pl) {
  StageOps out;
  for (const auto& st : pl.stages) out.push_back(&st.ops);
  return out;
}

// The largest model chunk a stage's ops name (labels: up to INT32_MAX), and the chunks a stage
// holds, no more than one past what a comm can name (buildPipeline refuses those, and a layout
// made before is not sized by a label).
int largestChunk(const RankOps& ops) {
  int largest = 0;
  for (const auto& o : ops.ops) largest = std::max(largest, o.op.chunk);
  return largest;
}
int chunksOf(const StageOps& stages) {
  int v = 1;
  for (const RankOps* st : stages) v = std::max(v, std::min(largestChunk(*st), kCommChunks) + 1);
  return v;
}

// ZB-V sends chunk 1's activations back towards stage 0; interleaving sends every chunk forward.
// Without peers in the labels, V shows in who runs chunk 1's first forward first: the last stage.
bool detectV(const StageOps& stages, int v) {
  const int p = static_cast<int>(stages.size());
  if (v != 2 || p < 2) return false;
  int votes = 0;
  for (int s = 0; s < p; ++s) {
    for (const auto& c : stages[s]->comms) {
      if (c.peer >= 0 && c.send && c.pass == OpKind::F && c.chunk == 1 && c.peer != s) {
        votes += c.peer < s ? 1 : -1;
      }
    }
  }
  if (votes != 0) return votes > 0;
  TimeNs first0 = INT64_MAX, firstLast = INT64_MAX;
  for (int s = 0; s < p; ++s) {
    for (const auto& o : stages[s]->ops) {
      if (o.op.kind != OpKind::F || o.op.chunk != 1 || o.step < 0) continue;
      if (s == 0) first0 = std::min(first0, o.start);
      if (s == p - 1) firstLast = std::min(firstLast, o.start);
    }
  }
  return firstLast < first0;
}

// Transfers whose labels do not name the other stage get it from the chunk layout: activations
// go to the next virtual stage, gradients to the previous one.
void inferPeers(PipelineTrace& pl) {
  const engine::Schedule layout = layoutOf(pl);
  const int last = layout.virtualStages() - 1;
  for (auto& st : pl.stages) {
    for (auto& c : st.ops.comms) {
      if (c.peer >= 0) continue;
      const int vs = layout.virtualStage(st.stage, c.chunk);
      const bool towardsLater = (c.pass == OpKind::F) == c.send;
      const int other = towardsLater ? vs + 1 : vs - 1;
      if (other >= 0 && other <= last) c.peer = layout.stageOf(other);
    }
  }
}

// The step a comm pairs under: its own; outside every step range, the step before it on its rank
// (it trails that step), one past the last after the last range (a step still open), and one
// before the first ahead of the first (a window that began mid-step). All keyed alike, a
// window's leading and trailing comms of one microbatch paired with each other, a window apart:
// clock alignment read that as a skew of the window's length (a live view put stage 3 a second
// late). -1 on a rank without steps.
int64_t pairingStep(const RankOps& ops, size_t comm) {
  const RecognizedComm& c = ops.comms[comm];
  if (c.step >= 0) return ops.steps[c.step].number;
  if (ops.steps.empty()) return -1;
  auto after = std::upper_bound(ops.steps.begin(), ops.steps.end(), ops.launchOf(comm),
                                [](TimeNs t, const StepMarker& s) { return t < s.start; });
  if (after == ops.steps.begin()) return ops.steps.front().number - 1;
  if (after == ops.steps.end()) return ops.steps.back().number + 1;
  return std::prev(after)->number;
}

// Sends and receives pair up per (step, pass, microbatch, sender, receiver) in time order. Each
// side is one sorted list of keyed comms, walked together: a map of lists allocated a node and a
// list per transfer, the most of what matching cost (a live watch matches every step's anew).
struct KeyedComm {
  int64_t step;
  OpKind pass;
  int mb, from, to;
  size_t index;  // in its stage's comms: all of a key's are one stage's, in time order

  auto key() const { return std::tie(step, pass, mb, from, to); }
  bool operator<(const KeyedComm& o) const {
    return std::tie(step, pass, mb, from, to, index) <
           std::tie(o.step, o.pass, o.mb, o.from, o.to, o.index);
  }
};

// A comm of stage `stage` that names a stage of the pipeline, keyed; nullopt for one that does
// not (it is matched with nothing).
std::optional<KeyedComm> keyed(const PipelineTrace& pl, size_t stage, size_t i) {
  const StageTrace& st = pl.stages[stage];
  const auto& c = st.ops.comms[i];
  if (c.peer < 0 || c.peer >= pl.p) return std::nullopt;
  const int64_t step = pairingStep(st.ops, i);
  if (c.send) return KeyedComm{step, c.pass, c.mb, st.stage, c.peer, i};
  return KeyedComm{step, c.pass, c.mb, c.peer, st.stage, i};
}

// The k-th send of a key goes with the k-th receive of the same key: take(send, receive) for
// each pair of two lists in key order, in that order.
template <class Take>
void pairUp(const std::vector<KeyedComm>& sends, const std::vector<KeyedComm>& recvs, Take&& take) {
  size_t r = 0;
  for (size_t s = 0; s < sends.size();) {
    size_t sEnd = s;
    while (sEnd < sends.size() && sends[sEnd].key() == sends[s].key()) ++sEnd;
    while (r < recvs.size() && recvs[r].key() < sends[s].key()) ++r;
    size_t rEnd = r;
    while (rEnd < recvs.size() && recvs[rEnd].key() == sends[s].key()) ++rEnd;
    for (size_t k = 0; k < std::min(sEnd - s, rEnd - r); ++k) take(sends[s + k], recvs[r + k]);
    s = sEnd;
    r = rEnd;
  }
}

// Whether each stage's steps, read along its comms in their (time) order, never fall: then a
// step's comms are one stretch of each stage's.
bool stepsRise(const PipelineTrace& pl) {
  for (size_t k = 0; k < pl.stages.size(); ++k) {
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < pl.stages[k].ops.comms.size(); ++i) {
      const std::optional<KeyedComm> c = keyed(pl, k, i);
      if (!c) continue;
      if (c->step < last) return false;
      last = c->step;
    }
  }
  return true;
}

// f(sends, receives) for each step in rising order, with the step's keyed comms in key order:
// each stage's stretch of the step taken in turn, the stages kept by their next step (a heap).
// Held one step at a time: the pipeline's keyed comms all at once (32 bytes each, 41 MB at
// 10,000 stages) came from fresh pages beside the import's freed ones, 40 MB of peak RSS, and
// their one sort at 10^6 steps took 1.4 s alone on one thread (issue 28). Needs stepsRise.
template <class F>
void forEachStep(const PipelineTrace& pl, F&& f) {
  struct Next {
    int64_t step;
    size_t stage, comm;
    bool operator>(const Next& o) const {
      return std::tie(step, stage) > std::tie(o.step, o.stage);
    }
  };
  std::priority_queue<Next, std::vector<Next>, std::greater<>> next;
  // From comm i on, stage k's next keyed comm, if it has one.
  const auto push = [&](size_t k, size_t i) {
    for (; i < pl.stages[k].ops.comms.size(); ++i) {
      if (const std::optional<KeyedComm> c = keyed(pl, k, i)) {
        next.push({c->step, k, i});
        return;
      }
    }
  };
  for (size_t k = 0; k < pl.stages.size(); ++k) push(k, 0);
  std::vector<KeyedComm> sends, recvs;
  while (!next.empty()) {
    const int64_t step = next.top().step;
    sends.clear();
    recvs.clear();
    while (!next.empty() && next.top().step == step) {
      const Next n = next.top();
      next.pop();
      size_t i = n.comm;
      for (; i < pl.stages[n.stage].ops.comms.size(); ++i) {
        const std::optional<KeyedComm> c = keyed(pl, n.stage, i);
        if (!c) continue;
        if (c->step != step) break;
        (pl.stages[n.stage].ops.comms[i].send ? sends : recvs).push_back(*c);
      }
      push(n.stage, i);
    }
    std::sort(sends.begin(), sends.end());
    std::sort(recvs.begin(), recvs.end());
    f(sends, recvs);
  }
}

std::vector<Transfer> matchTransfers(const PipelineTrace& pl) {
  // Counted first: a pipeline holds its transfers for the whole analysis, without growth slack.
  size_t pairs = 0;
  const auto count = [&](const KeyedComm&, const KeyedComm&) { ++pairs; };
  std::vector<Transfer> out;
  const auto add = [&](const KeyedComm& s, const KeyedComm& r) {
    out.push_back({s.from, s.to, static_cast<uint32_t>(s.index), static_cast<uint32_t>(r.index)});
  };
  if (stepsRise(pl)) {
    forEachStep(pl, [&](const auto& sends, const auto& recvs) { pairUp(sends, recvs, count); });
    out.reserve(pairs);
    forEachStep(pl, [&](const auto& sends, const auto& recvs) { pairUp(sends, recvs, add); });
    return out;
  }
  // Steps that fall somewhere (numbers not in time order): every comm keyed and sorted at once,
  // each side's list sized once (grown by doubling, it holds up to twice its comms).
  const auto forEachKeyed = [&](auto&& f) {
    for (size_t k = 0; k < pl.stages.size(); ++k) {
      for (size_t i = 0; i < pl.stages[k].ops.comms.size(); ++i) {
        if (const std::optional<KeyedComm> c = keyed(pl, k, i)) {
          f(*c, pl.stages[k].ops.comms[i].send);
        }
      }
    }
  };
  size_t sent = 0, received = 0;
  forEachKeyed([&](const KeyedComm&, bool send) { ++(send ? sent : received); });
  std::vector<KeyedComm> sends, recvs;
  sends.reserve(sent);
  recvs.reserve(received);
  forEachKeyed([&](const KeyedComm& c, bool send) { (send ? sends : recvs).push_back(c); });
  std::sort(sends.begin(), sends.end());
  std::sort(recvs.begin(), recvs.end());
  pairUp(sends, recvs, count);
  out.reserve(pairs);
  pairUp(sends, recvs, add);
  return out;
}

void findCommonSteps(PipelineTrace& pl, const PipelineOptions& options) {
  // Each stage's distinct numbers of steps with ops, then every stage's sorted together: a number
  // on every stage appears p times in a row. (A tree of the numbers, added to for every op, was
  // most of building a 10^6-step pipeline.)
  std::vector<int64_t> numbers;
  for (const auto& st : pl.stages) {
    std::vector<bool> hasOps(st.ops.steps.size(), false);
    for (const auto& o : st.ops.ops) {
      if (o.step >= 0) hasOps[o.step] = true;
    }
    std::vector<int64_t> own;
    for (size_t i = 0; i < hasOps.size(); ++i) {
      if (hasOps[i]) own.push_back(st.ops.steps[i].number);
    }
    std::sort(own.begin(), own.end());
    own.erase(std::unique(own.begin(), own.end()), own.end());
    numbers.insert(numbers.end(), own.begin(), own.end());
  }
  std::sort(numbers.begin(), numbers.end());
  size_t inRange = 0;
  for (size_t i = 0; i < numbers.size();) {
    size_t j = i;
    while (j < numbers.size() && numbers[j] == numbers[i]) ++j;
    const int64_t n = numbers[i];
    const auto stages = static_cast<int>(j - i);
    i = j;
    if (n < options.firstStep || n > options.lastStep) continue;
    ++inRange;
    if (stages == pl.p) pl.stepNumbers.push_back(n);
  }
  if (pl.stepNumbers.size() < inRange) {
    pl.warnings.push_back(std::to_string(inRange - pl.stepNumbers.size()) +
                          " step(s) not present on every stage were left out");
  }
  pl.stepIndex.assign(pl.p, std::vector<int>(pl.stepNumbers.size(), -1));
  // Each stage's first marker of each number, looked up once per step (10^6 steps: a scan of the
  // markers per step is quadratic, issue 28).
  for (const auto& st : pl.stages) {
    std::unordered_map<int64_t, int> first;
    first.reserve(st.ops.steps.size());
    for (size_t i = 0; i < st.ops.steps.size(); ++i) {
      first.try_emplace(st.ops.steps[i].number, static_cast<int>(i));
    }
    for (size_t k = 0; k < pl.stepNumbers.size(); ++k) {
      if (auto it = first.find(pl.stepNumbers[k]); it != first.end()) {
        pl.stepIndex[st.stage][k] = it->second;
      }
    }
  }
}

}  // namespace

std::vector<int64_t> stepsWithOps(const RankOps& ops) {
  std::vector<int64_t> out;
  // Ops come by start, so a step's ops mostly follow each other: each run of them gives one
  // number, and the sort below sorts a few numbers a step, not every op (10^6 steps).
  for (const auto& o : ops.ops) {
    if (o.step < 0) continue;
    const int64_t n = ops.steps[o.step].number;
    if (out.empty() || out.back() != n) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<int64_t> warmupStep(const std::vector<std::vector<int64_t>>& stepsOfRanks,
                                  int64_t first, int64_t last) {
  std::optional<int64_t> lowest, next;
  for (const std::vector<int64_t>& numbers : stepsOfRanks) {
    for (const int64_t n : numbers) {
      if (n < first || n > last || n == lowest) continue;
      if (!lowest || n < *lowest) {
        next = lowest;
        lowest = n;
      } else if (!next || n < *next) {
        next = n;
      }
    }
  }
  if (!next) return std::nullopt;
  return lowest;
}

std::optional<int64_t> warmupStep(const std::vector<RankOps>& ops, int64_t first, int64_t last) {
  std::vector<std::vector<int64_t>> numbers;
  numbers.reserve(ops.size());
  for (const RankOps& r : ops) numbers.push_back(stepsWithOps(r));
  return warmupStep(numbers, first, last);
}

engine::Schedule layoutOf(const PipelineTrace& pl) {
  engine::Schedule layout;
  layout.p = pl.p;
  layout.v = pl.v;
  layout.layout = pl.vLayout ? engine::ChunkLayout::V : engine::ChunkLayout::Looped;
  return layout;
}

engine::Schedule chunkLayoutOf(const Topology& topo, size_t replica,
                               const std::vector<RankOps>& ops) {
  StageOps stages;
  for (const auto& ranks : topo.ranksOf[replica]) stages.push_back(&ops[ranks.front()]);
  engine::Schedule layout;
  layout.p = topo.pp;
  layout.v = chunksOf(stages);
  layout.layout = detectV(stages, layout.v) ? engine::ChunkLayout::V : engine::ChunkLayout::Looped;
  return layout;
}

PipelineTrace buildPipeline(const Topology& topo, size_t replica, std::vector<RankOps>& ops,
                            const PipelineOptions& options) {
  PipelineTrace pl;
  pl.dpRank = topo.dpRanks[replica];
  pl.p = topo.pp;
  const auto& row = topo.ranksOf[replica];
  std::vector<int> stageOfRank(ops.size(), -1);
  for (int s = 0; s < pl.p; ++s) stageOfRank[row[s].front()] = s;
  // Sized once: 10,000 stages grown by doubling held 16,384 rows' room (2.6 MB).
  pl.stages.reserve(static_cast<size_t>(pl.p));
  for (int s = 0; s < pl.p; ++s) {
    StageTrace st;
    st.stage = s;
    st.ranks = row[s];
    st.ops = std::move(ops[row[s].front()]);
    if (!options.appliedOffsets.empty()) st.clockOffset = options.appliedOffsets[row[s].front()];
    pl.stages.push_back(std::move(st));
  }
  pl.v = chunksOf(stageOps(pl));
  // A stage's chunks are virtual stages, each a schedule's row, and what its comms name.
  for (const StageTrace& st : pl.stages) {
    if (const int chunk = largestChunk(st.ops); chunk >= kCommChunks) {
      throw AnalysisInputError("pipeline " + std::to_string(pl.dpRank) + ": the ops of stage " +
                               std::to_string(st.stage) + " (rank " +
                               std::to_string(st.ranks.front()) + ") name model chunk " +
                               std::to_string(chunk) + "; at most " + std::to_string(kCommChunks) +
                               " chunks a stage are supported");
    }
  }
  pl.vLayout = detectV(stageOps(pl), pl.v);
  // Stages whose labels name no transfer take theirs from their NCCL kernels, by the chunk
  // layout the ops (and the other stages' labelled transfers) show; which may then say more.
  if (options.comms) {
    std::vector<KernelCommStage> unlabelled;
    for (StageTrace& st : pl.stages) {
      if (!st.ops.comms.empty()) continue;
      unlabelled.push_back({&st.ops, static_cast<uint32_t>(st.ranks.front()), st.stage});
    }
    if (!unlabelled.empty()) {
      commsFromKernels(unlabelled, *options.comms, stageOfRank, layoutOf(pl));
      pl.vLayout = detectV(stageOps(pl), pl.v);
    }
  }
  inferPeers(pl);
  // From here on each comm names its other side, not the label's peer (RecognizedComm).
  linkTransfers(pl, matchTransfers(pl));
  if (options.alignClocks && options.appliedOffsets.empty()) {
    const auto offsets = estimateClockOffsets(pl, &pl.warnings);
    for (int s = 0; s < pl.p; ++s) {
      pl.stages[s].clockOffset = offsets[s];
      shiftTimes(pl.stages[s].ops, offsets[s]);
    }
  }
  findCommonSteps(pl, options);
  return pl;
}

}  // namespace bubblescope::analysis

#include "analyzer/pipeline/pipeline_trace.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
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

// Calls f(keyed, send) for each comm of the pipeline that names a stage in it, stage by stage in
// time order.
template <class F>
void forEachKeyed(const PipelineTrace& pl, F&& f) {
  for (const auto& st : pl.stages) {
    for (size_t i = 0; i < st.ops.comms.size(); ++i) {
      const auto& c = st.ops.comms[i];
      if (c.peer < 0 || c.peer >= pl.p) continue;
      const int64_t step = pairingStep(st.ops, i);
      if (c.send) {
        f(KeyedComm{step, c.pass, c.mb, st.stage, c.peer, i}, true);
      } else {
        f(KeyedComm{step, c.pass, c.mb, c.peer, st.stage, i}, false);
      }
    }
  }
}

// Both sides' keyed comms, each in key order. Their steps rise with time on each stage, so each
// comm is placed at once among its step's (a count of each step's comms first), leaving each
// step's few to sort: one sort of PP2's 4 M sends and 4 M receives at 10^6 steps took 1.4 s, on
// one thread, of an analysis of 30 (issue 28). Steps spread wider than the comms (sparse step
// numbers) are sorted as one list. Sized once: grown by doubling, the two lists of 10,000
// stages' comms held 84 MB at once where they need 41, the analysis' peak (issue 28).
void keyedInOrder(const PipelineTrace& pl, std::vector<KeyedComm>& sends,
                  std::vector<KeyedComm>& recvs) {
  size_t sent = 0, received = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  forEachKeyed(pl, [&](const KeyedComm& k, bool send) {
    ++(send ? sent : received);
    lo = std::min(lo, k.step);
    hi = std::max(hi, k.step);
  });
  // hi - lo as unsigned cannot overflow: steps are int64 and lo <= hi.
  const bool byStep = sent + received > 0 &&
                      static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) <= sent + received;
  if (!byStep) {
    sends.reserve(sent);
    recvs.reserve(received);
    forEachKeyed(pl, [&](const KeyedComm& k, bool send) { (send ? sends : recvs).push_back(k); });
    std::sort(sends.begin(), sends.end());
    std::sort(recvs.begin(), recvs.end());
    return;
  }
  const auto slot = [&](int64_t step) {
    return static_cast<size_t>(static_cast<uint64_t>(step) - static_cast<uint64_t>(lo));
  };
  const size_t steps = slot(hi) + 1;
  // Each side's next place per step: its step's count, then where its step's comms begin.
  std::vector<size_t> sendAt(steps + 1, 0), recvAt(steps + 1, 0);
  forEachKeyed(
      pl, [&](const KeyedComm& k, bool send) { ++(send ? sendAt : recvAt)[slot(k.step) + 1]; });
  for (size_t s = 1; s <= steps; ++s) {
    sendAt[s] += sendAt[s - 1];
    recvAt[s] += recvAt[s - 1];
  }
  sends.resize(sent);
  recvs.resize(received);
  forEachKeyed(pl, [&](const KeyedComm& k, bool send) {
    if (send) {
      sends[sendAt[slot(k.step)]++] = k;
    } else {
      recvs[recvAt[slot(k.step)]++] = k;
    }
  });
  // Each step's comms now end where its next place is.
  for (size_t s = 0; s < steps; ++s) {
    const size_t sendBegin = s == 0 ? 0 : sendAt[s - 1], recvBegin = s == 0 ? 0 : recvAt[s - 1];
    std::sort(sends.begin() + static_cast<ptrdiff_t>(sendBegin),
              sends.begin() + static_cast<ptrdiff_t>(sendAt[s]));
    std::sort(recvs.begin() + static_cast<ptrdiff_t>(recvBegin),
              recvs.begin() + static_cast<ptrdiff_t>(recvAt[s]));
  }
}

std::vector<Transfer> matchTransfers(const PipelineTrace& pl) {
  std::vector<KeyedComm> sends, recvs;
  keyedInOrder(pl, sends, recvs);
  // The k-th send of a key goes with the k-th receive of the same key; keys in order.
  auto pairUp = [&](auto&& take) {
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
  };
  // Counted first: a pipeline holds its transfers for the whole analysis, without growth slack.
  size_t pairs = 0;
  pairUp([&](const KeyedComm&, const KeyedComm&) { ++pairs; });
  std::vector<Transfer> out;
  out.reserve(pairs);
  pairUp([&](const KeyedComm& s, const KeyedComm& r) {
    out.push_back({s.from, s.to, static_cast<uint32_t>(s.index), static_cast<uint32_t>(r.index)});
  });
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

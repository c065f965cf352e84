#include "analyzer/timeline/step_view.h"

#include <algorithm>
#include <map>
#include <optional>
#include <span>

#include "analyzer/result/stats.h"
#include "analyzer/timeline/kept_room.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {
namespace {

// Gradients flow out of B or BW alike: both are the "backward" producer of a B transfer.
int passOf(OpKind k) {
  return k == OpKind::F ? 0 : (k == OpKind::W ? 2 : 1);
}

uint64_t opKey(int step, int pass, int mb, int chunk) {
  return (uint64_t(uint32_t(step)) << 40) ^ (uint64_t(pass) << 36) ^ (uint64_t(uint32_t(mb)) << 8) ^
         uint64_t(uint8_t(chunk));
}

// Where each step's entries of a list are, by index: from its first to past its last. The lists
// are sorted by start and steps follow one another in time, so a step's span holds its own
// entries and at most a few others at its edges (a neighbour's, or none's between markers),
// which the walk skips. 8 bytes a step, where a list of indices cost 4 bytes an entry (400 MB
// at 10^8 kernels).
struct StepSpan {
  int begin = 0, end = 0;
};

// Into `out`, one per step.
template <class List>
void spansByStep(const List& list, std::span<StepSpan> out) {
  const size_t steps = out.size();
  for (size_t i = 0; i < list.size(); ++i) {
    const int step = list[i].step;
    if (step < 0 || static_cast<size_t>(step) >= steps) continue;
    StepSpan& s = out[static_cast<size_t>(step)];
    if (s.begin == s.end) s.begin = static_cast<int>(i);
    s.end = static_cast<int>(i) + 1;
  }
}

// Calls f(index) for each entry of `list` in step `step`, in order.
template <class List, class F>
void forEachOfStep(const List& list, std::span<const StepSpan> spans, int step, F&& f) {
  const StepSpan s = spans[static_cast<size_t>(step)];
  for (int i = s.begin; i < s.end; ++i) {
    if (list[static_cast<size_t>(i)].step == step) f(i);
  }
}

// Device work sorted by start, searchable by time: the longest item bounds how far before a
// window an overlapping one can start.
template <class Work>
TimeNs longest(const std::vector<Work>& list) {
  TimeNs m = 0;
  for (const Work& w : list) m = std::max(m, w.end - w.start);
  return m;
}

// Positions by key, the first added of equal keys: a sorted array of a step's few.
class FirstByKey {
 public:
  void clear() { entries_.clear(); }
  void add(uint64_t key, size_t pos) {
    entries_.push_back({key, static_cast<uint32_t>(pos), static_cast<uint32_t>(entries_.size())});
  }
  // Equal keys in the order added, as a stable sort leaves them, with no buffer beside.
  void seal() {
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return a.key != b.key ? a.key < b.key : a.added < b.added;
    });
  }
  std::optional<uint32_t> find(uint64_t key) const {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                                     [](const Entry& e, uint64_t k) { return e.key < k; });
    if (it == entries_.end() || it->key != key) return std::nullopt;
    return it->pos;
  }

 private:
  struct Entry {
    uint64_t key;
    uint32_t pos;
    uint32_t added;  // in the room the key's alignment leaves
  };
  std::vector<Entry> entries_;
};

// What ops and receives are looked up by key: ops of a step but W (found by their B), receives
// of a step.
bool indexedOp(const RecognizedOp& o) {
  return o.step >= 0 && o.op.kind != OpKind::W;
}
bool indexedRecv(const RecognizedComm& c) {
  return !c.send && c.step >= 0;
}

// Lookups shared by every step, so that a step costs what it holds, not what the run holds:
// per stage its ops, comms and launched device work by step (a matched comm's other side is
// PipelineTrace::peerOf).
struct Index {
  struct Stage {
    // Into spans_: by step, one per step of its rank.
    std::span<const StepSpan> ops, comms, otherKernels, commKernels;
    TimeNs longestOther = 0, longestComm = 0;
    // Its host ranges (optimizer, grad sync, other busy, host activity) are by start, as the
    // recognizer writes them: searched, not scanned, per step. Checked once here.
    bool hostRangesSorted = true;
  };
  std::vector<Stage> stages;

  explicit Index(const PipelineTrace& pl) : stages(pl.p) {
    // Every stage's four lists of spans in one array, sized first: the stages' spans point
    // into it.
    size_t spanCount = 0;
    for (const auto& st : pl.stages) spanCount += 4 * st.ops.steps.size();
    spans_.resize(spanCount);
    size_t next = 0;
    const auto spansOf = [&](const auto& list, size_t steps) {
      const std::span<StepSpan> out(spans_.data() + next, steps);
      next += steps;
      spansByStep(list, out);
      return std::span<const StepSpan>(out);
    };
    for (const auto& st : pl.stages) {
      Stage& x = stages[st.stage];
      const size_t n = st.ops.steps.size();
      x.ops = spansOf(st.ops.ops, n);
      x.comms = spansOf(st.ops.comms, n);
      x.otherKernels = spansOf(st.ops.otherKernels, n);
      x.commKernels = spansOf(st.ops.commKernels, n);
      x.longestOther = longest(st.ops.otherKernels);
      x.longestComm = longest(st.ops.commKernels);
      auto byStart = [](const Interval& a, const Interval& b) { return a.start < b.start; };
      for (const auto* list :
           {&st.ops.optimizer, &st.ops.gradSync, &st.ops.otherBusy, &st.ops.hostActivity}) {
        x.hostRangesSorted =
            x.hostRangesSorted && std::is_sorted(list->begin(), list->end(), byStart);
      }
    }
  }
  Index(const Index&) = delete;  // its stages point into its own spans
  Index& operator=(const Index&) = delete;

 private:
  std::vector<StepSpan> spans_;
};

// The ops (but W) and receives of each stage's step k by key, the first of equal keys: made for
// the view of step k, which looks them up. The whole run's, held through the analysis, were 16
// bytes an op and a receive (19 MB of PP2 at 10^5 steps, issue 28). Another step's ops (an input
// held behind a transfer of a step before) are keyed when first asked for.
class StepKeys {
 public:
  // Keys step k, in the lists of the step keyed before, whose room is kept: a view is built for
  // every step of a run, and these lists allocated anew each time were a tenth of a 10^6-step
  // analysis (issue 28).
  void reset(const PipelineTrace& pl, const Index& index, size_t k) {
    pl_ = &pl;
    index_ = &index;
    k_ = k;
    ops_.resize(pl.p);
    recvs_.resize(pl.p);
    other_.clear();
    for (const auto& st : pl.stages) {
      const int stepIdx = pl.stepIndex[st.stage][k];
      keyOps(st.stage, stepIdx, ops_[st.stage]);
      const auto& comms = st.ops.comms;
      FirstByKey& recvs = recvs_[st.stage];
      recvs.clear();
      forEachOfStep(comms, index.stages[st.stage].comms, stepIdx, [&](int ci) {
        const RecognizedComm& c = comms[static_cast<size_t>(ci)];
        if (indexedRecv(c)) {
          recvs.add(opKey(c.step, c.pass == OpKind::F ? 0 : 1, c.mb, c.chunk),
                    static_cast<size_t>(ci));
        }
      });
      recvs.seal();
    }
  }

  // The op of `stage` with `key`, in its step `stepIdx` (the key's).
  std::optional<uint32_t> op(int stage, int stepIdx, uint64_t key) {
    if (stepIdx == pl_->stepIndex[stage][k_]) return ops_[stage].find(key);
    auto [it, added] = other_.try_emplace({stage, stepIdx});
    if (added) keyOps(stage, stepIdx, it->second);
    return it->second.find(key);
  }
  // The receive of `stage` with `key`, in step k.
  std::optional<uint32_t> recv(int stage, uint64_t key) const { return recvs_[stage].find(key); }

 private:
  void keyOps(int stage, int stepIdx, FirstByKey& keys) const {
    keys.clear();
    if (stepIdx < 0 || static_cast<size_t>(stepIdx) >= index_->stages[stage].ops.size()) return;
    const auto& ops = pl_->stages[stage].ops.ops;
    forEachOfStep(ops, index_->stages[stage].ops, stepIdx, [&](int i) {
      const RecognizedOp& o = ops[static_cast<size_t>(i)];
      if (indexedOp(o)) {
        keys.add(opKey(o.step, passOf(o.op.kind), o.op.mb, o.op.chunk), static_cast<size_t>(i));
      }
    });
    keys.seal();
  }

  const PipelineTrace* pl_ = nullptr;
  const Index* index_ = nullptr;
  size_t k_ = 0;
  std::vector<FirstByKey> ops_, recvs_;  // per stage, step k's
  std::map<std::pair<int, int>, FirstByKey> other_;
};

bool inMarker(const StepMarker& m, const Interval& i) {
  return i.start >= m.start && i.start <= m.end;
}

// The intervals of `list` that start inside the marker; a list `sorted` by start is searched.
template <class Out>
void inMarker(const StepMarker& m, const std::vector<Interval>& list, bool sorted, Out out) {
  auto byStart = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  if (!sorted) {
    for (const Interval& i : list) {
      if (inMarker(m, i)) out(i);
    }
    return;
  }
  auto it = std::lower_bound(list.begin(), list.end(), Interval{m.start, m.start}, byStart);
  for (; it != list.end() && it->start <= m.end; ++it) out(*it);
}

// The items of a by-start list that may overlap [from, to): from the first that can reach
// `from` (none lasts longer than `longest`) to the last that starts before `to`.
template <class Work, class F>
void overlapping(const std::vector<Work>& list, TimeNs longestItem, TimeNs from, TimeNs to, F f) {
  auto it = std::lower_bound(list.begin(), list.end(), from - longestItem,
                             [](const Work& w, TimeNs t) { return w.start < t; });
  for (; it != list.end() && it->start < to; ++it) f(*it);
}

// The stage's ops in step k, and how far they and the rest of its step's work stretch the step.
void addStageOps(const PipelineTrace& pl, const Index& index, const StageTrace& st, size_t k,
                 StepView& view) {
  auto& ss = view.stages[st.stage];
  ss.stage = st.stage;
  const int stepIdx = pl.stepIndex[st.stage][k];
  const StepMarker& marker = st.ops.steps[stepIdx];
  const Index::Stage& x = index.stages[st.stage];
  TimeNs firstLaunch = INT64_MAX;
  const StepSpan span = x.ops[static_cast<size_t>(stepIdx)];
  ss.ops.reserve(static_cast<size_t>(span.end - span.begin));  // the step's, and a few at its edges
  forEachOfStep(st.ops.ops, x.ops, stepIdx, [&](int i) {
    const auto& o = st.ops.ops[static_cast<size_t>(i)];
    ss.ops.push_back(i);
    firstLaunch = std::min(firstLaunch, st.ops.hostOf(static_cast<size_t>(i)).launch);
    view.start = std::min(view.start, o.start);
    view.end = std::max(view.end, o.end);
  });
  // Host work of the step done before the stage launched its first op (the data loading that
  // opens a step on the first stage) is the step's too: the pipeline waits for it, and a span
  // from the first op on left it between steps, in no gap and no S.
  inMarker(marker, st.ops.hostActivity, x.hostRangesSorted, [&](const Interval& h) {
    if (h.end <= firstLaunch) view.start = std::min(view.start, h.start);
  });
  // Host ranges stand for device work only in traces without kernels: with kernels, a
  // CPU-bound optimizer's range outlasts what it ran on the device.
  if (!st.ops.hasKernels) {
    for (const auto* list : {&st.ops.optimizer, &st.ops.gradSync, &st.ops.otherBusy}) {
      inMarker(marker, *list, x.hostRangesSorted,
               [&](const Interval& i) { view.end = std::max(view.end, i.end); });
    }
  }
  forEachOfStep(st.ops.comms, x.comms, stepIdx, [&](int ci) {
    view.end = std::max(view.end, st.ops.comms[static_cast<size_t>(ci)].end);
  });
  // Device work the step's host launched (the optimizer's kernels run after its range ends).
  // Without its launch a kernel's step is a guess from its own time: it does not stretch one.
  forEachOfStep(st.ops.otherKernels, x.otherKernels, stepIdx, [&](int w) {
    const DeviceWork& d = st.ops.otherKernels[static_cast<size_t>(w)];
    if (d.launch != kNoLaunch) view.end = std::max(view.end, d.end);
  });
  forEachOfStep(st.ops.commKernels, x.commKernels, stepIdx, [&](int w) {
    const CommKernel& d = st.ops.commKernels[static_cast<size_t>(w)];
    if (d.launch != kNoLaunch) view.end = std::max(view.end, d.end);
  });
}

// The step's collectives (gradient sync) per stage, and how many every stage has: the j-th of
// each is one collective, whose transfer starts when the last stage joins.
struct StepSyncs {
  std::vector<std::vector<Interval>> byStage;
  size_t common = SIZE_MAX;
  // Per sync every stage has: when the last stage joined it (found once, not once per stage).
  std::vector<TimeNs> lastJoin;
};

// Into the lists of the step before, whose room is kept (as StepKeys).
void stepSyncs(const PipelineTrace& pl, const Index& index, size_t k, StepSyncs& syncs) {
  syncs.byStage.resize(pl.p);
  for (auto& mine : syncs.byStage) mine.clear();
  syncs.common = SIZE_MAX;
  for (const auto& st : pl.stages) {
    const StepMarker& marker = st.ops.steps[pl.stepIndex[st.stage][k]];
    inMarker(marker, st.ops.gradSync, index.stages[st.stage].hostRangesSorted,
             [&](const Interval& i) { syncs.byStage[st.stage].push_back(i); });
    syncs.common = std::min(syncs.common, syncs.byStage[st.stage].size());
  }
  if (syncs.common == SIZE_MAX) syncs.common = 0;
  syncs.lastJoin.assign(syncs.common, INT64_MIN);
  for (const auto& mine : syncs.byStage) {
    for (size_t j = 0; j < syncs.common; ++j) {
      syncs.lastJoin[j] = std::max(syncs.lastJoin[j], mine[j].start);
    }
  }
}

// The stage's busy time in the step by part (compute, then exposed communication, then other
// device work, each without what the ones before cover) and what its host was doing.
void addStageBusy(const PipelineTrace& pl, const Index& index, const StageTrace& st, size_t k,
                  const StepSyncs& syncs, const StepView& view, StageStep& ss) {
  const int stepIdx = pl.stepIndex[st.stage][k];
  const StepMarker& marker = st.ops.steps[stepIdx];
  // Built in the view's own lists (cleared with their room kept) and in this thread's scratch:
  // a step's lists allocated anew for every step were most of a view's cost (issue 28).
  thread_local IntervalList compute, comm, other, idle, whole(1);
  compute.clear();
  comm.clear();
  other.clear();
  for (int i : ss.ops) {
    const auto& o = st.ops.ops[i];
    const OpKernels kernels = st.ops.kernelsOf(static_cast<size_t>(i));
    if (st.ops.hasKernels && kernels.end > kernels.begin) {
      compute.insert(compute.end(), st.ops.computeKernels.begin() + kernels.begin,
                     st.ops.computeKernels.begin() + kernels.end);
    } else {
      compute.push_back({o.start, o.end});
    }
  }
  // Communication on the device is the transfer part of each NCCL kernel (the wait before
  // it is idle); labelled transfers and syncs without kernels split the same way by label.
  const Index::Stage& x = index.stages[st.stage];
  forEachOfStep(st.ops.comms, x.comms, stepIdx, [&](int cIdx) {
    const auto ci = static_cast<size_t>(cIdx);
    const auto& c = st.ops.comms[ci];
    if (c.onDevice) return;
    TimeNs from = c.start;
    if (const std::optional<CommAt> peer = pl.peerOf(st.stage, ci)) {
      from = std::max(from, pl.stages[peer->stage].ops.comms[peer->comm].start);
    }
    if (from < c.end) comm.push_back({from, c.end});
  });
  const auto& mine = syncs.byStage[st.stage];
  for (size_t j = 0; j < mine.size(); ++j) {
    TimeNs joined = mine[j].start;
    if (j < syncs.common) joined = std::max(joined, syncs.lastJoin[j]);
    if (joined < mine[j].end) comm.push_back({joined, mine[j].end});
  }
  // Kernels by device time: a receive posted in the step before can wait into this one.
  overlapping(st.ops.commKernels, x.longestComm, view.start, view.end, [&](const CommKernel& w) {
    if (w.end > view.start && w.transferStart < view.end) comm.push_back({w.transferStart, w.end});
  });
  overlapping(st.ops.otherKernels, x.longestOther, view.start, view.end, [&](const DeviceWork& w) {
    if (w.end > view.start) other.push_back({w.start, w.end});
  });
  if (!st.ops.hasKernels) {
    for (const auto* list : {&st.ops.optimizer, &st.ops.otherBusy}) {
      inMarker(marker, *list, x.hostRangesSorted, [&](const Interval& i) { other.push_back(i); });
    }
  }
  // The union made in scratch (compute's list, joined by the others), and what it leaves idle.
  uniteInPlace(compute);
  clipInPlace(compute, view.start, view.end);
  ss.compute = totalLength(compute);
  // Each later part's length where the parts before do not cover it: what it adds to their union.
  clipInPlace(comm, view.start, view.end);
  compute.insert(compute.end(), comm.begin(), comm.end());
  uniteInPlace(compute);
  const TimeNs computeOrComm = totalLength(compute);
  ss.exposedComm = computeOrComm - ss.compute;
  clipInPlace(other, view.start, view.end);
  compute.insert(compute.end(), other.begin(), other.end());
  uniteInPlace(compute);
  ss.otherBusy = totalLength(compute) - computeOrComm;
  whole[0] = {view.start, view.end};
  subtractInto(whole, compute, idle);
  ss.idleBefore.reserve(ss.ops.size() + 1);
  forEachWindow(ss, st.ops.ops, view.start, view.end, [&](int, TimeNs from, TimeNs to) {
    ss.idleBefore.push_back(coveredLength(idle, from, to));
  });
  ss.hostActivity.clear();
  inMarker(marker, st.ops.hostActivity, x.hostRangesSorted,
           [&](const Interval& i) { ss.hostActivity.push_back(i); });
  uniteInPlace(ss.hostActivity);
}

// A hand-over from one transfer to the next on a thread or stream takes microseconds: a start
// within this of an end is that end, and a kernel that started this much after its launch waited.
constexpr TimeNs kHandOver = 50'000;
// A post that follows an op's end by no more than a launch's noise was made as that op ended.
constexpr TimeNs kPostSlack = 20'000;
// How much sooner than its receive a blocking send's record may end (two ranks' clocks, aligned).
constexpr TimeNs kReturnSlack = 5'000;

// When the transfer before comms[i] on its thread ended, if comms[i] began right then (it queued
// behind it: one link thread, one stream); kNoArrival if it began later or nothing ran before.
// The comms are by start: the one before on the thread is a short walk back.
TimeNs queuedBehind(const std::vector<RecognizedComm>& comms, size_t i) {
  const RecognizedComm& c = comms[i];
  for (size_t n = 0, j = i; j > 0 && n < 64; ++n) {
    const RecognizedComm& before = comms[--j];
    if (before.thread != c.thread || before.onDevice) continue;
    const bool queued = before.end <= c.start + kHandOver && c.start - before.end <= kHandOver;
    return queued ? before.end : kNoArrival;
  }
  return kNoArrival;
}

// The transfer on a stage that ended as `t` came (within a hand-over's noise), other than the
// comm at `self`: what a kernel launched earlier but started only at `t` waited behind on its
// stream. The comms are by start: the one that ended then began shortly before (a short walk back).
std::optional<size_t> endedAt(const std::vector<RecognizedComm>& comms, TimeNs t, size_t self) {
  auto it = std::lower_bound(comms.begin(), comms.end(), t,
                             [](const RecognizedComm& c, TimeNs x) { return c.start < x; });
  for (int n = 0; it != comms.begin() && n < 64; ++n) {
    --it;
    const auto i = static_cast<size_t>(it - comms.begin());
    if (i != self && it->onDevice && it->end <= t + kHandOver && t - it->end <= kHandOver) return i;
  }
  return std::nullopt;
}

// The transfer of the comm at (stage, i), as an input held behind it sees it.
HeldBehind heldBehindOf(const PipelineTrace& pl, StepKeys& keys, int stage, size_t i) {
  HeldBehind h;
  const std::optional<CommAt> peer = pl.peerOf(stage, i);
  if (!peer) return h;
  const RecognizedComm& q = pl.stages[stage].ops.comms[i];
  const RecognizedComm& other = pl.stages[peer->stage].ops.comms[peer->comm];
  const RecognizedComm& send = q.send ? q : other;
  const RecognizedComm& recv = q.send ? other : q;
  h.from = q.send ? stage : peer->stage;
  h.to = q.send ? peer->stage : stage;
  h.moved = std::max(q.start, other.start);
  h.end = recv.end;
  if (send.step >= 0) {
    if (const auto op =
            keys.op(h.from, send.step,
                    opKey(send.step, send.pass == OpKind::F ? 0 : 1, send.mb, send.chunk))) {
      h.producerStage = h.from;
      h.producerOp = static_cast<int>(*op);
    }
  }
  return h;
}

// A send that began as a later op of its producer's stage ended (within a launch's noise) was
// posted with that op's p2p: that op's position in the producer stage's `ops` of the step; -1
// where it began before the op after its producer ended, or at no op's end (a late host).
int sentWith(const std::vector<RecognizedOp>& ops, const std::vector<int>& stepOps, int producer,
             TimeNs began) {
  const auto at = std::lower_bound(stepOps.begin(), stepOps.end(), producer);
  if (at == stepOps.end() || *at != producer) return -1;
  int with = -1;
  for (auto j = at + 1; j != stepOps.end() && ops[*j].end <= began + kPostSlack; ++j) {
    with = static_cast<int>(j - stepOps.begin());
  }
  if (with < 0 || began > ops[stepOps[with]].end + kPostSlack) return -1;
  return with;
}

// The position of the last of a stage's step ops that ended by `t` (-1: none).
int lastEndedBy(const std::vector<RecognizedOp>& ops, const std::vector<int>& stepOps, TimeNs t) {
  const auto after =
      std::partition_point(stepOps.begin(), stepOps.end(), [&](int i) { return ops[i].end <= t; });
  return static_cast<int>(after - stepOps.begin()) - 1;
}

// The blocking batch before op `o` (its stage's transfers recorded between the previous op's
// end and its start, on a stage without kernels): for each transfer, the op after which its
// other side posted it, where that op ended before this one started (else the host did not wait
// for it: an asynchronous send).
void addBatchAwaits(const PipelineTrace& pl, const StageTrace& st, const StepView& view,
                    TimeNs prevEnd, const RecognizedOp& o, engine::Posting& posting) {
  const std::vector<RecognizedComm>& comms = st.ops.comms;
  if (st.ops.hasKernels || prevEnd == kNoArrival) return;
  auto c = std::partition_point(comms.begin(), comms.end(), [&](const RecognizedComm& x) {
    return x.start < prevEnd - kPostSlack;
  });
  for (; c != comms.end() && c->start <= o.start; ++c) {
    if (c->onDevice || c->end > o.start + kPostSlack) continue;
    const std::optional<CommAt> peer = pl.peerOf(st.stage, static_cast<size_t>(c - comms.begin()));
    if (!peer || peer->stage == st.stage) continue;
    const RecognizedComm& other = pl.stages[peer->stage].ops.comms[peer->comm];
    // A send that returned before its data arrived (its receive ended) was asynchronous
    // (posted and left to move, as isend or a buffering channel does): the host's next op
    // waited for no one there. A blocking batch's records end with its transfers.
    if (c->send && c->end + kReturnSlack < other.end) continue;
    const std::vector<int>& theirs = view.stages[peer->stage].ops;
    const int k = lastEndedBy(pl.stages[peer->stage].ops.ops, theirs, other.start + kPostSlack);
    if (k < 0 || pl.stages[peer->stage].ops.ops[theirs[k]].end > o.start + kPostSlack) continue;
    posting.awaits.push_back({peer->stage, k});
  }
}

// Each op's input: the matched receive's end, else the producer's end; when the receive waited
// on the device, when the data moved.
void addStageInputs(const PipelineTrace& pl, StepKeys& keys, const engine::Schedule& layout,
                    const StageTrace& st, size_t k, const StepView& view, StageStep& ss,
                    engine::Posting& posting) {
  const int lastVs = layout.virtualStages() - 1;
  const int stepIdx = pl.stepIndex[st.stage][k];
  TimeNs prevOpEnd = kNoArrival;
  // Each sized once: a view is built twice a step, and grown by doubling these ten lists were
  // most of its allocations.
  const size_t n = ss.ops.size();
  auto& receiveAfterPrevious = posting.receiveAfterPrevious[static_cast<size_t>(st.stage)];
  auto& sentAfterOp = posting.sentAfter[static_cast<size_t>(st.stage)];
  receiveAfterPrevious.reserve(n);
  sentAfterOp.reserve(n);
  ss.input.reserve(n);
  ss.posted.reserve(n);
  ss.sendPosted.reserve(n);
  ss.sendQueuedBehind.reserve(n);
  for (int i : ss.ops) {
    const auto& o = st.ops.ops[i];
    TimeNs arrival = kNoArrival, waitStart = kNoArrival, moved = kNoArrival;
    TimeNs posted = kNoLaunch, sent = kNoArrival, sendPosted = kNoLaunch, queued = kNoArrival;
    bool onDevice = false, buffered = false, together = false;
    int pStage = -1, pOp = -1, sentAfter = -1;
    HeldBehind held;
    const int vs = layout.virtualStage(st.stage, o.op.chunk);
    const bool forward = o.op.kind == OpKind::F;
    const bool hasInput = o.op.kind != OpKind::W && (forward ? vs > 0 : vs < lastVs);
    if (hasInput) {
      const int pvs = forward ? vs - 1 : vs + 1;
      pStage = layout.stageOf(pvs);
      const int pStepIdx = pl.stepIndex[pStage][k];
      if (const auto producer = keys.op(
              pStage, pStepIdx, opKey(pStepIdx, forward ? 0 : 1, o.op.mb, layout.chunkOf(pvs)))) {
        pOp = static_cast<int>(*producer);
        arrival = pl.stages[pStage].ops.ops[pOp].end;
      }
      // The receive that brought the input (the first that carries it).
      if (const auto r =
              keys.recv(st.stage, opKey(stepIdx, forward ? 0 : 1, o.op.mb, o.op.chunk))) {
        const size_t ci = *r;
        const auto& c = st.ops.comms[ci];
        arrival = c.end;
        waitStart = c.start;
        // NCCL moves data only while both kernels run (a rendezvous); a host-side
        // receive may find the data already there (sent eagerly), so its start says
        // nothing about when the data moved.
        onDevice = c.onDevice;
        posted = st.ops.launchOf(ci);
        const std::optional<CommAt> peer = pl.peerOf(st.stage, ci);
        if (peer.has_value()) {
          const auto& send = pl.stages[peer->stage].ops.comms[peer->comm];
          sent = send.start;
          sendPosted = pl.stages[peer->stage].ops.launchOf(peer->comm);
          if (!send.onDevice) queued = queuedBehind(pl.stages[peer->stage].ops.comms, peer->comm);
        }
        // An op-level timeline's pair whose two records begin together shows its rendezvous:
        // the data moved from then, as a device pair's kernels show it.
        if (!onDevice && peer.has_value()) {
          const auto& send = pl.stages[peer->stage].ops.comms[peer->comm];
          together = std::abs(send.start - c.start) <= kPostSlack && send.end > c.start;
          if (together) {
            // Their starts are the transfer's, not when either side was posted.
            moved = std::min(c.end, std::max(c.start, send.start));
            posted = kNoLaunch;
            sendPosted = kNoLaunch;
          }
          // A send record that begins alone is its side's post; begun together, it is the
          // sender's only where the receiver was already waiting (its stage idle since the op
          // before ended). Made as a later op of the sender's stage ended, it is the schedule's
          // batching, not a late host.
          const TimeNs began = std::max(send.start, c.start);
          if (pOp >= 0 &&
              (!together || prevOpEnd == kNoArrival || began > prevOpEnd + kPostSlack)) {
            sentAfter = sentWith(pl.stages[pStage].ops.ops, view.stages[pStage].ops, pOp,
                                 together ? began : send.start);
            if (sentAfter >= 0) sendPosted = kNoLaunch;
          }
        }
        if (onDevice && peer.has_value()) {
          const auto& send = pl.stages[peer->stage].ops.comms[peer->comm];
          moved = std::min(c.end, std::max(c.start, send.start));
          // The send was done before the receive began: NCCL had buffered the message (it fits
          // the receiver's FIFO), so the data did not wait for this receive to be posted.
          buffered = send.end <= c.start;
          // A side launched well before it started waited on its stream, behind the transfer
          // that ended as it began.
          const auto heldOn = [&](bool receiverSide) {
            const RecognizedComm& waiting = receiverSide ? c : send;
            const int side = receiverSide ? st.stage : peer->stage;
            const TimeNs launch = pl.stages[side].ops.launchOf(receiverSide ? ci : peer->comm);
            if (launch == kNoLaunch || waiting.start - launch <= kHandOver) return false;
            const auto q =
                endedAt(pl.stages[side].ops.comms, waiting.start, receiverSide ? ci : peer->comm);
            if (q) held = heldBehindOf(pl, keys, side, *q);
            return q.has_value();
          };
          // The side that started last; else the other: a send its stream held, whose receive
          // the host then posted late, still moved no sooner than that queue let it.
          const bool receiverLast = c.start >= send.start;
          if (!buffered && !heldOn(receiverLast)) heldOn(!receiverLast);
        }
      }
    }
    // Posted with the previous op's output: its receive started when that op ended (noise
    // of a launch aside), not before, and its data moved only then, unless it was buffered.
    const bool afterPrevious = (onDevice || together) && !buffered && waitStart != kNoArrival &&
                               prevOpEnd != kNoArrival && waitStart + kPostSlack >= prevOpEnd;
    // A rendezvous one side's post explains did not queue behind a transfer that ended about
    // then (a batch's records overlap on their thread).
    if (together && (afterPrevious || sentAfter >= 0)) queued = kNoArrival;
    receiveAfterPrevious.push_back(afterPrevious);
    sentAfterOp.push_back(sentAfter);
    posting.awaitBegin.push_back(static_cast<int32_t>(posting.awaits.size()));
    addBatchAwaits(pl, st, view, prevOpEnd, o, posting);
    prevOpEnd = o.end;
    ss.input.push_back({.arrival = arrival,
                        .waitStart = waitStart,
                        .moved = moved,
                        .sent = sent,
                        .producerStage = pOp >= 0 ? pStage : -1,
                        .producerOp = pOp});
    ss.posted.push_back(posted);
    ss.sendPosted.push_back(sendPosted);
    ss.sendQueuedBehind.push_back(queued);
    if (held.from >= 0) ss.heldBehind.emplace_back(static_cast<int>(ss.input.size()) - 1, held);
  }
}

}  // namespace

struct StepViews::Impl {
  Index index;
  engine::Schedule layout;
  explicit Impl(const PipelineTrace& pl) : index(pl), layout(layoutOf(pl)) {}
};

StepViews::StepViews(const PipelineTrace& pipeline)
    : pl_(pipeline), impl_(std::make_unique<const Impl>(pipeline)) {}

const HeldBehind* StageStep::heldBehindAt(int pos) const {
  const auto at = std::lower_bound(heldBehind.begin(), heldBehind.end(), pos,
                                   [](const auto& entry, int p) { return entry.first < p; });
  return at != heldBehind.end() && at->first == pos ? &at->second : nullptr;
}

StepViews::~StepViews() = default;

size_t StepViews::size() const {
  return pl_.stepNumbers.size();
}

// Empties the stage's step for the next view, keeping its lists' room.
void clearKeepingRoom(StageStep& ss) {
  static_assert(sizeof(StageStep) == 8 + 5 * sizeof(std::vector<int>) + 3 * sizeof(TimeNs) +
                                         3 * sizeof(RareTimes<kNoLaunch>),
                "StageStep changed: clear its new list here");
  ss.stage = 0;
  ss.compute = ss.exposedComm = ss.otherBusy = 0;
  ss.ops.clear();
  ss.input.clear();
  ss.posted.clear();
  ss.sendPosted.clear();
  ss.sendQueuedBehind.clear();
  ss.heldBehind.clear();
  ss.idleBefore.clear();
  ss.hostActivity.clear();
}

StepView StepViews::build(size_t k) const {
  StepView view;
  build(k, view);
  return view;
}

void StepViews::build(size_t k, StepView& view) const {
  const Index& index = impl_->index;
  view.stages.resize(pl_.p);
  for (StageStep& ss : view.stages) clearKeepingRoom(ss);
  engine::Posting& posting = view.posting;
  posting.receiveAfterPrevious.resize(pl_.p);
  posting.sentAfter.resize(pl_.p);
  for (auto& row : posting.receiveAfterPrevious) row.clear();
  for (auto& row : posting.sentAfter) row.clear();
  posting.awaitBegin.clear();
  posting.awaits.clear();
  view.index = static_cast<int>(k);
  view.number = pl_.stepNumbers[k];
  view.start = INT64_MAX;
  view.end = INT64_MIN;
  // The span first: every stage's busy time is clipped to it.
  for (const auto& st : pl_.stages) addStageOps(pl_, index, st, k, view);
  // This thread's, as the view is the caller's: their lists' room kept from step to step.
  thread_local StepSyncs syncs;
  thread_local StepKeys keys;
  stepSyncs(pl_, index, k, syncs);
  keys.reset(pl_, index, k);
  // Stage by stage in order (buildPipeline places stage s at s): the posting's awaits are flat
  // over the step's ops as observedSchedule lays them.
  posting.awaitBegin.reserve(view.opCount() + 1);
  for (const auto& st : pl_.stages) {
    StageStep& ss = view.stages[st.stage];
    addStageBusy(pl_, index, st, k, syncs, view, ss);
    addStageInputs(pl_, keys, impl_->layout, st, k, view, ss, posting);
  }
  posting.awaitBegin.push_back(static_cast<int32_t>(posting.awaits.size()));
  if (posting.awaits.empty()) posting.awaitBegin.clear();  // no op awaits any
  // Counted only as they are found, a large step's awaits are given back the room their doubling
  // left (10,000 stages: 1.9 MB under the step's peak); a small step's room is kept for the next.
  if (view.opCount() > kRoomKeptOps) posting.awaits.shrink_to_fit();
  letGoIfLarge(keys, view.opCount());
  letGoIfLarge(syncs, view.opCount());
}

std::vector<StepView> buildStepViews(const PipelineTrace& pl) {
  const StepViews builder(pl);
  std::vector<StepView> views;
  views.reserve(builder.size());
  for (size_t k = 0; k < builder.size(); ++k) views.push_back(builder.build(k));
  return views;
}

TimeNs tailOf(const PipelineTrace& pl, const StepView& view) {
  TimeNs lastOp = view.start;
  for (const StageStep& ss : view.stages) {
    for (int i : ss.ops) lastOp = std::max(lastOp, pl.stages[ss.stage].ops.ops[i].end);
  }
  return view.end - lastOp;
}

void addTransferLags(const PipelineTrace& pl, const StepView& view, LinkLags& lags) {
  for (const StageStep& ss : view.stages) {
    for (size_t j = 0; j < ss.ops.size(); ++j) {
      if (ss.input[j].producerOp < 0 || ss.input[j].arrival == kNoArrival) continue;
      const auto& producer = pl.stages[ss.input[j].producerStage].ops.ops[ss.input[j].producerOp];
      // Only where the receiver was already waiting does the arrival time show the lag.
      if (ss.input[j].waitStart != kNoArrival && ss.input[j].waitStart <= producer.end &&
          ss.input[j].arrival >= producer.end) {
        lags[{ss.input[j].producerStage, ss.stage}].push_back(ss.input[j].arrival - producer.end);
      }
    }
  }
}

LinkLags transferLagsByLink(const PipelineTrace& pl, const std::vector<StepView>& steps) {
  LinkLags lags;
  for (const StepView& view : steps) addTransferLags(pl, view, lags);
  return lags;
}

std::vector<TimeNs> transferLags(const PipelineTrace& pl, const std::vector<StepView>& steps) {
  std::vector<TimeNs> all;
  for (const auto& [link, lags] : transferLagsByLink(pl, steps)) {
    all.insert(all.end(), lags.begin(), lags.end());
  }
  return all;
}

TimeNs healthyTransfer(const LinkLags& lags) {
  std::vector<TimeNs> perLink;
  for (const auto& [link, v] : lags) {
    if (!v.empty()) perLink.push_back(median(v));
  }
  if (perLink.empty()) return 0;
  // The lower median of the links' medians: a fault on up to half the links does not own it,
  // and, unlike the fastest link's, it is not pulled down by the noise of many healthy links.
  std::sort(perLink.begin(), perLink.end());
  return perLink[(perLink.size() - 1) / 2];
}

}  // namespace bubblescope::analysis

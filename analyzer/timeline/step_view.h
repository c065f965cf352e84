#pragma once
// One step of one pipeline, stage by stage: the span [S, E], the ops in order with the arrival
// of their cross-stage inputs, and what kept the device busy (compute, the transfer part of
// communication, other work). Waiting inside a receive (before its send started) or inside a
// collective (before the last rank joined) is not busy: it is idle (analysis.md §2).
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/timeline/intervals.h"
#include "reference_engine/sim/costs.h"

namespace bubblescope::analysis {

inline constexpr TimeNs kNoArrival = INT64_MIN;

// An input's data moved late because the kernel of one side (its receive's, or its send's) was
// launched in time but started only as an earlier transfer on its stream ended (NCCL runs a pair's
// messages on one stream, in order): that transfer's link, when its own data moved and when it
// ended, and the op whose output it carried (producerStage -1: unknown). A slow link holds up
// every message queued behind it, in both directions.
struct HeldBehind {
  int from = -1, to = -1;  // its link, sender -> receiver (-1: not held behind anything)
  TimeNs moved = 0, end = 0;
  int producerStage = -1, producerOp = -1;  // index into that stage's StageTrace::ops.ops
};

// A per-op time most traces never know (an op-level timeline records no launch, so no post or
// queue shows): empty until an op has one, then one entry per op. At 10,000 stages each such
// column held as every other was 1.4 MB of unknowns (issue 28).
template <TimeNs Unknown>
class RareTimes {
 public:
  void clear() {
    times_.clear();
    size_ = 0;
  }
  void reserve(size_t n) { room_ = static_cast<uint32_t>(n); }  // for when the first is known
  void push_back(TimeNs t) {
    const bool held = times_.size() == size_ && size_ > 0;  // an earlier one was known
    if (!held && t != Unknown) {
      times_.reserve(std::max<size_t>(room_, size_ + 1));
      times_.assign(size_, Unknown);
    }
    if (held || t != Unknown) times_.push_back(t);
    ++size_;
  }
  TimeNs operator[](size_t j) const { return times_.empty() ? Unknown : times_[j]; }
  size_t size() const { return size_; }

 private:
  std::vector<TimeNs> times_;     // empty, or one per op
  uint32_t size_ = 0, room_ = 0;  // a stage's ops in one step
};

// An op's input from another stage, as the step saw it. One record an op, where a list a field
// cost each of 10,000 stages a header and a heap block five times over (1.2 MB, issue 28).
struct OpInput {
  TimeNs arrival = kNoArrival;    // when it arrived (kNoArrival if the op has none)
  TimeNs waitStart = kNoArrival;  // when its receive began waiting (kNoArrival: no receive)
  // When it began to move: both sides of the matched transfer had started (kNoArrival: unknown).
  // arrival - moved is the transfer itself; a late move is a late side, not the link.
  TimeNs moved = kNoArrival;
  TimeNs sent = kNoArrival;  // when the matched send began (kNoArrival: unknown)
  // The op that produced it (stage, index into that stage's ops; -1 if unknown).
  int producerStage = -1, producerOp = -1;
};

struct StageStep {
  int stage = 0;
  std::vector<int> ops;        // indexes into StageTrace::ops.ops, in start order
  std::vector<OpInput> input;  // per entry of `ops`
  // How it posted its receives and sends (whether its receive waited for the op before, the op
  // its input moved after, the ops its blocking batch waited for) is StepView::posting's.
  // When the host posted its receive (kNoLaunch: no receive, or the trace does not say), and
  // when the matched send was posted on the producer's side (kNoLaunch: unknown). A receive
  // posted after the stage and its data were ready is the host's delay; a send that began after
  // its producer ended (OpInput::sent), the sender's.
  RareTimes<kNoLaunch> posted;
  RareTimes<kNoLaunch> sendPosted;
  // The matched send began as the transfer before it on the sender's thread ended (within noise):
  // it queued behind that transfer, and this is when that one ended (kNoArrival: it did not
  // queue). Host-side sends (ranges) only: a kernel's queueing shows in its launch instead.
  RareTimes<kNoArrival> sendQueuedBehind;
  // The earlier transfers inputs' data queued behind, as (position in `ops`, transfer), by
  // position: an op whose input queued behind none (most) has no entry, where 40 bytes an op
  // were 6 MB of a step of 10,000 stages (issue 28). heldBehindAt reads it.
  std::vector<std::pair<int, HeldBehind>> heldBehind;
  // The earlier transfer the input of the op at `pos` queued behind; null: none found.
  const HeldBehind* heldBehindAt(int pos) const;
  // What kept the device busy in [S, E], by length: compute, then the transfer part of
  // communication that compute does not cover (exposed), then other device work that neither
  // covers. And what their union leaves idle in each window the classes split: idleBefore[j], in
  // the one before the op at j (from the latest end of the ops before it, or S, to its start),
  // idleBefore[ops.size()] in the drain (from their latest end to E). One number a window, where
  // the three parts' lists of a step of 10,000 stages were 8 MB and their union 5 (issue 28).
  TimeNs compute = 0, exposedComm = 0, otherBusy = 0;
  std::vector<TimeNs> idleBefore;
  IntervalList hostActivity;  // unrecognised host ranges (stall evidence), merged
};

// The windows a stage's step splits into around its ops (`ops`: its stage's, ss.ops indexes
// them), each as f(pos, from, to): before the op at pos, from the latest end of the ops before it
// (or `start`) to its start; then the drain, pos = ss.ops.size(), from their latest end to `end`.
// The one definition of a gap's window: the view measures each window's idle (idleBefore) and
// the classes split the same windows.
template <class F>
void forEachWindow(const StageStep& ss, const std::vector<RecognizedOp>& ops, TimeNs start,
                   TimeNs end, F&& f) {
  TimeNs prevEnd = start;
  for (size_t pos = 0; pos <= ss.ops.size(); ++pos) {
    if (pos == ss.ops.size()) {
      f(static_cast<int>(pos), prevEnd, end);
      break;
    }
    const RecognizedOp& o = ops[static_cast<size_t>(ss.ops[pos])];
    f(static_cast<int>(pos), prevEnd, std::max(prevEnd, o.start));
    prevEnd = std::max(prevEnd, o.end);
  }
}

// Each op's position in a stage's step, looked up by its index into StageTrace::ops.ops: a
// step's ops are a stretch of the stage's, so an array from the stretch's first holds them all
// and a step costs what it holds.
class StepPositions {
 public:
  // `ops`: a StageStep's, in its order.
  void clear() { pos_.clear(); }
  void assign(const std::vector<int>& ops) {
    pos_.clear();
    if (ops.empty()) return;
    const auto [lo, hi] = std::minmax_element(ops.begin(), ops.end());
    first_ = *lo;
    pos_.assign(static_cast<size_t>(*hi - *lo + 1), -1);
    for (size_t j = 0; j < ops.size(); ++j)
      pos_[static_cast<size_t>(ops[j] - first_)] = static_cast<int>(j);
  }
  // The position of op `index` in the step; -1 if it is not one of the step's.
  int at(int index) const {
    const int64_t i = int64_t{index} - first_;
    return i < 0 || i >= static_cast<int64_t>(pos_.size()) ? -1 : pos_[static_cast<size_t>(i)];
  }

 private:
  int first_ = 0;
  std::vector<int> pos_;
};

struct StepView {
  int index = 0;       // into PipelineTrace::stepNumbers
  int64_t number = 0;  // the step number in the trace
  TimeNs start = 0, end = 0;
  std::vector<StageStep> stages;
  // How the stages posted their transfers, per op of `stages` (their `ops`, stage by stage), as
  // the replays of the step's order read it: made here once rather than copied from lists of the
  // view (10,000 stages: 3.7 MB, issue 28). For stage s's op j:
  // - receiveAfterPrevious[s][j]: its receive was posted only once the op before it had finished
  //   (fused with that op's send, as batch_isend_irecv does) and its data waited for it: the input
  //   could not move earlier, whatever the producer did. Not where the send ended before the
  //   receive began (NCCL buffered the message): each transfer's rendezvous is read off its
  //   kernels.
  // - sentAfter[s][j]: its input's send was posted only as a later op of the producer's stage
  //   ended: the position, in the producer stage's `ops` of this step, of the op whose end the
  //   data moved after (-1: the producer's own end). An op-level timeline (NDTimeline) shows it
  //   where the send's record began as that op ended: Megatron-LM's interleaved 1F1B sends a
  //   forward's output in the batch after the backward it is paired with (without
  //   --overlap-p2p-communication). The schedule's, not a late host: the replays keep it.
  // - awaits[awaitBegin[i], awaitBegin[i + 1]), i its place among the step's ops: the ops on
  //   other stages it waited for through the blocking batch of transfers before it (an op-level
  //   timeline's records between the previous op and this one): for each transfer, the op after
  //   which its other side posted, as (stage, position in that stage's `ops`), where that op
  //   ended before this one started. Both empty where no op awaits any.
  engine::Posting posting;

  // Its ops on every stage.
  size_t opCount() const {
    size_t n = 0;
    for (const StageStep& ss : stages) n += ss.ops.size();
    return n;
  }
};

// Builds one step's view at a time, from lookups made once: a pass over the steps holds one
// view, not every step's (at 20,000 steps the views were a fifth of the analysis' peak).
class StepViews {
 public:
  explicit StepViews(const PipelineTrace& pipeline);  // kept by reference
  ~StepViews();
  size_t size() const;  // one per common step (PipelineTrace::stepNumbers)
  StepView build(size_t k) const;
  // The same into `view`, whose lists keep their room: a pass that builds every step into one
  // view allocates only where a step holds more than those before (a view's ~47 allocations were
  // a fifth of the analysis' at 10^5 steps, issue 28).
  void build(size_t k, StepView& view) const;

 private:
  struct Impl;
  const PipelineTrace& pl_;
  std::unique_ptr<const Impl> impl_;
};

std::vector<StepView> buildStepViews(const PipelineTrace& pipeline);

// The step's tail (gradient sync and optimizer, and any wait in them): from the last op on any
// stage to the end of the step.
TimeNs tailOf(const PipelineTrace& pipeline, const StepView& step);

// Lag between a producer's end and its consumer's input arriving, per matched transfer where the
// receiver was already waiting (else the arrival time is unknown), by link (from, to stage).
using LinkLags = std::map<std::pair<int, int>, std::vector<TimeNs>>;
void addTransferLags(const PipelineTrace& pipeline, const StepView& step, LinkLags& lags);
LinkLags transferLagsByLink(const PipelineTrace& pipeline, const std::vector<StepView>& steps);
std::vector<TimeNs> transferLags(const PipelineTrace& pipeline, const std::vector<StepView>& steps);

// What a healthy link takes: the lower median of the links' median lags. A median over all
// transfers is owned by a fault as soon as the slow links carry half of them (a comm delay on
// half the links of a short pipeline), and the ideal built on it runs slower than the job.
// 0 without any lag.
TimeNs healthyTransfer(const LinkLags& lags);

}  // namespace bubblescope::analysis

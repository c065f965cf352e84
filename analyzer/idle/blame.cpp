#include "analyzer/idle/blame.h"

#include <algorithm>
#include <stdexcept>

namespace bubblescope::analysis {
namespace {

// The walk's answer: `cause` at `op` on `stage`, in sentence `form`, naming the delay `took`.
Blamed answer(int stage, const Op& op, IdleClass cause, BlameForm form, TimeNs took = 0) {
  Blamed r;
  r.blame.stage = stage;
  r.blame.op = op;
  r.blame.cause = cause;
  r.words.form = form;
  r.words.took = took;
  return r;
}

}  // namespace

void BlameWalker::Passed::offer(TimeNs delay, Blamed b) {
  if (blame && delay <= most) return;
  most = delay;
  blame = std::move(b);
}

BlameWalker::BlameWalker(const PipelineTrace& pl, const StepView& step, const MeanCosts& costs,
                         TimeNs transfer, const engine::SimResult& measuredCosts) {
  reset(pl, step, costs, transfer, measuredCosts);
}

void BlameWalker::reset(const PipelineTrace& pl, const StepView& step, const MeanCosts& costs,
                        TimeNs transfer, const engine::SimResult& measuredCosts) {
  pl_ = &pl;
  step_ = &step;
  costs_ = &costs;
  transfer_ = transfer;
  measuredCosts_ = &measuredCosts;
  posOf_.resize(pl.p);
  freeAt_.resize(pl.p);
  outcomeOf_.resize(pl.p);
  for (int s = 0; s < pl.p; ++s) {
    posOf_[s].clear();
    freeAt_[s].clear();
    outcomeOf_[s].clear();
  }
  outcomes_.assign(1, Outcome{});
  lastStage_ = -1;
  lastPos_ = -1;
  TimeNs lastEnd = 0;
  for (const StageStep& ss : step.stages) {
    outcomeOf_[ss.stage].assign(ss.ops.size(), kUnknown);
    auto& free = freeAt_[ss.stage];
    free.reserve(ss.ops.size() + 1);  // once: grown by doubling, 10,000 stages' held twice theirs
    free.push_back(step.start);
    posOf_[ss.stage].assign(ss.ops);
    for (size_t j = 0; j < ss.ops.size(); ++j) {
      const TimeNs end = op(ss.stage, static_cast<int>(j)).end;
      free.push_back(std::max(free.back(), end));
      if (lastStage_ < 0 || end > lastEnd) {
        lastEnd = end;
        lastStage_ = ss.stage;
        lastPos_ = static_cast<int>(j);
      }
    }
  }
}

int BlameWalker::posOf(int stage, int opIndex) const {
  const int pos = posOf_[stage].at(opIndex);
  if (pos < 0) {
    throw std::out_of_range("op " + std::to_string(opIndex) + " of stage " + std::to_string(stage) +
                            " is not in the step");
  }
  return pos;
}

const RecognizedOp& BlameWalker::op(int stage, int pos) const {
  return pl_->stages[stage].ops.ops[step_->stages[stage].ops[pos]];
}

// Sleep and scheduling noise is tens of microseconds: smaller deviations explain nothing.
TimeNs BlameWalker::tolerance(const Op& o) const {
  return std::max<TimeNs>(50'000, costs_->idealOf(o) / 20);
}

TimeNs BlameWalker::readyDelay(int stage, int pos, TimeNs ready) const {
  const auto& sim = measuredCosts_->stages[stage].ops;
  if (pos >= static_cast<int>(sim.size())) return 0;
  return (ready - step_->start) - sim[pos].start;
}

TimeNs BlameWalker::upstreamDelay(int stage, int pos) const {
  return readyDelay(stage, pos, op(stage, pos).start);
}

TimeNs BlameWalker::overrun(int stage, int pos) const {
  const RecognizedOp& o = op(stage, pos);
  const TimeNs ideal = costs_->idealOf(o.op);
  return ideal > 0 ? (o.end - o.start) - ideal : 0;
}

TimeNs BlameWalker::readyTime(int stage, int pos) const {
  const StageStep& ss = step_->stages[stage];
  const TimeNs prevEnd = freeAt_[stage][pos];
  const TimeNs arrival = ss.input[pos].arrival;
  return arrival == kNoArrival ? prevEnd : std::max(prevEnd, arrival);
}

TimeNs BlameWalker::hostBusy(int stage, TimeNs from, TimeNs to) const {
  return coveredLength(step_->stages[stage].hostActivity, from, to);
}

int BlameWalker::hostNameDuring(int stage, TimeNs from, TimeNs to) const {
  const RankOps& ops = pl_->stages[stage].ops;
  if (to <= from || ops.hostActivityName.size() != ops.hostActivity.size()) return -1;
  // hostActivity is in the trace's range order, by start: the ranges that can cover the
  // interval start before its end, and the one that covers it most began shortly before (a
  // few nested ranges back), so a short walk back suffices.
  const auto& h = ops.hostActivity;
  auto it = std::lower_bound(h.begin(), h.end(), to,
                             [](const Interval& i, TimeNs t) { return i.start < t; });
  TimeNs best = 0;
  size_t bestIndex = 0;
  for (int n = 0; it != h.begin() && n < 64; ++n) {
    --it;
    const TimeNs covered = std::min(it->end, to) - std::max(it->start, from);
    if (covered > best) {
      best = covered;
      bestIndex = static_cast<size_t>(it - h.begin());
    }
  }
  if (best * 2 < to - from) return -1;
  return static_cast<int>(ops.hostActivityName[bestIndex]);
}

std::optional<Blamed> BlameWalker::ranLong(int stage, int pos) const {
  const RecognizedOp& prev = op(stage, pos);
  const TimeNs ideal = costs_->idealOf(prev.op);
  const TimeNs cost = prev.end - prev.start;
  if (ideal <= 0 || cost - ideal <= tolerance(prev.op) ||
      cost - ideal < upstreamDelay(stage, pos)) {
    return std::nullopt;
  }
  Blamed r;
  Blame& b = r.blame;
  b.stage = stage;
  b.op = prev.op;
  b.costRatio = static_cast<double>(cost) / static_cast<double>(ideal);
  b.cause = costs_->stageOf(stage, prev.op) - ideal > tolerance(prev.op) ? IdleClass::Imbalance
                                                                         : IdleClass::Jitter;
  r.words.form = BlameForm::RanLong;
  return r;
}

std::optional<Blamed> BlameWalker::latePost(int stage, int pos, TimeNs stageFree, TimeNs dataFrom,
                                            TimeNs& delay) const {
  const TimeNs posted = step_->stages[stage].posted[pos];
  const TimeNs ready = std::max(stageFree, dataFrom);
  const RecognizedOp& o = op(stage, pos);
  if (posted == kNoLaunch || posted - ready <= tolerance(o.op)) return std::nullopt;
  delay = posted - ready;
  Blamed r = answer(stage, o.op, IdleClass::HostStall, BlameForm::ReceivePostedLate, delay);
  r.words.afterStageFree = stageFree >= dataFrom;
  r.words.hostName = hostNameDuring(stage, ready, posted);
  return r;
}

std::optional<Blamed> BlameWalker::lateSend(int stage, int pos, int ps, int pp,
                                            TimeNs& delay) const {
  const StageStep& ss = step_->stages[stage];
  const RecognizedOp& producer = op(ps, pp);
  const TimeNs sent = ss.input[pos].sent;
  if (sent == kNoArrival) return std::nullopt;
  const TimeNs late = sent - producer.end;
  // The producer's own lateness is upstream's: only what the send adds after it is the sender's.
  const TimeNs overrun = (producer.end - producer.start) - costs_->idealOf(producer.op);
  if (late <= tolerance(producer.op) || late < overrun) return std::nullopt;
  const TimeNs posted = ss.sendPosted[pos];
  const TimeNs queuedBehind = ss.sendQueuedBehind[pos];
  Blamed r;
  r.blame.stage = ps;
  r.blame.op = producer.op;
  r.words.consumer = op(stage, pos).op.kind;
  // It began as the transfer before it on the link ended: queued behind that one, so the link
  // (the transfers before it ran long), not the sender, held it.
  if (queuedBehind != kNoArrival && queuedBehind > producer.end + tolerance(producer.op)) {
    r.blame.cause = IdleClass::CommStall;
    r.blame.toStage = stage;
    delay = queuedBehind - producer.end;
    r.words.form = BlameForm::SendQueued;
    r.words.took = delay;
    return r;
  }
  // Posted in time but begun late: its stream held it (a transfer queued before it), which is
  // what the walk follows next, not the sender's.
  if (posted == kNoLaunch || posted - producer.end <= tolerance(producer.op)) return std::nullopt;
  delay = posted - producer.end;
  r.blame.cause = IdleClass::HostStall;
  r.words.form = BlameForm::SendPostedLate;
  r.words.took = delay;
  r.words.hostName = hostNameDuring(ps, producer.end, posted);
  return r;
}

std::optional<Blamed> BlameWalker::heldBehind(int stage, int pos, TimeNs waited, bool& decisive,
                                              TimeNs& cost) const {
  const StageStep& ss = step_->stages[stage];
  const HeldBehind* behind = ss.heldBehindAt(pos);
  if (behind == nullptr) return std::nullopt;
  const HeldBehind& h = *behind;
  const TimeNs tol = tolerance(op(stage, pos).op);
  // The earlier transfer's own time on its link, from when both its sides had started.
  const TimeNs own = h.end - h.moved;
  const TimeNs slow = own - transfer_;
  // Healthy but in the way: the pair's messages ran one after the other (posted apart, on one
  // stream). That costs the wait only when the earlier one's own transfer is most of it; one
  // that waited for its peer is that peer's delay, which the walk follows instead.
  const bool queued = std::min(own, waited) > tol && own * 2 >= waited;
  // Less than that, it is still what the transfer cost beyond moving alone: the walk's answer
  // where the chain finds nothing else.
  decisive = slow > tol || queued;
  cost = decisive ? waited : std::min(own, waited);
  if (!decisive && cost <= tol) return std::nullopt;
  const int ps = ss.input[pos].producerStage;
  const RecognizedOp& producer = op(ps, posOf(ps, ss.input[pos].producerOp));
  Blamed r;
  Blame& b = r.blame;
  b.cause = IdleClass::CommStall;
  b.op = producer.op;
  r.words.form = BlameForm::HeldBehind;
  r.words.consumer = op(stage, pos).op.kind;
  r.words.producer = {ps, producer.op};
  r.words.took = cost;
  r.words.slowLink = slow > tol;
  if (h.producerStage >= 0) {
    const RecognizedOp& held = pl_->stages[h.producerStage].ops.ops[h.producerOp];
    r.words.held = {h.producerStage, held.op};
    if (slow > tol) b.op = held.op;
  }
  if (slow > tol) {
    // A slow link holds up what queues behind it, whichever way it runs: the link's.
    b.stage = h.from;
    b.toStage = h.to;
    r.words.beyond = slow;
  } else {
    b.stage = ps;
    b.toStage = stage;
  }
  return r;
}

BlameWalker::Move BlameWalker::Move::returning(Blamed b) {
  Move m;
  m.blame = std::move(b);
  return m;
}

BlameWalker::Move BlameWalker::Move::next(int stage, int pos, Passed offers) {
  Move m;
  m.stage = stage;
  m.pos = pos;
  m.offers = std::move(offers);
  return m;
}

bool BlameWalker::outweighs(const Passed& offers, const Outcome& next) {
  return next.returned && offers.blame && isStall(next.passed.blame->blame.cause) &&
         offers.most > next.size;
}

bool BlameWalker::Passed::names(const Blame& b, TimeNs beyond) const {
  return !isStall(b.cause) && blame && most > beyond;
}

bool BlameWalker::Passed::noteOn(Blame& b, TimeNs beyond) const {
  if (!names(b, beyond)) return false;
  b.stallPassed = blame->blame.cause;
  return true;
}

void BlameWalker::Passed::merge(const Passed& later) {
  if (later.blame) offer(later.most, *later.blame);
}

BlameWalker::Move BlameWalker::stepAt(int stage, int pos, bool first, bool fromDrain) const {
  Move m;
  // A blame returned keeps the offers made before it: a stall passed for a larger imbalance
  // still names the gap's stall piece (Blame::stallPassed).
  const auto returning = [&m](Blamed b) {
    Move r = Move::returning(std::move(b));
    r.offers = std::move(m.offers);
    return r;
  };
  // The op before it on the stage held it: did that one run long, or start late itself?
  const auto heldByOpBefore = [&]() {
    if (auto b = ranLong(stage, pos - 1)) return returning(std::move(*b));
    return Move::next(stage, pos - 1, std::move(m.offers));
  };
  const RecognizedOp& o = op(stage, pos);
  const StageStep& ss = step_->stages[stage];
  const RankOps& rank = pl_->stages[stage].ops;
  const TimeNs firstLaunch = rank.kernelsOf(static_cast<size_t>(ss.ops[pos])).firstLaunch;
  const TimeNs launch = rank.hostOf(static_cast<size_t>(ss.ops[pos])).launch;  // its range's
  const TimeNs prevEnd = freeAt_[stage][pos];
  const TimeNs arrival = ss.input[pos].arrival;
  const TimeNs ready = arrival == kNoArrival ? prevEnd : std::max(prevEnd, arrival);
  const TimeNs tol = tolerance(o.op);

  const bool hasPredecessor = pos > 0 || arrival != kNoArrival;
  // A walk that passes through the op (a knock-on: another gap's chain, or a drain's) weighs a
  // late start, post or send against the op's other pieces of delay and follows the largest; the
  // gap the op ends is that stall's own idle, whatever else held the op, and is named by it.
  const bool weigh = !first || fromDrain;
  // A late start is one piece of the op's delay; how far behind its stall-free time the op was
  // ready (or how much longer than its ideal what it was ready after ran) is another. The late
  // start is named only where it is the larger: a loaded host's 0.3 ms after an op a slow link
  // held 10 ms is not what 10 ms of knock-ons wait for. Else it is offered, and the walk goes on
  // to what the op was ready after: its input's producer, or the op before it on the stage.
  const bool inputBound =
      arrival != kNoArrival && arrival > prevEnd + tol && ss.input[pos].producerOp >= 0;
  const bool ownBound = !inputBound && pos > 0;
  bool passedLateStart = false;
  // True where the late start is the answer; else it is offered and the walk goes on.
  const auto named = [&](Blamed& b, TimeNs piece) {
    if (!weigh || (!inputBound && !ownBound)) return true;
    const int rs = inputBound ? ss.input[pos].producerStage : stage;
    const int rp = inputBound ? posOf(rs, ss.input[pos].producerOp) : pos - 1;
    if (piece >= std::max(readyDelay(stage, pos, ready), overrun(rs, rp))) return true;
    m.offers.offer(piece, std::move(b));
    passedLateStart = true;
    return false;
  };
  // Ready but not launched: the trace's launch call says the host was late. Without launch
  // calls the op's range start stands for its launch, and busy host ranges for the evidence.
  if (firstLaunch != kNoLaunch && firstLaunch - ready > tol && hasPredecessor) {
    Blamed b =
        answer(stage, o.op, IdleClass::HostStall, BlameForm::LaunchedLate, firstLaunch - ready);
    b.words.hostName = hostNameDuring(stage, ready, firstLaunch);
    if (named(b, firstLaunch - ready)) return returning(std::move(b));
  }
  if (firstLaunch != kNoLaunch && o.start - std::max(ready, firstLaunch) > tol && hasPredecessor) {
    Blamed b =
        answer(stage, o.op, IdleClass::OtherStall, BlameForm::StartedAfterLaunch, o.start - ready);
    if (named(b, o.start - std::max(ready, firstLaunch))) return returning(std::move(b));
  }
  // The step's first op on a stage that waits for no other: the span opens with its host's work
  // before it (data loading, step_view.cpp), and the pipeline waits on that.
  const TimeNs launched = firstLaunch != kNoLaunch ? firstLaunch : launch;
  if (!hasPredecessor && launched - ready > tol &&
      hostBusy(stage, ready, launched) * 2 >= launched - ready) {
    Blamed b =
        answer(stage, o.op, IdleClass::HostStall, BlameForm::FirstOpAfterHost, launched - ready);
    b.words.hostName = hostNameDuring(stage, ready, launched);
    return returning(std::move(b));
  }
  if (firstLaunch == kNoLaunch && launch - ready > tol && hasPredecessor) {
    const TimeNs late = launch - ready;
    const bool host = hostBusy(stage, ready, launch) * 2 >= late;
    Blamed b = answer(stage, o.op, host ? IdleClass::HostStall : IdleClass::OtherStall,
                      BlameForm::StartedLate, late);
    if (host) b.words.hostName = hostNameDuring(stage, ready, launch);
    if (named(b, late)) return returning(std::move(b));
  }
  if (passedLateStart && ownBound) return heldByOpBefore();
  // The input from another stage held it, unless its receive was posted only when the op
  // before ended (fused with that op's send): then the stage's own previous op held it.
  const bool ownStream = step_->posting.receiveAfterPrevious[stage][pos] && pos > 0;
  if (arrival != kNoArrival && arrival > prevEnd + tol && ss.input[pos].producerOp >= 0) {
    const int ps = ss.input[pos].producerStage;
    const int pp = posOf(ps, ss.input[pos].producerOp);
    const RecognizedOp& producer = op(ps, pp);
    // Readiness comes from the producers, never from this stage's own receive: the data could
    // move once its producer had ended and its send had begun. A receive the host posted
    // later than that, and later than the stage was free, is the host's delay, however soon
    // the data came once it was posted.
    const TimeNs sent = ss.input[pos].sent;
    const TimeNs dataFrom = sent != kNoArrival ? std::max(producer.end, sent) : producer.end;
    // With both sides' start known, the transfer itself is what the link did; else what the
    // producer's end leaves of the arrival.
    const TimeNs moved = ss.input[pos].moved;
    TimeNs from = moved != kNoArrival ? moved : dataFrom;
    // The link's own time, once both sides had started (unknown: kNoArrival). A host-side
    // receive that found its data sent eagerly ends as it starts: its link took nothing.
    const TimeNs waitStart = ss.input[pos].waitStart;
    const TimeNs bothStarted = moved != kNoArrival ? moved
                               : waitStart != kNoArrival && sent != kNoArrival
                                   ? std::max(waitStart, sent)
                                   : kNoArrival;
    const TimeNs linkPiece = bothStarted == kNoArrival ? 0 : arrival - (bothStarted + transfer_);
    TimeNs postDelay = 0;
    bool postOffered = false;
    if (auto b = latePost(stage, pos, prevEnd, dataFrom, postDelay)) {
      // The late post is one piece of the op's delay; the link's time once both sides had
      // started is another, and the lateness of what the op was ready after (the op before it
      // on the stage, or the producer) behind its stall-free time a third. The host's piece is
      // named only where it is the largest: a receive posted 2 ms late on a loaded host, for
      // data a slow link held 10 ms or after an op a stall upstream held 10 ms, came no sooner
      // for the post. Without both sides' start the arrival's lateness holds the post itself,
      // and the link's piece is unknown.
      const bool afterOwn = prevEnd >= dataFrom && pos > 0;
      const int rs = afterOwn ? stage : ps, rp = afterOwn ? pos - 1 : pp;
      const TimeNs afterPiece = std::max(upstreamDelay(rs, rp), overrun(rs, rp));
      // And the send's own lateness after its producer ended (queued behind a slow link's
      // transfer, or posted late by the sender): a receive posted 0.9 ms after data that a slow
      // link's queue held 5.6 ms is the link's knock-on first.
      const TimeNs sendPiece = sent != kNoArrival ? sent - producer.end : 0;
      // The gap the op ends runs from when its stage was free: of the pieces before the post,
      // only the data's own lateness after that (its producer's or its send's) is in it. A
      // receive posted 0.5 ms late for data a slow link's knock-ons held 1 ms past the stage's
      // free time is the link's gap too; one posted late after the data was there is the host's.
      const TimeNs inGap =
          afterOwn ? 0 : std::min(dataFrom - prevEnd, std::max(afterPiece, sendPiece));
      const bool largest =
          weigh ? postDelay >= afterPiece && postDelay >= sendPiece : postDelay >= inGap;
      if (postDelay >= linkPiece && largest) return returning(std::move(*b));
      m.offers.offer(postDelay, std::move(*b));
      postOffered = true;
      if (bothStarted != kNoArrival) from = bothStarted;
      if (weigh && afterOwn && afterPiece > linkPiece) return heldByOpBefore();
    }
    const TimeNs lateness = arrival - (from + transfer_);
    // Several causes can stack up along a chain: follow the largest. A producer that itself
    // started far behind its stall-free time points further upstream.
    const TimeNs behind = upstreamDelay(ps, pp);
    TimeNs sendDelay = 0;
    if (auto b = lateSend(stage, pos, ps, pp, sendDelay)) {
      // The send's lateness too is one piece: a send posted 0.2 ms late into a link that then
      // held it 10 ms is the link's.
      if (sendDelay >= behind && (!weigh || sendDelay >= linkPiece)) {
        return returning(std::move(*b));
      }
      m.offers.offer(sendDelay, std::move(*b));
    }
    if (lateness > tol) {
      Blamed b = answer(ps, producer.op, IdleClass::CommStall, BlameForm::SlowLink, lateness);
      b.blame.toStage = stage;
      b.words.consumer = o.op.kind;
      if (lateness >= behind) return returning(std::move(b));
      m.offers.offer(lateness, std::move(b));
    }
    // The data moved late because a side's kernel queued behind an earlier transfer on its
    // stream: a slow one there is its link's stall, in whichever direction it ran.
    if (moved != kNoArrival && moved - producer.end > tol) {
      bool decisive = false;
      TimeNs cost = 0;
      if (auto b = heldBehind(stage, pos, moved - producer.end, decisive, cost)) {
        if (decisive && cost >= behind) return returning(std::move(*b));
        m.offers.offer(cost, std::move(*b));
      }
    }
    // A receive the host posted late (offered above) moved late for the host, not for the op
    // before it: the walk goes on to what the op was ready after, its producer.
    if (ownStream && !postOffered && moved != kNoArrival && moved > producer.end + tol) {
      return heldByOpBefore();
    }
    const TimeNs cost = producer.end - producer.start;
    const TimeNs ideal = costs_->idealOf(producer.op);
    if (ideal > 0 && cost - ideal > tolerance(producer.op) && cost - ideal >= behind) {
      Blamed r;
      Blame& b = r.blame;
      b.stage = ps;
      b.op = producer.op;
      b.costRatio = static_cast<double>(cost) / static_cast<double>(ideal);
      const TimeNs stageMean = costs_->stageOf(ps, producer.op);
      b.cause =
          stageMean - ideal > tolerance(producer.op) ? IdleClass::Imbalance : IdleClass::Jitter;
      r.words.form = BlameForm::ProducerRanLong;
      return returning(std::move(r));
    }
    return Move::next(ps, pp, std::move(m.offers));
  }
  // The previous op on the stage held it. (The op a gap ends with cannot have been held by the op
  // before it, or there would be no gap; the step's last op, which a drain waits for, can.)
  if (pos > 0 && (!first || fromDrain)) return heldByOpBefore();
  return m;
}

int BlameWalker::outcomeFrom(int stage, int pos) const {
  // Walk forward to a node already settled (or one that returns, or ends), then settle the
  // nodes passed on the way in reverse: each takes what follows it, its own offers first. A
  // warm-up's path runs back through every stage: each visit keeps only the size of what it
  // passed and, where it passed a late transfer, that blame's place in `offered`.
  struct Visit {
    int stage, pos;
    TimeNs most;
    int offered;  // -1: none
  };
  std::vector<Visit> path;
  std::vector<Blamed> offered;
  std::optional<Blamed> returned;  // the last visit's, where it returned one
  int tail = kEndsEmpty;
  for (;;) {
    int& seen = outcomeOf_[stage][pos];
    if (seen >= 0) {
      tail = seen;
      break;
    }
    if (seen == kVisiting) break;  // a cycle (clocks no data could have): it ends here
    seen = kVisiting;
    Move m = stepAt(stage, pos, /*first=*/false, /*fromDrain=*/false);
    const bool onward = !m.blame && m.stage >= 0;
    int index = -1;
    if (m.offers.blame) {
      index = static_cast<int>(offered.size());
      offered.push_back(std::move(*m.offers.blame));
    }
    path.push_back({stage, pos, m.offers.most, index});
    returned = std::move(m.blame);
    if (!onward) break;
    stage = m.stage;
    pos = m.pos;
  }
  for (auto v = path.rbegin(); v != path.rend(); ++v) {
    Passed offers{v->most, std::nullopt};
    if (v->offered >= 0) offers.blame = std::move(offered[v->offered]);
    if (v == path.rbegin() && returned) {
      Outcome o{true, Passed{0, std::move(returned)}};
      o.size = o.passed.blame->words.took;
      if (offers.noteOn(o.passed.blame->blame, 0)) o.passed.most = offers.most;
      outcomes_.push_back(std::move(o));
      tail = static_cast<int>(outcomes_.size()) - 1;
    } else if (outweighs(offers, outcomes_[tail])) {
      // A larger stall passed before the one returned further on: the chain's delay is more
      // that one's (a slow link's 1.3 ms, passed on the way to a 0.3 ms queue behind a healthy
      // transfer that the slow link's knock-ons put in the way).
      Outcome o{true, Passed{0, std::move(offers.blame)}};
      o.size = offers.most;
      outcomes_.push_back(std::move(o));
      tail = static_cast<int>(outcomes_.size()) - 1;
    } else if (outcomes_[tail].returned &&
               offers.names(outcomes_[tail].passed.blame->blame, outcomes_[tail].passed.most)) {
      // A stall passed on the way to an imbalance: the gaps' stall pieces are that stall's.
      Outcome o{true, Passed{offers.most, outcomes_[tail].passed.blame}};
      offers.noteOn(o.passed.blame->blame, 0);
      outcomes_.push_back(std::move(o));
      tail = static_cast<int>(outcomes_.size()) - 1;
    } else if (!outcomes_[tail].returned && offers.blame) {
      Outcome o;
      o.passed = std::move(offers);
      o.passed.merge(outcomes_[tail].passed);
      outcomes_.push_back(std::move(o));
      tail = static_cast<int>(outcomes_.size()) - 1;
    }
    outcomeOf_[v->stage][v->pos] = tail;
  }
  return tail;
}

Blamed BlameWalker::walk(int stage, int pos, IdleClass baseline, bool fromDrain) const {
  Move m = stepAt(stage, pos, /*first=*/true, fromDrain);
  if (m.blame) {
    m.offers.noteOn(m.blame->blame, 0);
    return std::move(*m.blame);
  }
  Passed passed = std::move(m.offers);
  if (m.stage >= 0) {
    const Outcome& next = outcomes_[outcomeFrom(m.stage, m.pos)];
    if (outweighs(passed, next)) return std::move(*passed.blame);
    if (next.returned) {
      Blamed b = *next.passed.blame;
      passed.noteOn(b.blame, next.passed.most);
      return b;
    }
    passed.merge(next.passed);
  }
  if (passed.blame) return *passed.blame;
  Blamed b;
  b.blame.cause = baseline;
  b.words.form = BlameForm::Bubble;
  return b;
}

Blamed BlameWalker::startOf(int stage, int pos, IdleClass baseline) const {
  return walk(stage, pos, baseline);
}

Blamed BlameWalker::drainOf(int stage) const {
  // The step ends with the op that finishes last: why did it finish then?
  const int lastStage = lastStage_, lastPos = lastPos_;
  Blamed r;
  r.blame.cause = IdleClass::Drain;
  r.words.form = BlameForm::Drained;
  if (lastStage < 0 || lastStage == stage) return r;
  const RecognizedOp& last = op(lastStage, lastPos);
  const TimeNs ideal = costs_->idealOf(last.op);
  const TimeNs cost = last.end - last.start;
  if (ideal > 0 && cost - ideal > tolerance(last.op) &&
      cost - ideal >= upstreamDelay(lastStage, lastPos)) {
    Blame& b = r.blame;
    b.stage = lastStage;
    b.op = last.op;
    b.costRatio = static_cast<double>(cost) / static_cast<double>(ideal);
    b.cause = costs_->stageOf(lastStage, last.op) - ideal > tolerance(last.op)
                  ? IdleClass::Imbalance
                  : IdleClass::Jitter;
    r.words.form = BlameForm::LastOpRanLong;
    return r;
  }
  Blamed chain = walk(lastStage, lastPos, IdleClass::Drain, /*fromDrain=*/true);
  if (chain.blame.cause != IdleClass::Drain) {
    chain.words.lastOp = {lastStage, last.op};
    return chain;
  }
  return r;
}

}  // namespace bubblescope::analysis

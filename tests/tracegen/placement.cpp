#include "tests/tracegen/placement.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <tuple>

#include "tests/tracegen/execution.h"
#include "tests/tracegen/p2p_order.h"
#include "tests/tracegen/truth.h"
#include "tests/tracegen/zb_v_order.h"

namespace bubblescope::tracegen {
namespace {

using analysis::IdleClass;

// splitmix64: the same draws on every platform (the standard distributions are not).
class Draw {
 public:
  Draw(uint64_t seed, const std::string& name) : state_(seed) {
    for (unsigned char ch : name) state_ = (state_ ^ ch) * 0x100000001b3ull;  // FNV-1a
  }
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  // A multiple of `unit` in [lo, hi].
  TimeNs between(TimeNs lo, TimeNs hi, TimeNs unit) {
    return lo + unit * static_cast<TimeNs>(next() % static_cast<uint64_t>((hi - lo) / unit + 1));
  }

 private:
  uint64_t state_;
};

std::string ms(TimeNs t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(t) / 1e6);
  return buf;
}

std::string opName(const StageOp& o, int step) {
  const char* kind = o.pass == PassKind::F    ? "F"
                     : o.pass == PassKind::BW ? "BW"
                     : o.pass == PassKind::B  ? "B"
                                              : "W";
  std::string s = kind + std::to_string(o.mb);
  if (o.chunk != 0) s += " (chunk " + std::to_string(o.chunk) + ")";
  return s + " of step " + std::to_string(step);
}

// How far the host ran ahead of its device at each op's launch in the fault-free job: a host
// stall shorter than that is absorbed before the device notices.
std::map<std::tuple<int, int, PassKind, int, int>, TimeNs> hostLead(const JobTimeline& job) {
  std::map<std::tuple<int, int, PassKind, int, int>, TimeNs> lead;
  for (const RankTimeline& tl : job.ranks) {
    std::map<uint32_t, TimeNs> launchedAt;
    for (const ApiCall& a : tl.api) {
      if (a.launch) launchedAt[a.correlation] = a.start;
    }
    for (const OpRun& op : tl.ops) {
      const Kernel& k = tl.kernels[op.firstKernel];
      lead[{op.id.stage, op.id.step, op.id.pass, op.id.mb, op.id.chunk}] =
          std::max<TimeNs>(0, k.start - launchedAt.at(k.correlation));
    }
  }
  return lead;
}

// The ops a host stall of `kind` may fall on: with a late post, those that receive their input.
std::vector<StageOp> stallable(const JobSpec& spec, FaultKind kind, int stage, Phase phase) {
  std::vector<StageOp> ops = opsInPhase(spec, stage, phase);
  if (kind == FaultKind::HostStallAtPost) {
    std::erase_if(ops, [&](const StageOp& o) { return inputPeer(spec, stage, o) < 0; });
  }
  return ops;
}

// A host stall this much beyond the host's lead is grown while the step does not feel it (its op
// had slack: 1F1B's warm-up forwards wait for the first backward anyway), a few times at most.
constexpr double kFelt = 1.02;  // the growth of the mean step a placed host stall aims at
constexpr int kGrowths = 3;
constexpr TimeNs kGrowth = 10'000'000;

void placeHostStall(Placement& p, Draw& draw) {
  const JobSpec base = sweepBase(p.slot.job);
  const JobTimeline baseJob = execute(base);
  const std::vector<StageOp> ops = stallable(base, p.slot.kind, p.slot.stage, p.slot.phase);
  const StageOp o = ops[draw.below(static_cast<int>(ops.size()))];
  const int step = draw.below(base.steps);
  const OpId op{p.slot.stage, step, o.pass, o.mb, o.chunk};
  const TimeNs ahead = hostLead(baseJob).at({op.stage, op.step, op.pass, op.mb, op.chunk});
  const TimeNs drawn = draw.between(6'000'000, 14'000'000, 100'000);
  const double baseStep = truthOf(baseJob).measuredStep;
  TimeNs visible = drawn;
  bool felt = false;
  for (int grown = 0;; ++grown, visible += kGrowth) {
    p.spec.lateLaunches = {{op, ahead + visible, p.slot.kind == FaultKind::HostStallAtPost}};
    felt = truthOf(execute(p.spec)).measuredStep >= kFelt * baseStep;
    if (felt || grown == kGrowths) break;
  }
  p.where = opName(o, step) + ", " + ms(ahead + visible) + " (host " + ms(ahead) + " ahead";
  if (visible != drawn) p.where += "; grown from " + ms(ahead + drawn);
  if (!felt) p.where += "; the step does not feel it";
  p.where += ")";
}

// The most that `rank`'s host posted a send of `step` after the op whose output it carries had
// ended (0 where every send was posted before: the host ran ahead).
// When the host called the launch of `kernel` (-1: no launch call found).
TimeNs launchedAt(const RankTimeline& tl, int kernel) {
  for (const ApiCall& a : tl.api) {
    if (a.launch && a.correlation == tl.kernels[kernel].correlation) return a.start;
  }
  return -1;
}

TimeNs sendLateness(const JobTimeline& job, int rank, int step) {
  const RankTimeline& tl = job.ranks.at(rank);
  TimeNs most = 0;
  for (const NcclCall& c : tl.calls) {
    if (c.kind != CallKind::Send || c.step != step || c.kernel < 0) continue;
    const TimeNs posted = launchedAt(tl, c.kernel);
    TimeNs produced = -1;
    for (const OpRun& o : tl.ops) {
      if (o.id.step == step && o.id.pass == c.pass && o.id.mb == c.mb && o.id.chunk == c.chunk) {
        produced = tl.kernels[o.lastKernel].end;
      }
    }
    if (posted >= 0 && produced >= 0) most = std::max(most, posted - produced);
  }
  return most;
}

// On the slow link's receiver (or its sender), one receive from the link's other end posted late
// by a fifth to three fifths of the link's extra as the analysis measures it: the host's lead past
// readiness absorbs part of a delay, so the delay is tuned until the trace shows that lateness.
// Where no delay shows it (the host posts the receive before ops that run ahead of its op, which
// the delay holds too: a host launch stall, not a late post), or where the delay shows larger
// elsewhere (the host, still behind, posts a later send late, or the job grows by more than the
// post was late), the next op in the draw's order is tried. A host runs ahead of its device by up
// to tens of ms in these jobs (the 1F1B warm-up's forwards).
constexpr TimeNs kMostDelay = 150'000'000;

void placeLatePostUnderSlowLink(Placement& p, Draw& draw, TimeNs extra) {
  // The late host's stage, and the stage it receives from.
  const bool atSender = p.slot.kind == FaultKind::SlowLinkSenderLatePost;
  const int to = atSender ? p.slot.stage : p.slot.peer;
  const int from = atSender ? p.slot.peer : p.slot.stage;
  std::vector<StageOp> ops = opsInPhase(p.spec, to, Phase::Whole);
  std::erase_if(ops, [&](const StageOp& o) { return inputPeer(p.spec, to, o) != from; });
  for (size_t i = ops.size() - 1; i > 0; --i) std::swap(ops[i], ops[draw.below(i + 1)]);
  const int step = draw.below(p.spec.steps);
  const TimeNs target = draw.between(extra / 5, extra * 3 / 5, 10'000);
  const auto jobTime = [&](const JobTimeline& job) {
    return truthOf(job).measuredStep * static_cast<double>(p.spec.steps);
  };
  p.spec.lateLaunches.clear();
  const double linkAlone = jobTime(execute(p.spec));
  for (const StageOp& o : ops) {
    const OpId op{to, step, o.pass, o.mb, o.chunk};
    TimeNs delay = target;
    for (int tries = 0; tries < 8 && delay <= kMostDelay; ++tries) {
      p.spec.lateLaunches = {{op, delay, true}};
      const JobTimeline job = execute(p.spec);
      const TimeNs late = postLateness(job, op, from);
      if (std::abs(late - target) <= 20'000) {
        if (jobTime(job) - linkAlone > static_cast<double>(extra * 3 / 5 + 100'000) ||
            sendLateness(job, to, step) > late + 20'000) {
          break;
        }
        p.where = "every transfer +" + ms(extra) + "; the receive of " + opName(o, step) +
                  " on stage " + std::to_string(to) + " posted " + ms(delay) + " late, " +
                  ms(late) + " after it could have been";
        return;
      }
      delay = std::max<TimeNs>(0, delay + target - late);
    }
  }
  throw std::logic_error("tracegen: no receive of stage " + std::to_string(to) + " from stage " +
                         std::to_string(from) + " shows a late post (" + p.slot.name + ")");
}

}  // namespace

const char* sweepJobName(SweepJob job) {
  switch (job) {
    case SweepJob::OneF1BFused:
      return "OneF1BFused";
    case SweepJob::OneF1BUnfused:
      return "OneF1BUnfused";
    case SweepJob::ZbV:
      return "ZbV";
    case SweepJob::Interleaved:
      return "Interleaved";
  }
  return "?";
}

const char* faultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::None:
      return "FaultFree";
    case FaultKind::SlowStage:
      return "SlowStage";
    case FaultKind::HostStall:
      return "HostStall";
    case FaultKind::HostStallAtPost:
      return "HostStallAtPost";
    case FaultKind::SlowLink:
      return "SlowLink";
    case FaultKind::SlowLinkLatePost:
      return "SlowLinkLatePost";
    case FaultKind::SlowLinkSenderLatePost:
      return "SlowLinkSenderLatePost";
  }
  return "?";
}

const char* phaseName(Phase phase) {
  switch (phase) {
    case Phase::Warmup:
      return "Warmup";
    case Phase::Steady:
      return "Steady";
    case Phase::Drain:
      return "Drain";
    case Phase::Whole:
      return "Whole";
  }
  return "?";
}

JobSpec sweepBase(SweepJob job) {
  JobSpec s;
  s.fuseP2p = job != SweepJob::OneF1BUnfused;
  if (job == SweepJob::ZbV) {
    // As zbVCases(): each chunk half a 1F1B stage, W a little cheaper than B.
    s.schedule = JobSchedule::ZbV;
    s.costF = 1'000'000;
    s.costB = 1'000'000;
    s.costW = 800'000;
  }
  if (job == SweepJob::Interleaved) {
    // Each chunk half a 1F1B stage, as on ZB-V.
    s.schedule = JobSchedule::Interleaved;
    s.costF = 1'000'000;
    s.costBW = 2'000'000;
  }
  return s;
}

std::vector<StageOp> opsInPhase(const JobSpec& spec, int stage, Phase phase) {
  const std::vector<StageOp> order = stageOrder(spec, stage);
  if (phase == Phase::Whole) return order;
  const auto firstBackward =
      std::find_if(order.begin(), order.end(), [](const StageOp& o) { return isBackward(o.pass); });
  const auto lastForward = std::find_if(order.rbegin(), order.rend(), [](const StageOp& o) {
                             return o.pass == PassKind::F;
                           }).base();  // one past it
  if (phase == Phase::Warmup) return {order.begin(), firstBackward};
  if (phase == Phase::Steady) return {firstBackward, std::max(firstBackward, lastForward)};
  return {std::max(firstBackward, lastForward), order.end()};
}

std::vector<Slot> sweepSlots() {
  std::vector<Slot> out;
  for (SweepJob job :
       {SweepJob::OneF1BFused, SweepJob::OneF1BUnfused, SweepJob::ZbV, SweepJob::Interleaved}) {
    const JobSpec base = sweepBase(job);
    const std::string prefix = std::string(sweepJobName(job)) + "_";
    out.push_back({prefix + "FaultFree", job, FaultKind::None, Phase::Whole, -1, -1});
    for (int s = 0; s < base.p; ++s) {
      out.push_back({prefix + "SlowStage_Stage" + std::to_string(s), job, FaultKind::SlowStage,
                     Phase::Whole, s, -1});
    }
    for (FaultKind kind : {FaultKind::HostStall, FaultKind::HostStallAtPost}) {
      for (int s = 0; s < base.p; ++s) {
        for (Phase phase : {Phase::Warmup, Phase::Steady, Phase::Drain}) {
          // No receive in the phase to post late: the plain host stall covers it.
          if (stallable(base, kind, s, phase).empty()) continue;
          out.push_back(
              {prefix + faultKindName(kind) + "_Stage" + std::to_string(s) + "_" + phaseName(phase),
               job, kind, phase, s, -1});
        }
      }
    }
    for (FaultKind kind :
         {FaultKind::SlowLink, FaultKind::SlowLinkLatePost, FaultKind::SlowLinkSenderLatePost}) {
      for (auto [from, to] : links(base)) {
        out.push_back(
            {prefix + faultKindName(kind) + "_" + std::to_string(from) + "to" + std::to_string(to),
             job, kind, Phase::Whole, from, to});
      }
    }
  }
  return out;
}

Placement place(const Slot& slot, uint64_t seed) {
  Draw draw(seed, slot.name);
  Placement p;
  p.slot = slot;
  p.spec = sweepBase(slot.job);
  // Clocks as far apart as NTP leaves hosts, and the profiler's step range opening a few µs into
  // the step's first op (cases.cpp's realistic job).
  for (int r = 0; r < p.spec.p; ++r) {
    p.spec.clockSkew.push_back(draw.between(-1'000'000, 1'000'000, 10'000));
  }
  p.spec.stepRangeLag = 6'000;
  switch (slot.kind) {
    case FaultKind::None:
      p.where = "no fault";
      if (slot.job == SweepJob::OneF1BUnfused || slot.job == SweepJob::Interleaved) {
        // Posted alone, a pair's two messages queue one behind the other on the pair's stream:
        // data comes later than its producer's end and a transfer, on every link (the truth's
        // ideal posts them fused, or each on its own stream, truth.h). Interleaving's pairs carry
        // both directions at once through most of the step (ZB-V's seldom do: its S is 1).
        p.cls = IdleClass::CommStall;
        for (int s = 0; s < p.spec.p; ++s) p.culpritStages.push_back(s);
      }
      break;
    case FaultKind::SlowStage: {
      p.spec.slowStage = slot.stage;
      p.spec.slowFactor = 1.0 + static_cast<double>(draw.between(20, 50, 5)) / 100.0;
      char factor[16];
      std::snprintf(factor, sizeof factor, "%.2fx", p.spec.slowFactor);
      p.where = std::string("every op ") + factor;
      p.cls = IdleClass::Imbalance;
      p.culpritStages = {slot.stage};
      break;
    }
    case FaultKind::HostStall:
    case FaultKind::HostStallAtPost:
      placeHostStall(p, draw);
      p.cls = IdleClass::HostStall;
      p.culpritStages = {slot.stage};
      break;
    case FaultKind::SlowLink: {
      const TimeNs extra = draw.between(1'000'000, 2'000'000, 100'000);
      p.spec.slowLinks.push_back({slot.stage, slot.peer, extra});
      p.where = "every transfer +" + ms(extra);
      p.cls = IdleClass::CommStall;
      p.culpritStages = {slot.stage, slot.peer};
      break;
    }
    case FaultKind::SlowLinkLatePost:
    case FaultKind::SlowLinkSenderLatePost: {
      const TimeNs extra = draw.between(1'000'000, 2'000'000, 100'000);
      p.spec.slowLinks.push_back({slot.stage, slot.peer, extra});
      placeLatePostUnderSlowLink(p, draw, extra);
      p.cls = IdleClass::CommStall;
      p.culpritStages = {slot.stage, slot.peer};
      break;
    }
  }
  return p;
}

TimeNs postLateness(const JobTimeline& job, const OpId& op, int from) {
  const RankTimeline& tl = job.ranks.at(op.stage);
  // The input left its producer's chunk: the op's own but where interleaving's loop wraps.
  const int sentChunk = inputOf(job.spec, op.stage, {op.pass, op.mb, op.chunk}).op.chunk;
  const auto isInput = [&](const NcclCall& c, CallKind kind, int peer) {
    return c.kind == kind && c.peer == peer && c.step == op.step && c.pass == op.pass &&
           c.mb == op.mb && c.chunk == (kind == CallKind::Recv ? op.chunk : sentChunk);
  };
  TimeNs posted = -1, sent = -1;
  for (const NcclCall& c : tl.calls) {
    if (!isInput(c, CallKind::Recv, from) || c.kernel < 0) continue;
    posted = launchedAt(tl, c.kernel);
    break;
  }
  for (const NcclCall& c : job.ranks.at(from).calls) {
    if (isInput(c, CallKind::Send, op.stage) && c.kernel >= 0) {
      sent = job.ranks.at(from).kernels[c.kernel].start;
      break;
    }
  }
  TimeNs opStart = -1, free = 0;
  for (const OpRun& o : tl.ops) {
    if (o.id.step == op.step && o.id.pass == op.pass && o.id.mb == op.mb &&
        o.id.chunk == op.chunk) {
      opStart = tl.kernels[o.firstKernel].start;
    }
  }
  for (const OpRun& o : tl.ops) {
    if (o.id.step == op.step && tl.kernels[o.firstKernel].start < opStart) {
      free = std::max(free, tl.kernels[o.lastKernel].end);
    }
  }
  if (posted < 0 || sent < 0 || opStart < 0) return 0;
  return posted - std::max(free, sent);
}

uint64_t seededIndex(uint64_t seed, const std::string& name, uint64_t n) {
  return Draw(seed, name).next() % n;
}

}  // namespace bubblescope::tracegen

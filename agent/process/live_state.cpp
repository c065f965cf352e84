#include "agent/process/live_state.h"

#include <algorithm>

#include "agent/core/clock.h"
#include "agent/core/open_ranges.h"
#include "agent/core/recorder.h"
#include "agent/nccl/recent_calls.h"
#include "agent/nvtx/nvtx_registry.h"

namespace bubblescope::agent {
namespace {

TickAnchor g_startAnchor;

}  // namespace

void initLiveState() {
  g_startAnchor = readTickAnchor();
}

control::LiveSnapshot gatherLiveSnapshot() {
  control::LiveSnapshot s;
  // Two anchors, the process's start and now: the invariant TSC's rate over that baseline is
  // far finer than the 0.1 s a dormant push is stamped to.
  TickConverter ticks(!ticksAreTsc());
  ticks.addAnchor(g_startAnchor);
  ticks.addAnchor(readTickAnchor());
  s.aliveNs = realtimeNs();

  std::vector<OpenRangeCopy> copies;
  copyOpenRanges(generationOf(controlWord()), copies);
  for (const OpenRangeCopy& c : copies) {
    const OpenRange& e = c.range;
    control::LiveRange r;
    r.tid = c.tid;
    r.depth = c.depth;
    r.startNs = ticks.toNs(e.startTicks);
    if (const auto* domain = static_cast<const NvtxDomain*>(e.domain)) r.domain = domain->name;
    if (const auto* registered = static_cast<const NvtxString*>(e.registered)) {
      r.name = registered->text;
    } else {
      r.name.assign(e.text, std::min<uint32_t>(e.textSize, kMaxMessageBytes));
    }
    s.ranges.push_back(std::move(r));
  }

  std::vector<RecentCall> calls;
  std::vector<CallCount> counts;
  s.ncclRead = copyRecentCalls(calls, counts);
  for (const RecentCall& rc : calls) {
    control::LiveCall c;
    c.fields() = rc;
    c.startNs = ticks.toNs(rc.startTicks);
    c.endNs = rc.endTicks != 0 ? ticks.toNs(rc.endTicks) : 0;
    c.tid = rc.tid;
    s.calls.push_back(c);
  }
  for (const CallCount& cc : counts) {
    control::LiveCount c;
    c.kind = cc.kind == CallCount::Kind::Send   ? "send"
             : cc.kind == CallCount::Kind::Recv ? "recv"
                                                : "collective";
    c.comm = cc.comm;
    c.peer = cc.peer;
    c.calls = cc.calls;
    c.commRank = cc.commRank;
    s.counts.push_back(std::move(c));
  }
  return s;
}

}  // namespace bubblescope::agent

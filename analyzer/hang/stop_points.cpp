#include "analyzer/hang/stop_points.h"

#include <signal.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>

#include "analyzer/comm/comm_match.h"
#include "analyzer/hang/receive_ranges.h"
#include "analyzer/pipeline/topology.h"

namespace bubblescope::analysis::hang {
namespace {

using traces::RankTrace;

std::optional<int> parseInt(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || s.empty()) return std::nullopt;
  return v;
}

int extraInt(const traces::RankMeta& meta, const char* key, int fallback) {
  auto it = meta.extra.find(key);
  if (it == meta.extra.end()) return fallback;
  return parseInt(it->second).value_or(fallback);
}

bool isOpName(std::string_view n) {
  return (n.starts_with("F ") || n.starts_with("B ") || n.starts_with("W ") ||
          n.starts_with("BW ")) &&
         n.find("mb=") != std::string_view::npos;
}

// When the rank was last seen: the trace's alive stamp, else its last event.
TimeNs lastSeen(const RankTrace& t) {
  TimeNs last = t.meta.aliveNs;
  if (t.ranges->size() != 0)
    last = std::max(last, *std::max_element(t.ranges->end.begin(), t.ranges->end.end()));
  if (t.ncclCalls->size() != 0) last = std::max(last, t.ncclCalls->end.back());
  for (const auto& w : t.meta.captureWindows) last = std::max(last, w.end);
  return last;
}

// Every capture window ended: the agent closed the file. A trace with no windows at all
// (imported from another recorder) tells nothing of how its process ended: taken as ended unless
// it holds open ranges.
bool closedCleanly(const RankTrace& t) {
  const auto& w = t.meta.captureWindows;
  if (w.empty()) return t.openRanges->size() == 0;
  return std::all_of(w.begin(), w.end(), [](const auto& x) { return x.end != 0; });
}

// An open range the trace also holds as closed (it ended between the snapshot and the drain).
bool alsoClosed(const RankTrace& t, size_t open) {
  const auto& r = *t.ranges;
  const TimeNs start = t.openRanges->start[open];
  auto it = std::lower_bound(r.start.begin(), r.start.end(), start);
  for (size_t i = static_cast<size_t>(it - r.start.begin()); i < r.size() && r.start[i] == start;
       ++i) {
    if (r.thread[i] == t.openRanges->thread[open] && r.name[i] == t.openRanges->name[open])
      return true;
  }
  return false;
}

}  // namespace

std::vector<size_t> stillOpenRanges(const traces::RankTrace& t) {
  std::vector<size_t> open;
  for (size_t k = 0; k < t.openRanges->size(); ++k) {
    if (!alsoClosed(t, k)) open.push_back(k);
  }
  const auto& o = *t.openRanges;
  // Ranges pushed while dormant carry a start a tenth of a second coarse, and a live answer lists
  // the innermost first: among equal starts, the outer (lower depth) comes first.
  std::stable_sort(open.begin(), open.end(), [&](size_t a, size_t b) {
    return o.start[a] != o.start[b] ? o.start[a] < o.start[b] : o.depth[a] < o.depth[b];
  });
  return open;
}

std::vector<RankStop> stopPoints(const traces::Run& run) {
  const std::vector<int> global = globalRanks(run);
  std::map<std::pair<int, int>, int> byStage;  // (dp, stage) -> index
  std::map<int, int> stages;                   // dp -> stages in that replica
  std::vector<int> dp(run.ranks.size());
  std::vector<RankStop> out(run.ranks.size());
  TimeNs latest = 0;
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    const RankTrace& t = run.ranks[i];
    RankStop& s = out[i];
    s.rank = global[i];
    s.stage = gridRank(t, "BUBBLESCOPE_PP_RANK").value_or(-1);
    s.label = s.stage >= 0 ? "stage " + std::to_string(s.stage) : "rank " + std::to_string(s.rank);
    if (s.stage < 0) s.stage = s.rank;
    dp[i] = gridRank(t, "BUBBLESCOPE_DP_RANK").value_or(0);
    s.file = t.file.filename().string();
    s.aliveNs = lastSeen(t);
    latest = std::max(latest, s.aliveNs);
    byStage.emplace(std::pair{dp[i], s.stage}, static_cast<int>(i));
    ++stages[dp[i]];
  }
  // Who a receive range of run index i waits on: the rank, or the stage its name says when the
  // run holds no trace of it (Wait::missingStage).
  auto waitOn = [&](size_t i, std::string_view name, Wait& w) {
    const auto recv = receiveRange(name);
    if (!recv) return;
    const int from = senderStage(*recv, out[i].stage, stages[dp[i]]);
    if (auto peer = byStage.find({dp[i], from}); peer != byStage.end()) {
      w.on.push_back(peer->second);
    } else if (from >= 0 && from != out[i].stage) {
      w.missingStage = from;
    }
  };
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    const RankTrace& t = run.ranks[i];
    RankStop& s = out[i];
    if (t.meta.source == "live") {
      s.end = RankEnd::Running;
      s.opsInStep = -1;  // a live answer holds no finished ops
    } else if (closedCleanly(t)) {
      s.end = RankEnd::Clean;
    } else {
      // Its trace just ends: dead if the agent saw it crash (a fatal signal), or if the others
      // lived on well after it.
      const int sig = extraInt(t.meta, "end_signal", 0);
      const bool crashed =
          sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
      const bool outlived = crashed || latest - s.aliveNs > kDeadGapNs;
      s.end = outlived ? RankEnd::Died : RankEnd::Stopped;
    }
    const std::vector<size_t> open = stillOpenRanges(t);
    const auto& o = *t.openRanges;
    TimeNs stepStart = -1;
    traces::ThreadIndex stepThread = 0;
    for (size_t k : open) {
      const std::string_view name = t.strings.at(o.name[k]);
      s.open.emplace_back(name);
      if (isStepRange(name)) {
        s.step = std::string(name);
        stepStart = o.start[k];
        stepThread = o.thread[k];
      }
    }
    for (auto it = open.rbegin(); it != open.rend(); ++it) {
      const std::string_view name = t.strings.at(o.name[*it]);
      if (!receiveRange(name)) continue;
      Wait w;
      w.what = std::string(name);
      w.since = o.start[*it];
      waitOn(i, name, w);
      s.waits.push_back(std::move(w));
    }
    // The last op finished, and those of the step it stopped in.
    const auto& r = *t.ranges;
    if (s.waits.empty()) {
      // A rank that unwound when its peer vanished (an exception out of the receive, a
      // watchdog's abort) closed the receive it was blocked in: its last range, ended as the
      // process ended, with nothing run after it.
      size_t last = r.size();
      for (size_t k = 0; k < r.size(); ++k) {
        if (last == r.size() || r.end[k] > r.end[last]) last = k;
      }
      if (last < r.size()) {
        const TimeNs end = r.end[last];
        TimeNs lastRecvEnd = -1;
        std::vector<int8_t> isReceive(t.strings.size(), -1);
        size_t recv = r.size();
        for (size_t k = 0; k < r.size(); ++k) {
          if (r.thread[k] != r.thread[last]) continue;
          // A rule set's patterns per name, not per range: a few names, many ranges.
          int8_t& known = isReceive[r.name[k]];
          if (known < 0) known = receiveRange(t.strings.at(r.name[k])) ? 1 : 0;
          if (known == 0) continue;
          if (r.end[k] > lastRecvEnd) {
            lastRecvEnd = r.end[k];
            recv = k;
          }
        }
        bool ranAfter = false;
        for (size_t k = 0; k < r.size() && recv < r.size(); ++k) {
          ranAfter = ranAfter || (r.thread[k] == r.thread[recv] && r.start[k] > r.end[recv]);
        }
        if (recv < r.size() && !ranAfter && s.aliveNs - end < kDeadGapNs &&
            r.end[recv] - r.start[recv] >= kUnwoundWaitNs) {
          const std::string_view name = t.strings.at(r.name[recv]);
          Wait w;
          w.what = std::string(name);
          w.since = r.start[recv];
          w.unwoundAt = r.end[recv];
          waitOn(i, name, w);
          s.waits.push_back(std::move(w));
        }
      }
    }
    for (size_t k = 0; k < r.size(); ++k) {
      const std::string_view name = t.strings.at(r.name[k]);
      if (!isOpName(name)) continue;
      if (r.end[k] >= s.lastOpEnd) {
        s.lastOpEnd = r.end[k];
        s.lastOp = std::string(name);
      }
      if (stepStart >= 0 && r.thread[k] == stepThread && r.start[k] >= stepStart) {
        ++s.opsInStep;
        s.opsDoneInStep.emplace_back(name);
      }
    }
  }
  return out;
}

}  // namespace bubblescope::analysis::hang

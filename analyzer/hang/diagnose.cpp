#include "analyzer/hang/diagnose.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>

#include "analyzer/hang/receive_ranges.h"

namespace bubblescope::analysis::hang {
namespace {

std::string seconds(TimeNs ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string labels(const std::vector<RankStop>& ranks, const std::vector<int>& idx) {
  std::string s;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (k > 0) s += k + 1 == idx.size() ? " and " : ", ";
    s += ranks[static_cast<size_t>(idx[k])].label;
  }
  return s;
}

// Follows each rank's first wait target from `start`; returns the cycle it runs into, if any.
std::vector<int> cycleFrom(const std::vector<RankStop>& ranks, int start) {
  std::vector<int> path;
  int at = start;
  while (at >= 0) {
    if (auto seen = std::find(path.begin(), path.end(), at); seen != path.end()) {
      return std::vector<int>(seen, path.end());
    }
    path.push_back(at);
    const RankStop& r = ranks[static_cast<size_t>(at)];
    at = r.waits.empty() || r.waits.front().on.empty() ? -1 : r.waits.front().on.front();
  }
  return {};
}

// Where a chain of waits from `start` ends: a rank that waits on nobody.
int sinkFrom(const std::vector<RankStop>& ranks, int start) {
  int at = start;
  for (size_t steps = 0; steps <= ranks.size(); ++steps) {
    const RankStop& r = ranks[static_cast<size_t>(at)];
    if (r.waits.empty() || r.waits.front().on.empty()) return at;
    at = r.waits.front().on.front();
  }
  return -1;
}

std::string waitClause(const RankStop& r) {
  const Wait& w = r.waits.front();
  if (w.kernelLaunch != 0) {
    return r.label + " waits in " + w.what + ", whose kernel never finished (launched at " +
           clockTime(w.kernelLaunch) + ")";
  }
  return r.label + " waits in " + w.what + " since " + clockTime(w.since);
}

bool waitsOnMissing(const RankStop& r) {
  return !r.waits.empty() && r.waits.front().on.empty() && r.waits.front().missingStage >= 0;
}

// "stage 1 waits in RECV B mb=2 from=2 since ... on stage 2, whose trace is not in the run".
std::string missingClause(const RankStop& r) {
  return waitClause(r) + " on stage " + std::to_string(r.waits.front().missingStage) +
         ", whose trace is not in the run (give every rank's trace to see why it never sent)";
}

// A two-rank cycle names first the stage that holds back an activation while it waits for a
// gradient: in a pipeline the forward data must flow first, so its order is the one out of step.
std::vector<int> culpritFirst(const std::vector<RankStop>& ranks, std::vector<int> cycle) {
  if (cycle.size() != 2) return cycle;
  const auto da = receiveRange(ranks[static_cast<size_t>(cycle[0])].waits.front().what);
  const auto db = receiveRange(ranks[static_cast<size_t>(cycle[1])].waits.front().what);
  if (da && db && !da->gradient && db->gradient) std::swap(cycle[0], cycle[1]);
  return cycle;
}

// The wait of `r` on `to` in an NCCL call whose other sides all came but whose kernel never
// finished, if it has one.
const Wait* stuckWaitOn(const RankStop& r, int to) {
  for (const Wait& w : r.waits) {
    if (w.kernelLaunch != 0 && w.partnerPosted &&
        std::find(w.on.begin(), w.on.end(), to) != w.on.end()) {
      return &w;
    }
  }
  return nullptr;
}

// Each rank of the cycle waits on the next in a matched call whose kernel never finished: the
// calls agree, the schedule is not at fault; NCCL or the network under it is stuck.
bool stuckOnDevice(const std::vector<RankStop>& ranks, const std::vector<int>& cycle) {
  for (size_t k = 0; k < cycle.size(); ++k) {
    if (!stuckWaitOn(ranks[static_cast<size_t>(cycle[k])], cycle[(k + 1) % cycle.size()]))
      return false;
  }
  return true;
}

// "NCCL stuck: all-reduce #4 of comm 0x...: rank 0, ... entered it ..." or, for sends and
// receives, each side's call. Sets the culprits: every rank stuck in it.
std::string describeStuck(const std::vector<RankStop>& ranks, const std::vector<int>& cycle,
                          std::vector<int>& culprits) {
  std::vector<const Wait*> waits;
  TimeNs first = INT64_MAX;
  for (size_t k = 0; k < cycle.size(); ++k) {
    waits.push_back(
        stuckWaitOn(ranks[static_cast<size_t>(cycle[k])], cycle[(k + 1) % cycle.size()]));
    first = std::min(first, waits.back()->kernelLaunch);
  }
  const std::string why = ": NCCL or the network under it is stuck, not the schedule";
  const bool oneCall = std::all_of(waits.begin(), waits.end(),
                                   [&](const Wait* w) { return w->what == waits.front()->what; });
  if (oneCall) {
    // A collective: every member stuck in it, not only the two the cycle went through.
    culprits.clear();
    for (size_t i = 0; i < ranks.size(); ++i) {
      for (const Wait& w : ranks[i].waits) {
        if (w.kernelLaunch != 0 && w.partnerPosted && w.what == waits.front()->what) {
          culprits.push_back(static_cast<int>(i));
          break;
        }
      }
    }
    return "NCCL stuck: " + labels(ranks, culprits) + " all entered " + waits.front()->what +
           ", but its kernels never finished (the first launched at " + clockTime(first) + ")" +
           why;
  }
  culprits = cycle;
  std::string s = "NCCL stuck: ";
  for (size_t k = 0; k < cycle.size(); ++k) {
    if (k > 0) s += k + 1 == cycle.size() ? " and " : ", ";
    s += ranks[static_cast<size_t>(cycle[k])].label + "'s " + waits[k]->what;
  }
  return s + " match, but their kernels never finished (the first launched at " + clockTime(first) +
         ")" + why;
}

// `cycle` as culpritFirst() ordered it.
std::string describeCycle(const std::vector<RankStop>& ranks, const std::vector<int>& cycle) {
  if (cycle.size() == 2) {
    const int a = cycle[0], b = cycle[1];
    const RankStop& ra = ranks[static_cast<size_t>(a)];
    const RankStop& rb = ranks[static_cast<size_t>(b)];
    const auto wantA = receiveRange(ra.waits.front().what);
    const auto wantB = receiveRange(rb.waits.front().what);
    std::string s = "deadlock: " + ra.label + " waits in " + ra.waits.front().what + "; " +
                    rb.label + " waits in " + rb.waits.front().what;
    if (wantA && wantB) {
      s += ", which " + ra.label +
           " sends only after that RECV: the two stages' orders disagree at " + ra.label;
      // Asked live, a process knows where it is but keeps no count of the ops it finished.
      if (ra.opsInStep >= 0) s += " op #" + std::to_string(ra.opsInStep);
      if (!ra.step.empty()) s += (ra.opsInStep >= 0 ? " of " : " in ") + ra.step;
    }
    return s;
  }
  std::string s = "deadlock: ";
  for (size_t k = 0; k < cycle.size(); ++k) {
    const RankStop& r = ranks[static_cast<size_t>(cycle[k])];
    s += (k > 0 ? "; " : "") + r.label + " waits in " + r.waits.front().what;
  }
  return s + ", a cycle";
}

std::string whereStopped(const RankStop& r) {
  std::string s;
  if (!r.step.empty()) s += " in " + r.step;
  if (!r.lastOp.empty()) {
    s += " after " + r.lastOp + ", which ended at " + clockTime(r.lastOpEnd) + " (op #" +
         std::to_string(r.opsInStep) + " of the step was next)";
  }
  return s;
}

// "stage 2 died: its trace ends at 12:03:05.120 without a clean exit, in step 0 after F mb=2 (...),
// 4.1 s before the last rank's".
std::string died(const RankStop& d, TimeNs latest) {
  std::string s = d.label + " died: its trace ends at " + clockTime(d.aliveNs) +
                  " without a clean exit" + whereStopped(d);
  if (latest - d.aliveNs >= 100'000'000)
    s += ", " + seconds(latest - d.aliveNs) + " before the last rank's";
  return s;
}

}  // namespace

std::string clockTime(TimeNs ns) {
  const time_t secs = static_cast<time_t>(ns / 1'000'000'000);
  tm utc{};
  gmtime_r(&secs, &utc);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02d:%02d:%02d.%03d", utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>((ns / 1'000'000) % 1000));
  return buf;
}

HangReport diagnose(std::vector<RankStop> ranks, const NcclFindings& nccl) {
  HangReport rep;
  for (size_t i = 0; i < ranks.size() && i < nccl.waits.size(); ++i) {
    for (const Wait& w : nccl.waits[i]) {
      ranks[i].waits.push_back(w);
      // A kernel still running is no clean end, whatever the trace says of it (an imported trace
      // says nothing of how its process ended).
      if (w.kernelLaunch != 0 && ranks[i].end == RankEnd::Clean) ranks[i].end = RankEnd::Stopped;
    }
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    for (const Wait& w : ranks[i].waits) {
      for (int to : w.on) rep.edges.push_back({static_cast<int>(i), to, w.what});
      break;  // the innermost wait is the one it is blocked in
    }
  }
  const int n = static_cast<int>(ranks.size());
  TimeNs latest = 0;
  for (const RankStop& r : ranks) latest = std::max(latest, r.aliveNs);

  if (!nccl.mismatches.empty()) {
    rep.verdict = Verdict::SequenceMismatch;
    rep.diagnosis = "sequence mismatch: " + nccl.mismatches.front();
    rep.culprits = nccl.mismatchRanks.front();
    for (size_t k = 1; k < nccl.mismatches.size(); ++k) rep.details.push_back(nccl.mismatches[k]);
  }
  if (!rep.found()) {
    // A rank that died ends the job whatever the others were doing when they were stopped: the
    // first to die is the cause.
    int first = -1;
    for (int i = 0; i < n; ++i) {
      const RankStop& r = ranks[static_cast<size_t>(i)];
      if (r.end == RankEnd::Died &&
          (first < 0 || r.aliveNs < ranks[static_cast<size_t>(first)].aliveNs)) {
        first = i;
      }
    }
    if (first >= 0) {
      std::string waiters;
      for (const RankStop& r : ranks) {
        if (!r.waits.empty() && std::find(r.waits.front().on.begin(), r.waits.front().on.end(),
                                          first) != r.waits.front().on.end()) {
          waiters += "; " + waitClause(r);
        }
      }
      rep.verdict = Verdict::DeadRank;
      rep.culprits = {first};
      rep.diagnosis = died(ranks[static_cast<size_t>(first)], latest) + waiters;
    }
  }
  if (!rep.found()) {
    for (int i = 0; i < n && !rep.found(); ++i) {
      const std::vector<int> cycle = culpritFirst(ranks, cycleFrom(ranks, i));
      if (cycle.size() < 2) continue;
      if (stuckOnDevice(ranks, cycle)) {
        rep.verdict = Verdict::NcclStuck;
        rep.diagnosis = describeStuck(ranks, cycle, rep.culprits);
        continue;
      }
      rep.verdict = Verdict::Deadlock;
      rep.diagnosis = describeCycle(ranks, cycle);
      rep.culprits = cycle;
    }
  }
  if (!rep.found()) {
    // Chains of waits: where do they end?
    std::vector<int> sinks;
    for (int i = 0; i < n; ++i) {
      const int s = sinkFrom(ranks, i);
      if (s >= 0 && s != i && std::find(sinks.begin(), sinks.end(), s) == sinks.end())
        sinks.push_back(s);
    }
    for (int s : sinks) {
      std::vector<int> waiting;
      for (int i = 0; i < n; ++i) {
        const RankStop& r = ranks[static_cast<size_t>(i)];
        if (!r.waits.empty() && !r.waits.front().on.empty() &&
            std::find(r.waits.front().on.begin(), r.waits.front().on.end(), s) !=
                r.waits.front().on.end()) {
          waiting.push_back(i);
        }
      }
      const RankStop& d = ranks[static_cast<size_t>(s)];
      std::string waiters;
      for (int w : waiting) waiters += "; " + waitClause(ranks[static_cast<size_t>(w)]);
      rep.culprits = {s};
      if (waitsOnMissing(d)) {
        // The chain goes on past the run's traces: say so, not that it stopped outside a wait.
        rep.verdict = Verdict::NeverArrived;
        rep.diagnosis = missingClause(d) + waiters;
      } else if (d.end == RankEnd::Died) {
        rep.verdict = Verdict::DeadRank;
        rep.diagnosis = died(d, latest) + waiters;
      } else {
        // A collective it never entered says it best.
        const MissingMember* mm = nullptr;
        for (const MissingMember& m : nccl.missing) {
          if (std::find(m.missing.begin(), m.missing.end(), s) != m.missing.end()) {
            mm = &m;
            break;
          }
        }
        rep.verdict = Verdict::NeverArrived;
        if (mm != nullptr) {
          rep.culprits = mm->missing;
          rep.diagnosis = labels(ranks, mm->missing) + " never entered " + mm->what + "; " +
                          labels(ranks, mm->waiting) +
                          (mm->waiting.size() == 1 ? " waits" : " wait") + " in it since " +
                          clockTime(mm->since);
        } else {
          rep.diagnosis = d.label + " never sent what " + labels(ranks, waiting) +
                          (waiting.size() == 1 ? " waits" : " wait") +
                          " for: it stopped outside any wait" + whereStopped(d) + waiters;
        }
      }
      break;
    }
  }
  if (!rep.found()) {
    // A rank blocked on a stage the run has no trace of, with no chain of waits to it.
    for (int i = 0; i < n && !rep.found(); ++i) {
      const RankStop& r = ranks[static_cast<size_t>(i)];
      if (!waitsOnMissing(r)) continue;
      rep.verdict = Verdict::NeverArrived;
      rep.culprits = {i};
      rep.diagnosis = missingClause(r);
    }
  }
  if (!rep.found() && !nccl.missing.empty()) {
    const MissingMember& mm = nccl.missing.front();
    rep.verdict = Verdict::NeverArrived;
    rep.culprits = mm.missing;
    rep.diagnosis = labels(ranks, mm.missing) + " never entered " + mm.what + "; " +
                    labels(ranks, mm.waiting) + (mm.waiting.size() == 1 ? " waits" : " wait") +
                    " in it since " + clockTime(mm.since);
  }
  if (!rep.found()) {
    std::vector<int> dead, stopped;
    for (int i = 0; i < n; ++i) {
      if (ranks[static_cast<size_t>(i)].end == RankEnd::Died) dead.push_back(i);
      if (ranks[static_cast<size_t>(i)].end == RankEnd::Stopped) stopped.push_back(i);
    }
    if (!dead.empty()) {
      const RankStop& d = ranks[static_cast<size_t>(dead.front())];
      rep.verdict = Verdict::DeadRank;
      rep.culprits = dead;
      rep.diagnosis = died(d, latest);
    } else if (!stopped.empty()) {
      rep.verdict = Verdict::Stopped;
      rep.culprits = stopped;
      rep.diagnosis = labels(ranks, stopped) + (stopped.size() == 1 ? " was" : " were") +
                      " stopped before the end, but no rank waits on another";
    } else if (std::any_of(ranks.begin(), ranks.end(),
                           [](const RankStop& r) { return r.end == RankEnd::Running; })) {
      rep.verdict = Verdict::Clean;
      rep.diagnosis = "no hang: all " + std::to_string(n) +
                      " ranks answered and none waits on another (for longer than --min-wait)";
    } else {
      rep.verdict = Verdict::Clean;
      rep.diagnosis = "no hang: the run ended cleanly (all " + std::to_string(n) +
                      " ranks closed their traces) and every NCCL call has its partner";
    }
  }
  rep.ranks = std::move(ranks);
  return rep;
}

const char* rankEndName(RankEnd end) {
  switch (end) {
    case RankEnd::Clean:
      return "exited";
    case RankEnd::Stopped:
      return "stopped";
    case RankEnd::Died:
      return "died";
    case RankEnd::Running:
      return "running";
  }
  return "?";
}

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Clean:
      return "clean";
    case Verdict::Deadlock:
      return "deadlock";
    case Verdict::NeverArrived:
      return "never-arrived";
    case Verdict::DeadRank:
      return "dead-rank";
    case Verdict::SequenceMismatch:
      return "sequence-mismatch";
    case Verdict::Stopped:
      return "stopped";
    case Verdict::NcclStuck:
      return "nccl-stuck";
  }
  return "?";
}

}  // namespace bubblescope::analysis::hang

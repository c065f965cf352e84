#include "agent/control/attach_plan.h"

#include <algorithm>
#include <map>

namespace bubblescope::control {
namespace {

struct RunFacts {
  int64_t leader = -1;      // the highest step of the run
  int64_t leaderAgeNs = 0;  // how long ago the leader entered it (the longest, if several)
  int64_t fastestNs = -1;   // shortest step time: for how far ahead S must be
  int64_t slowestNs = -1;   // longest: for how long N steps take
};

int64_t ceilDiv(int64_t a, int64_t b) {
  return a <= 0 ? 0 : (a + b - 1) / b;
}

}  // namespace

std::vector<PlannedStart> planAttach(const std::vector<RankState>& ranks,
                                     const AttachRequest& request) {
  std::map<std::string, RunFacts> runs;
  for (const RankState& r : ranks) {
    RunFacts& f = runs[r.runId];
    if (r.step < 0) continue;
    if (r.step > f.leader) {
      f.leader = r.step;
      f.leaderAgeNs = std::max<int64_t>(0, r.stepAgeNs);
    } else if (r.step == f.leader) {
      f.leaderAgeNs = std::max(f.leaderAgeNs, r.stepAgeNs);
    }
    if (r.stepNs > 0) {
      f.fastestNs = f.fastestNs < 0 ? r.stepNs : std::min(f.fastestNs, r.stepNs);
      f.slowestNs = std::max(f.slowestNs, r.stepNs);
    }
  }

  std::vector<PlannedStart> plans;
  plans.reserve(ranks.size());
  for (const RankState& r : ranks) {
    const RunFacts& f = runs[r.runId];
    // The first step every rank of the run can be told about in time: the leader's next step,
    // or later if the leader will get there before the requests arrive.
    int64_t first = f.leader + 1;
    if (f.fastestNs > 0) {
      // A step older than the step time is overdue: its end may come at any moment.
      const int64_t age = std::min(f.leaderAgeNs, f.fastestNs);
      first += std::max<int64_t>(0, ceilDiv(age + request.leadNs, f.fastestNs) - 1);
    }
    PlannedStart p;
    p.command.verb = Command::Verb::Start;
    const bool hasSteps = r.step >= 0;
    const bool farBehind = hasSteps && f.leader - r.step > kMaxStepLag;
    if (request.steps > 0) {
      if (hasSteps && !farBehind) {
        p.kind = PlannedStart::Kind::Steps;
        p.command.steps = request.steps;
        p.command.fromStep = first;
        p.firstStep = first;
      } else {
        p.kind = farBehind ? PlannedStart::Kind::FarBehind : PlannedStart::Kind::NoStepMarkers;
        p.command.durationNs = request.steps * (f.slowestNs > 0 ? f.slowestNs : kUnknownStepNs);
      }
    } else {
      p.command.durationNs = request.durationNs;
      if (hasSteps && !farBehind) {
        p.kind = PlannedStart::Kind::DurationAtStep;
        p.command.fromStep = first;
        p.firstStep = first;
      } else {
        p.kind = farBehind ? PlannedStart::Kind::FarBehind : PlannedStart::Kind::DurationNow;
      }
    }
    if (farBehind) p.lag = f.leader - r.step;
    plans.push_back(p);
  }
  return plans;
}

}  // namespace bubblescope::control

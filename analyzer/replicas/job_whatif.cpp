#include "analyzer/replicas/job_whatif.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "analyzer/idle/scenarios.h"
#include "analyzer/result/stats.h"

namespace bubblescope::analysis {
namespace {

// Which ops keep their measured cost in a scenario.
struct Keep {
  enum { None, All, Stage, Replica, Kind } what = None;
  int id = 0;
  bool operator()(int replica, int stage, OpKind kind) const {
    switch (what) {
      case None:
        return false;
      case All:
        return true;
      case Stage:
        return stage == id;
      case Replica:
        return replica == id;
      case Kind:
        return static_cast<int>(kind) == id;
    }
    return false;
  }
};

std::optional<TimeNs> makespan(const PipelineTrace& pl, const StepView& view,
                               const engine::Schedule& order, int replica,
                               const std::map<CostKey, TimeNs>& ideal, TimeNs transfer,
                               const Keep& keep) {
  engine::SimCosts sim;
  sim.transfer = transfer;
  sim.perOp.resize(pl.p);
  sim.receiveAfterPrevious.resize(pl.p);
  for (const StageStep& ss : view.stages) {
    sim.receiveAfterPrevious[ss.stage] = ss.receiveAfterPrevious;
    for (int i : ss.ops) {
      const RecognizedOp& o = pl.stages[ss.stage].ops.ops[i];
      TimeNs c = o.end - o.start;
      if (!keep(replica, ss.stage, o.op.kind)) {
        auto it = ideal.find({o.op.kind, o.op.chunk});
        c = it == ideal.end() ? c : it->second;
      }
      sim.perOp[ss.stage].push_back(c);
    }
  }
  try {
    return engine::simulate(order, sim).makespan;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace

const char* opTypeName(OpKind kind) {
  switch (kind) {
    case OpKind::F:
      return "forward-compute";
    case OpKind::B:
    case OpKind::BW:
      return "backward-compute";
    case OpKind::W:
      return "backward-wgrad-compute";
  }
  return "?";
}

void decomposeSlowdown(const std::vector<ReplicaSteps>& replicas, JobResult& job) {
  if (replicas.empty()) return;
  // Steps every replica has.
  std::map<int64_t, std::vector<const StepView*>> byNumber;
  for (const ReplicaSteps& r : replicas) {
    for (const StepView& v : r.views) byNumber[v.number].push_back(&v);
  }
  std::vector<std::vector<const StepView*>> steps;
  for (auto& [number, views] : byNumber) {
    if (views.size() == replicas.size()) steps.push_back(views);
  }
  if (steps.size() < byNumber.size()) {
    job.notes.push_back(std::to_string(byNumber.size() - steps.size()) +
                        " step(s) missing on some replica: left out of the job's slowdown");
  }

  // The job-wide ideal: means of kind and chunk, the median transfer; the tail's work is taken
  // step by step below.
  std::map<CostKey, std::pair<TimeNs, int64_t>> sums;
  LinkLags lags;
  std::vector<int> kinds;
  for (const ReplicaSteps& r : replicas) {
    const PipelineTrace& pl = *r.pipeline;
    for (const StepView& v : r.views) {
      for (const StageStep& ss : v.stages) {
        for (int i : ss.ops) {
          const RecognizedOp& o = pl.stages[ss.stage].ops.ops[i];
          auto& s = sums[{o.op.kind, o.op.chunk}];
          s.first += o.end - o.start;
          s.second += 1;
          if (std::find(kinds.begin(), kinds.end(), static_cast<int>(o.op.kind)) == kinds.end())
            kinds.push_back(static_cast<int>(o.op.kind));
        }
      }
    }
    for (auto& [link, v] : transferLagsByLink(pl, r.views)) {
      lags[link].insert(lags[link].end(), v.begin(), v.end());
    }
  }
  std::sort(kinds.begin(), kinds.end());
  std::map<CostKey, TimeNs> ideal;
  for (const auto& [key, s] : sums) ideal[key] = s.first / s.second;
  job.transfer = healthyTransfer(lags);

  const int p = replicas.front().pipeline->p;
  std::vector<Keep> scenarios = {{Keep::None, 0}, {Keep::All, 0}};
  for (int s = 0; s < p; ++s) scenarios.push_back({Keep::Stage, s});
  for (size_t d = 0; d < replicas.size(); ++d) {
    scenarios.push_back({Keep::Replica, static_cast<int>(d)});
  }
  for (int k : kinds) scenarios.push_back({Keep::Kind, k});

  std::vector<std::vector<TimeNs>> stepTimes(scenarios.size());
  std::vector<TimeNs> measured, tails;
  TimeNs worst = 0;  // the step whose replay of measured costs overshoots it most
  std::string worstStep;
  for (const auto& views : steps) {
    std::vector<TimeNs> row(scenarios.size(), 0);
    bool ok = true;
    std::vector<engine::Schedule> orders;
    orders.reserve(replicas.size());
    for (size_t d = 0; d < replicas.size(); ++d) {
      orders.push_back(observedSchedule(*replicas[d].pipeline, *views[d]));
    }
    // Each replica at ideal costs and at its measured ones: keeping one replica's measured costs
    // replays that one as measured and every other at ideal, so its row is read off these two
    // (a replay per replica and scenario would be quadratic in the replicas, issue 28).
    std::vector<TimeNs> atIdeal(replicas.size(), 0), asMeasured(replicas.size(), 0);
    for (size_t c = 0; c < scenarios.size() && ok; ++c) {
      if (scenarios[c].what == Keep::Replica) continue;
      for (size_t d = 0; d < replicas.size() && ok; ++d) {
        auto t = makespan(*replicas[d].pipeline, *views[d], orders[d], static_cast<int>(d), ideal,
                          job.transfer, scenarios[c]);
        ok = t.has_value();
        if (!ok) break;
        row[c] = std::max(row[c], *t);
        if (scenarios[c].what == Keep::None) atIdeal[d] = *t;
        if (scenarios[c].what == Keep::All) asMeasured[d] = *t;
      }
    }
    if (ok) {
      // The two largest replays at ideal costs: the one for "all but replica d".
      size_t top = 0;
      for (size_t d = 1; d < replicas.size(); ++d) {
        if (atIdeal[d] > atIdeal[top]) top = d;
      }
      TimeNs second = 0;
      for (size_t d = 0; d < replicas.size(); ++d) {
        if (d != top) second = std::max(second, atIdeal[d]);
      }
      for (size_t c = 0; c < scenarios.size(); ++c) {
        if (scenarios[c].what != Keep::Replica) continue;
        const auto d = static_cast<size_t>(scenarios[c].id);
        row[c] = std::max(asMeasured[d], d == top ? second : atIdeal[top]);
      }
    }
    if (!ok) {
      job.notes.push_back("step " + std::to_string(views[0]->number) +
                          ": its op order cannot be re-run by the simulator on every replica; "
                          "left out of the job's slowdown");
      continue;
    }
    TimeNs first = INT64_MAX, last = INT64_MIN;
    for (const StepView* v : views) {
      first = std::min(first, v->start);
      last = std::max(last, v->end);
    }
    measured.push_back(last - first);
    // The tail's work (DP sync, optimizer), step by step: the replica that arrived last at the
    // sync waited least, so its tail is the work; the others' hold their wait for it. When a
    // different replica is last in each step, every replica's median tail holds a wait.
    TimeNs tail = INT64_MAX;
    for (size_t d = 0; d < replicas.size(); ++d) {
      tail = std::min(tail, tailOf(*replicas[d].pipeline, *views[d]));
    }
    tails.push_back(tail);
    for (size_t c = 0; c < scenarios.size(); ++c) stepTimes[c].push_back(row[c] + tail);
    if (const TimeNs over = stepTimes[1].back() - measured.back(); over > worst) {
      worst = over;
      char buf[160];
      std::snprintf(buf, sizeof buf, "step %lld is replayed in %.1f ms against %.1f ms measured",
                    static_cast<long long>(views[0]->number),
                    static_cast<double>(stepTimes[1].back()) / 1e6,
                    static_cast<double>(measured.back()) / 1e6);
      worstStep = buf;
    }
  }
  job.steps = static_cast<int>(measured.size());
  if (measured.empty()) return;
  job.tail = mean(tails);
  job.stepTimeMeasured = mean(measured);
  job.stepTimeIdeal = mean(stepTimes[0]);
  job.stepTimeOps = mean(stepTimes[1]);
  job.model = checkModel(job.stepTimeMeasured, job.stepTimeOps, worstStep);
  const double ideal0 = static_cast<double>(std::max<TimeNs>(1, job.stepTimeIdeal));
  job.slowdown = static_cast<double>(job.stepTimeMeasured) / ideal0;
  auto part = [&](size_t c, int id, std::string name) {
    const TimeNs t = mean(stepTimes[c]);
    return PartSlowdown{id, std::move(name), static_cast<double>(t) / ideal0, t};
  };
  size_t c = 2;
  for (int s = 0; s < p; ++s, ++c) job.stages.push_back(part(c, s, "stage " + std::to_string(s)));
  for (size_t d = 0; d < replicas.size(); ++d, ++c) {
    const int dp = replicas[d].pipeline->dpRank;
    job.dpRanks.push_back(part(c, dp, "DP replica " + std::to_string(dp)));
  }
  for (int k : kinds) {
    job.opTypes.push_back(part(c++, k, opTypeName(static_cast<OpKind>(k))));
  }
}

}  // namespace bubblescope::analysis

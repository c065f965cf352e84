#include "analyzer/replicas/job_whatif.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

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
  sim.posting = observedPosting(view);
  for (const StageStep& ss : view.stages) {
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

ReplicaCosts replicaCostsOf(const ReplicaSteps& r) {
  const PipelineTrace& pl = *r.pipeline;
  ReplicaCosts out;
  out.dpRank = pl.dpRank;
  out.p = pl.p;
  out.steps.reserve(r.views.size());
  for (const StepView& v : r.views) {
    out.steps.push_back({v.number, v.start, v.end, tailOf(pl, v)});
    for (const StageStep& ss : v.stages) {
      for (int i : ss.ops) {
        const RecognizedOp& o = pl.stages[ss.stage].ops.ops[i];
        auto& s = out.sums[{o.op.kind, o.op.chunk}];
        s.first += o.end - o.start;
        s.second += 1;
        if (std::find(out.kinds.begin(), out.kinds.end(), static_cast<int>(o.op.kind)) ==
            out.kinds.end()) {
          out.kinds.push_back(static_cast<int>(o.op.kind));
        }
      }
    }
  }
  std::sort(out.kinds.begin(), out.kinds.end());
  out.lags = transferLagsByLink(pl, r.views);
  return out;
}

void JobIdealSums::add(ReplicaCosts& r) {
  if (replicas_++ == 0) p_ = r.p;
  for (const ReplicaStep& s : r.steps) ++holders_[s.number];
  for (const auto& [key, s] : r.sums) {
    auto& total = sums_[key];
    total.first += s.first;
    total.second += s.second;
  }
  for (int k : r.kinds) {
    if (std::find(kinds_.begin(), kinds_.end(), k) == kinds_.end()) kinds_.push_back(k);
  }
  for (auto& [link, v] : r.lags) {
    auto& all = lags_[link];
    all.insert(all.end(), v.begin(), v.end());
  }
  r.sums.clear();
  r.kinds = {};
  r.lags.clear();
}

JobIdeal JobIdealSums::finish() const {
  JobIdeal out;
  out.p = p_;
  // Steps every replica has.
  for (const auto& [number, n] : holders_) {
    if (n == replicas_) out.steps.push_back(number);
  }
  out.stepsMissing = holders_.size() - out.steps.size();
  // The job-wide ideal: means of kind and chunk, the median transfer; the tail's work is taken
  // step by step.
  for (const auto& [key, s] : sums_) out.ideal[key] = s.first / s.second;
  out.kinds = kinds_;
  std::sort(out.kinds.begin(), out.kinds.end());
  out.transfer = healthyTransfer(lags_);
  return out;
}

ReplicaReplay replayReplica(const ReplicaSteps& r, const JobIdeal& ideal) {
  const PipelineTrace& pl = *r.pipeline;
  std::map<int64_t, const StepView*> byNumber;
  for (const StepView& v : r.views) byNumber.emplace(v.number, &v);
  std::vector<Keep> scenarios = {{Keep::None, 0}, {Keep::All, 0}};
  for (int s = 0; s < ideal.p; ++s) scenarios.push_back({Keep::Stage, s});
  for (int k : ideal.kinds) scenarios.push_back({Keep::Kind, k});
  ReplicaReplay out;
  out.width = static_cast<uint32_t>(scenarios.size());
  out.makespans.assign(ideal.steps.size() * scenarios.size(), 0);
  out.replayed.assign(ideal.steps.size(), 0);
  for (size_t k = 0; k < ideal.steps.size(); ++k) {
    auto it = byNumber.find(ideal.steps[k]);
    if (it == byNumber.end()) continue;
    const StepView& view = *it->second;
    const engine::Schedule order = observedSchedule(pl, view);
    TimeNs* row = out.makespans.data() + k * out.width;
    bool ok = true;
    for (size_t c = 0; c < scenarios.size() && ok; ++c) {
      const auto t = makespan(pl, view, order, 0, ideal.ideal, ideal.transfer, scenarios[c]);
      ok = t.has_value();
      row[c] = t.value_or(0);
    }
    out.replayed[k] = ok;
  }
  return out;
}

void finishSlowdown(const std::vector<ReplicaCosts>& costs, const JobIdeal& ideal,
                    const std::vector<ReplicaReplay>& replays, JobResult& job) {
  if (ideal.stepsMissing > 0) {
    job.notes.push_back(std::to_string(ideal.stepsMissing) +
                        " step(s) missing on some replica: left out of the job's slowdown");
  }
  job.transfer = ideal.transfer;
  const int p = ideal.p;
  const size_t replicas = costs.size();
  // The scenarios' rows in the order of the job's tables: ideal, measured, each stage, each
  // replica, each kind. A replay's row lacks the replicas'.
  const size_t scenarios = 2 + static_cast<size_t>(p) + replicas + ideal.kinds.size();
  const size_t firstReplica = 2 + static_cast<size_t>(p);
  // Each replica's step times, looked up by step number in its steps, which are in step order (a
  // tree of them per replica was 6.4 MB at 10,000 replicas).
  const auto stepOf = [&](size_t d, int64_t number) -> const ReplicaStep& {
    const std::vector<ReplicaStep>& steps = costs[d].steps;
    auto it = std::lower_bound(steps.begin(), steps.end(), number,
                               [](const ReplicaStep& s, int64_t n) { return s.number < n; });
    if (it == steps.end() || it->number != number) {
      throw std::out_of_range("replica " + std::to_string(costs[d].dpRank) + " has no step " +
                              std::to_string(number));
    }
    return *it;
  };

  std::vector<std::vector<TimeNs>> stepTimes(scenarios);
  std::vector<TimeNs> measured, tails;
  std::vector<TimeNs> stalls(replicas, 0);  // summed over the steps analysed
  TimeNs worst = 0;  // the step whose replay of measured costs overshoots it most
  std::string worstStep;
  for (size_t k = 0; k < ideal.steps.size(); ++k) {
    const int64_t number = ideal.steps[k];
    bool ok = true;
    for (size_t d = 0; d < replicas && ok; ++d) {
      const ReplicaReplay& r = replays[d];
      ok = k < r.replayed.size() && r.replayed[k] && r.width + replicas == scenarios &&
           r.makespans.size() == r.replayed.size() * r.width;
    }
    if (!ok) {
      job.notes.push_back("step " + std::to_string(number) +
                          ": its op order cannot be re-run by the simulator on every replica; "
                          "left out of the job's slowdown");
      continue;
    }
    std::vector<TimeNs> row(scenarios, 0);
    for (size_t d = 0; d < replicas; ++d) {
      const TimeNs* m = replays[d].row(k);
      for (size_t c = 0, r = 0; c < scenarios; ++c) {
        if (c >= firstReplica && c < firstReplica + replicas) continue;
        row[c] = std::max(row[c], m[r++]);
      }
    }
    // Keeping one replica's measured costs replays that one as measured and every other at
    // ideal, so its row is read off the two (a replay per replica and scenario would be
    // quadratic in the replicas, issue 28): the largest replay at ideal costs of the others.
    size_t top = 0;
    for (size_t d = 1; d < replicas; ++d) {
      if (replays[d].row(k)[0] > replays[top].row(k)[0]) top = d;
    }
    TimeNs second = 0;
    for (size_t d = 0; d < replicas; ++d) {
      if (d != top) second = std::max(second, replays[d].row(k)[0]);
    }
    for (size_t d = 0; d < replicas; ++d) {
      const TimeNs others = d == top ? second : replays[top].row(k)[0];
      row[firstReplica + d] = std::max(replays[d].row(k)[1], others);
    }
    TimeNs first = INT64_MAX, last = INT64_MIN;
    // The tail's work (DP sync, optimizer), step by step: the replica that arrived last at the
    // sync waited least, so its tail is the work; the others' hold their wait for it. When a
    // different replica is last in each step, every replica's median tail holds a wait.
    TimeNs tail = INT64_MAX;
    for (size_t d = 0; d < replicas; ++d) {
      const ReplicaStep& s = stepOf(d, number);
      first = std::min(first, s.start);
      last = std::max(last, s.end);
      tail = std::min(tail, s.tail);
      // Its ops' span (the step but its tail) beyond their replay at measured costs.
      stalls[d] += std::max<TimeNs>(0, s.end - s.start - s.tail - replays[d].row(k)[1]);
    }
    measured.push_back(last - first);
    tails.push_back(tail);
    for (size_t c = 0; c < scenarios; ++c) stepTimes[c].push_back(row[c] + tail);
    if (const TimeNs over = stepTimes[1].back() - measured.back(); over > worst) {
      worst = over;
      char buf[160];
      std::snprintf(buf, sizeof buf, "step %lld is replayed in %.1f ms against %.1f ms measured",
                    static_cast<long long>(number), static_cast<double>(stepTimes[1].back()) / 1e6,
                    static_cast<double>(measured.back()) / 1e6);
      worstStep = buf;
    }
  }
  job.steps = static_cast<int>(measured.size());
  if (measured.empty()) return;
  for (TimeNs& s : stalls) s /= static_cast<TimeNs>(measured.size());
  job.stallsByReplica = std::move(stalls);
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
  for (size_t d = 0; d < replicas; ++d, ++c) {
    const int dp = costs[d].dpRank;
    job.dpRanks.push_back(part(c, dp, "DP replica " + std::to_string(dp)));
  }
  for (int k : ideal.kinds) {
    job.opTypes.push_back(part(c++, k, opTypeName(static_cast<OpKind>(k))));
  }
}

}  // namespace bubblescope::analysis

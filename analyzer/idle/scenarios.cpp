#include "analyzer/idle/scenarios.h"

#include <algorithm>

namespace bubblescope::analysis {
namespace {

template <typename Table>
TimeNs lookup(const Table& table, const Op& op) {
  auto it = table.find({op.kind, op.chunk});
  return it == table.end() ? 0 : it->second;
}

bool keyBefore(const CostTable::Entry& e, const CostKey& key) {
  return e.first < key;
}

TimeNs measured(const PipelineTrace& pl, int stage, int opIndex) {
  const auto& o = pl.stages[stage].ops.ops[opIndex];
  return o.end - o.start;
}

}  // namespace

CostTable::CostTable(std::initializer_list<Entry> entries) {
  for (const Entry& e : entries) (*this)[e.first] = e.second;
}

CostTable::CostTable(const std::map<CostKey, TimeNs>& table)
    : entries_(table.begin(), table.end()) {}

TimeNs& CostTable::operator[](const CostKey& key) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key, keyBefore);
  if (it == entries_.end() || it->first != key) it = entries_.insert(it, {key, 0});
  return it->second;
}

std::vector<CostTable::Entry>::const_iterator CostTable::find(const CostKey& key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key, keyBefore);
  return it != entries_.end() && it->first == key ? it : entries_.end();
}

TimeNs MeanCosts::idealOf(const Op& op) const {
  return lookup(ideal, op);
}
TimeNs MeanCosts::stageOf(int s, const Op& op) const {
  return lookup(stage[s], op);
}

void CostTally::add(const PipelineTrace& pl, const StepView& view) {
  for (const StageStep& ss : view.stages) {
    for (int i : ss.ops) {
      const auto& o = pl.stages[ss.stage].ops.ops[i];
      const CostKey key{o.op.kind, o.op.chunk};
      const TimeNs d = o.end - o.start;
      all_[key].first += d;
      all_[key].second += 1;
      per_[ss.stage][key].first += d;
      per_[ss.stage][key].second += 1;
    }
  }
}

void CostTally::add(const CostTally& other) {
  auto addAll = [](Sums& to, const Sums& from) {
    for (const auto& [key, sum] : from) {
      to[key].first += sum.first;
      to[key].second += sum.second;
    }
  };
  addAll(all_, other.all_);
  for (size_t s = 0; s < per_.size() && s < other.per_.size(); ++s) addAll(per_[s], other.per_[s]);
}

MeanCosts CostTally::means() const {
  MeanCosts out;
  out.stage.resize(per_.size());
  for (const auto& [key, sum] : all_) out.ideal[key] = sum.first / sum.second;
  for (size_t s = 0; s < per_.size(); ++s) {
    out.stage[s].reserve(per_[s].size());
    for (const auto& [key, sum] : per_[s]) out.stage[s][key] = sum.first / sum.second;
  }
  return out;
}

MeanCosts meanCosts(const PipelineTrace& pl, const std::vector<StepView>& steps) {
  CostTally tally(pl.p);
  for (const StepView& view : steps) tally.add(pl, view);
  return tally.means();
}

int mostImbalancedStage(const MeanCosts& costs) {
  int worst = -1;
  TimeNs worstExcess = 0;
  for (size_t s = 0; s < costs.stage.size(); ++s) {
    TimeNs excess = 0;
    bool beyondNoise = false;
    for (const auto& [key, mean] : costs.stage[s]) {
      const auto ideal = costs.ideal.find(key);
      if (ideal == costs.ideal.end()) continue;
      excess += std::max<TimeNs>(0, mean - ideal->second);
      // The blame walk's noise bound (blame.cpp): less is no imbalance it would name either.
      beyondNoise =
          beyondNoise || mean - ideal->second > std::max<TimeNs>(50'000, ideal->second / 20);
    }
    if (beyondNoise && excess > worstExcess) {
      worst = static_cast<int>(s);
      worstExcess = excess;
    }
  }
  return worst;
}

engine::Schedule observedSchedule(const PipelineTrace& pl, const StepView& step) {
  engine::Schedule s = layoutOf(pl);
  s.kind = engine::ScheduleKind::Custom;
  s.stages.resize(pl.p);
  // Each sized once: a step of 10,000 stages grown by doubling held 1.5 times its ops.
  std::vector<int> ids;
  ids.reserve(step.opCount());
  for (const StageStep& ss : step.stages) {
    s.stages[ss.stage].reserve(ss.ops.size());
    for (int i : ss.ops) {
      const Op& op = pl.stages[ss.stage].ops.ops[i].op;
      s.stages[ss.stage].push_back(op);
      ids.push_back(op.mb);
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.empty()) return s;
  // Microbatch ids from a trace are labels, not a count (issue 28: ids 0 and 5,000,000 made a
  // 5,000,001-microbatch schedule, 18 s and 2.8 GB for a 10 KB file). The schedule counts 0 to
  // the largest id, so a step cut short (a capture's edge, a hang) shows the microbatches it
  // misses; ids far sparser than any cut leaves are numbered 0..k-1 in their order instead.
  const int64_t span = int64_t{ids.back()} + 1;
  const auto distinct = static_cast<int64_t>(ids.size());
  if (ids.front() >= 0 && span <= 2 * distinct + 16) {
    s.m = static_cast<int>(span);
    return s;
  }
  s.m = static_cast<int>(distinct);
  for (auto& stage : s.stages) {
    for (Op& op : stage) {
      op.mb = static_cast<int>(std::lower_bound(ids.begin(), ids.end(), op.mb) - ids.begin());
    }
  }
  return s;
}

std::shared_ptr<const engine::Posting> observedPosting(const StepView& step) {
  return std::make_shared<engine::Posting>(step.posting);
}

std::shared_ptr<const engine::Posting> viewedPosting(const StepView& step) {
  return {std::shared_ptr<const void>{}, &step.posting};  // owns nothing
}

engine::SimCosts stepCosts(const PipelineTrace& pl, const StepView& step, const MeanCosts& costs,
                           Scenario scenario, TimeNs transfer) {
  engine::SimCosts sim;
  stepCosts(pl, step, costs, scenario, transfer, observedPosting(step), sim);
  return sim;
}

void stepCosts(const PipelineTrace& pl, const StepView& step, const MeanCosts& costs,
               Scenario scenario, TimeNs transfer, std::shared_ptr<const engine::Posting> posting,
               engine::SimCosts& sim) {
  sim.transfer = transfer;
  sim.perOp.resize(pl.p);
  for (auto& row : sim.perOp) row.clear();
  sim.posting = std::move(posting);
  for (const StageStep& ss : step.stages) {
    auto& row = sim.perOp[ss.stage];
    row.reserve(ss.ops.size());  // once: grown by doubling, a let-go row took five allocations
    for (int i : ss.ops) {
      const Op& op = pl.stages[ss.stage].ops.ops[i].op;
      TimeNs c = 0;
      if (scenario == Scenario::Ideal) {
        c = costs.idealOf(op);
      } else if (scenario == Scenario::Stage) {
        c = costs.stageOf(ss.stage, op);
      } else {
        c = measured(pl, ss.stage, i);
      }
      row.push_back(c);
    }
  }
}

std::optional<engine::SimResult> simulateStep(const PipelineTrace& pl, const StepView& step,
                                              const engine::Schedule& order, const MeanCosts& costs,
                                              Scenario scenario, TimeNs transfer,
                                              std::string* why) {
  try {
    return engine::simulate(order, stepCosts(pl, step, costs, scenario, transfer));
  } catch (const std::invalid_argument& e) {
    if (why) *why = e.what();  // ScheduleError or CostError: the order cannot be re-run
    return std::nullopt;
  }
}

}  // namespace bubblescope::analysis

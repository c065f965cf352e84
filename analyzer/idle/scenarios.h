#pragma once
// The simulations behind the idle classes (analysis.md §3): the observed op order of a step,
// re-run by the reference simulator with ideal costs (every op at the mean of its kind and chunk),
// stage costs (each stage's own means) and measured op costs. Their differences are the bubble
// the schedule itself leaves, imbalance and jitter; what the measurement adds beyond measured op
// costs is stall.
#include <array>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/timeline/step_view.h"
#include "reference_engine/sim/simulate.h"

namespace bubblescope::analysis {

using CostKey = std::pair<OpKind, int>;  // kind, chunk

// One stage's mean costs by kind and chunk: a few, in one sorted list, where a map's nodes and
// shell were 176 bytes a stage (1.8 MB of 10,000 stages under the analysis' peak, issue 28).
class CostTable {
 public:
  using Entry = std::pair<CostKey, TimeNs>;
  CostTable() = default;
  CostTable(std::initializer_list<Entry> entries);
  CostTable(const std::map<CostKey, TimeNs>& table);  // NOLINT: a table of the same entries
  TimeNs& operator[](const CostKey& key);             // added (as 0) if absent
  void reserve(size_t n) { entries_.reserve(n); }
  std::vector<Entry>::const_iterator find(const CostKey& key) const;
  std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }

 private:
  std::vector<Entry> entries_;  // sorted by key, each key once
};

struct MeanCosts {
  std::map<CostKey, TimeNs> ideal;  // over all stages and steps
  std::vector<CostTable> stage;     // per stage, over steps
  TimeNs idealOf(const Op& op) const;
  TimeNs stageOf(int stage, const Op& op) const;
};

// The mean costs summed step by step, so that the steps need not all be held at once.
class CostTally {
 public:
  explicit CostTally(int stages) : per_(static_cast<size_t>(stages)) {}
  void add(const PipelineTrace& pipeline, const StepView& step);
  void add(const CostTally& other);  // another stretch of steps' tally (sums: any order)
  MeanCosts means() const;

 private:
  using Sums = std::map<CostKey, std::pair<TimeNs, int64_t>>;
  Sums all_;
  std::vector<Sums> per_;
};

MeanCosts meanCosts(const PipelineTrace& pipeline, const std::vector<StepView>& steps);

// The stage whose mean op costs exceed the ideal the most (summed over kinds and chunks), if one
// kind's does by more than noise (a twentieth of its ideal, at least 50 us); else -1.
int mostImbalancedStage(const MeanCosts& costs);

// The step's per-stage op order as a schedule the simulator runs.
engine::Schedule observedSchedule(const PipelineTrace& pipeline, const StepView& step);

enum class Scenario { Ideal, Stage, Ops };

// How the step's stages posted their transfers, as the simulator re-runs the observed order:
// receives posted with the op before, sends posted with a later op (StepView::posting), as a
// posting of its own.
std::shared_ptr<const engine::Posting> observedPosting(const StepView& step);
// The same without a copy: the view's own, for costs that do not outlive the view (a copy of a
// step of 10,000 stages' is 3.7 MB, issue 28).
std::shared_ptr<const engine::Posting> viewedPosting(const StepView& step);

// The simulator's costs for one step under `scenario`: per op, in the order of observedSchedule,
// with the step's observedPosting. (Each stage with only its own measured costs: stage_alone.h.)
engine::SimCosts stepCosts(const PipelineTrace& pipeline, const StepView& step,
                           const MeanCosts& costs, Scenario scenario, TimeNs transfer);
// The same into `out`, whose lists keep their room, with `posting` (the step's observedPosting,
// which the analysis's three a step share: issue 28).
void stepCosts(const PipelineTrace& pipeline, const StepView& step, const MeanCosts& costs,
               Scenario scenario, TimeNs transfer, std::shared_ptr<const engine::Posting> posting,
               engine::SimCosts& out);

// Simulates one step with the costs of `scenario`. Empty if the observed order cannot run (a
// partial capture); then `why` (if given) holds the simulator's reason in one sentence.
std::optional<engine::SimResult> simulateStep(const PipelineTrace& pipeline, const StepView& step,
                                              const engine::Schedule& order, const MeanCosts& costs,
                                              Scenario scenario, TimeNs transfer,
                                              std::string* why = nullptr);

}  // namespace bubblescope::analysis

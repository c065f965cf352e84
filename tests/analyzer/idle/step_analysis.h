#pragma once
// The chain the analysis runs on one step (pipeline_analysis.cpp), for the idle unit tests: the
// step view, mean costs, the observed order simulated with ideal, stage-mean and measured costs,
// and the blame walker over them.
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "analyzer/idle/blame.h"
#include "analyzer/idle/classify.h"
#include "analyzer/idle/gap_sentence.h"
#include "analyzer/idle/scenarios.h"
#include "analyzer/timeline/step_view.h"

namespace bubblescope::testing {

class StepAnalysis {
 public:
  // `transfer`: the median transfer the simulations and the blame walk assume.
  explicit StepAnalysis(analysis::PipelineTrace pipeline, TimeNs transfer = 0)
      : pl(std::move(pipeline)), views(analysis::buildStepViews(pl)) {
    if (views.empty()) throw std::logic_error("the hand-built pipeline has no common step");
    costs = analysis::meanCosts(pl, views);
    order = analysis::observedSchedule(pl, view());
    sims.ideal = simulate(analysis::Scenario::Ideal, transfer);
    sims.stage = simulate(analysis::Scenario::Stage, transfer);
    sims.ops = simulate(analysis::Scenario::Ops, transfer);
    blame.emplace(pl, view(), costs, transfer, sims.ops);
  }
  StepAnalysis(const StepAnalysis&) = delete;  // the walker refers to the members

  const analysis::StepView& view() const { return views.front(); }

  // The stage's gaps, each with its sentence written (as an analysis that keeps every gap does).
  analysis::Split classify(int stage, std::vector<analysis::Gap>& gaps) const {
    std::vector<analysis::BlameWords> words;
    const size_t first = gaps.size();
    const analysis::Split split =
        analysis::classifyStageStep(pl, view(), stage, sims, *blame, gaps, words);
    for (size_t g = first; g < gaps.size(); ++g) {
      gaps[g].blame.text = analysis::gapSentence(gaps[g], words[g - first], pl);
    }
    return split;
  }

  // The walk's answer for the gap of `gapIdle` before the op at `pos` of `stage` (or after its
  // last op), with the sentence it gives (the gap's, where the walk's class is its largest).
  analysis::Blame startOf(int stage, int pos, analysis::IdleClass baseline, TimeNs gapIdle) const {
    return written(stage, gapIdle, blame->startOf(stage, pos, baseline));
  }
  analysis::Blame drainOf(int stage, TimeNs gapIdle) const {
    return written(stage, gapIdle, blame->drainOf(stage));
  }
  analysis::Blame written(int stage, TimeNs gapIdle, const analysis::Blamed& walk) const {
    analysis::Blame b = walk.blame;
    b.text = analysis::walkSentence(stage, gapIdle, walk, pl);
    return b;
  }

  analysis::PipelineTrace pl;
  std::vector<analysis::StepView> views;
  analysis::MeanCosts costs;
  engine::Schedule order;
  analysis::StepSims sims;
  std::optional<analysis::BlameWalker> blame;

 private:
  engine::SimResult simulate(analysis::Scenario scenario, TimeNs transfer) const {
    auto r = analysis::simulateStep(pl, view(), order, costs, scenario, transfer);
    if (!r) throw std::logic_error("the hand-built order cannot be simulated");
    return *r;
  }
};

}  // namespace bubblescope::testing

#include "analyzer/whatif/what_if.h"

#include <cstdio>
#include <functional>
#include <string>

#include "reference_engine/schedule/held_activations.h"
#include "reference_engine/schedule/schedule_table.h"
#include "reference_engine/sim/simulate.h"

namespace bubblescope::analysis {
namespace {

// Model chunks per stage of the schedules that take them (interleaved 1F1B), Megatron's usual.
constexpr int kChunks = 2;

// T_F, T_B, T_W of one microbatch through a whole stage: chunk means added up.
struct StageCosts {
  TimeNs f = 0, b = 0, w = 0;
  bool assumedSplit = false;  // B and W were not measured apart
};

StageCosts stageCosts(const MeanCosts& costs) {
  StageCosts c;
  TimeNs bw = 0;
  for (const auto& [key, mean] : costs.ideal) {
    switch (key.first) {
      case OpKind::F:
        c.f += mean;
        break;
      case OpKind::B:
        c.b += mean;
        break;
      case OpKind::W:
        c.w += mean;
        break;
      case OpKind::BW:
        bw += mean;
        break;
    }
  }
  if (c.b == 0 && c.w == 0 && bw > 0) {
    // A fused backward: split evenly, the usual assumption when W is not timed apart.
    c.b = bw / 2;
    c.w = bw - c.b;
    c.assumedSplit = true;
  }
  return c;
}

WhatIf row(const std::string& scenario, TimeNs step, TimeNs compute, TimeNs measured) {
  WhatIf w;
  w.scenario = scenario;
  w.stepTime = step;
  w.bubbleRate = step > 0 ? 1.0 - static_cast<double>(compute) / static_cast<double>(step) : 0;
  w.speedup = step > 0 ? static_cast<double>(measured) / static_cast<double>(step) : 0;
  return w;
}

}  // namespace

std::vector<WhatIf> whatIfTable(const WhatIfInput& in) {
  const StageCosts c = stageCosts(in.costs);
  const TimeNs compute = static_cast<TimeNs>(in.m) * (c.f + c.b + c.w);
  std::vector<WhatIf> rows;
  rows.reserve(2 + engine::kSchedules.size() + 1);  // every replica's table is kept
  rows.push_back(row("measured", in.measuredStep, compute, in.measuredStep));
  rows.push_back(row("balanced stages, no stalls (" + in.schedule.name + ")", in.idealStep, compute,
                     in.measuredStep));
  // Balancing the stages keeps the order, so it holds what the measured job does.
  if (!in.observed.stages.empty()) {
    rows[0].activations = engine::heldActivations(in.observed);
    rows[1].activations = rows[0].activations;
  }
  char split[96];
  std::snprintf(split, sizeof split, "B and W not timed apart: each taken as half of BW (%.2f ms)",
                static_cast<double>(c.b) / 1e6);
  // `size`: the scenario's microbatch in measured ones (half, for twice as many).
  auto simulated = [&](const std::string& name, const std::function<engine::Schedule()>& make,
                       TimeNs f, TimeNs b, TimeNs w, double size) {
    try {
      const engine::Schedule s = make();
      engine::SimCosts costs;
      costs.perKind = {f, b, w, -1};
      costs.transfer = in.transfer;
      const engine::SimResult r = engine::simulate(s, costs);
      WhatIf out = row(name, r.makespan + in.tail, compute, in.measuredStep);
      if (c.assumedSplit && s.splitsBackward()) out.note = split;
      out.activations = engine::heldActivations(s);
      for (double& held : out.activations) held *= size;
      return out;
    } catch (const std::invalid_argument& e) {
      WhatIf out;
      out.scenario = name;
      out.available = false;
      out.note = e.what();
      return out;
    }
  };
  const int p = in.p, m = in.m;
  for (const engine::NamedSchedule& named : engine::kSchedules) {
    const std::string name = named.takesChunks
                                 ? std::string(named.name) + " (v=" + std::to_string(kChunks) + ")"
                                 : std::string(named.name);
    rows.push_back(simulated(
        name, [&] { return named.generate(p, m, kChunks); }, c.f, c.b, c.w, 1.0));
  }
  // Twice the microbatches at half the size keep the global batch: each op costs half.
  const std::string current =
      in.schedule.exact ? in.schedule.name : engine::scheduleName(engine::ScheduleKind::OneF1B);
  auto twice = simulated(
      "2x microbatches (" + current + ", m=" + std::to_string(2 * m) + ")",
      [&] {
        const int v = std::max(kChunks, in.schedule.v);
        // A name no row has is tried as a --schedule key, which says why it is not one.
        const engine::NamedSchedule* named = engine::scheduleByName(current);
        return named ? named->generate(p, 2 * m, v)
                     : engine::Schedule::byName(current, p, 2 * m, v);
      },
      c.f / 2, c.b / 2, c.w / 2, 0.5);
  if (twice.available && twice.note.empty()) {
    twice.note = "same global batch: each op takes half the measured time";
  }
  rows.push_back(twice);
  return rows;
}

}  // namespace bubblescope::analysis

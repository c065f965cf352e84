#include "reference_engine/executor/summary.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace bubblescope::engine {

std::vector<StepSummary> summarizeSteps(const EngineConfig& config,
                                        const std::vector<StageRecord>& stages) {
  const int p = config.schedule.p;
  std::vector<StepSummary> out;
  for (int step = 0; step < config.steps; ++step) {
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    int64_t opFirst = first, opLast = last, busy = 0;
    for (const StageRecord& stage : stages) {
      for (const StepRecord& s : stage.steps) {
        if (s.step != step) continue;
        first = std::min(first, s.span.startNs);
        last = std::max(last, s.span.endNs);
      }
      for (const OpRecord& op : stage.ops) {
        if (op.step != step) continue;
        opFirst = std::min(opFirst, op.startNs);
        opLast = std::max(opLast, op.endNs);
        busy += op.endNs - op.startNs;
      }
    }
    StepSummary s;
    s.step = step;
    s.ms = last > first ? static_cast<double>(last - first) / 1e6 : 0;
    if (opLast > opFirst) {
      s.bubble = 1.0 - static_cast<double>(busy) / (static_cast<double>(p) * (opLast - opFirst));
    }
    // The run's loss is stage 0's (truth.json's "loss", mlp only).
    if (config.compute == ComputeMode::Mlp && !stages.empty() &&
        step < static_cast<int>(stages.front().steps.size())) {
      s.loss = stages.front().steps[static_cast<size_t>(step)].loss.value_or(0.0);
    }
    out.push_back(s);
  }
  return out;
}

std::string formatSummary(const EngineConfig& config, const std::vector<StageRecord>& stages,
                          const std::string& truthPath) {
  std::string out;
  char line[256];
  const Schedule& schedule = config.schedule;
  std::snprintf(line, sizeof line, "engine: %s, p=%d m=%d v=%d, %d step(s), compute %s",
                scheduleName(schedule.kind), schedule.p, schedule.m, schedule.v, config.steps,
                computeModeName(config.compute));
  out += line;
  if (config.compute == ComputeMode::Sleep) {
    std::snprintf(line, sizeof line, " (F %g, B %g, W %g ms)", config.costs.fMs, config.costs.bMs,
                  config.costs.wMs);
    out += line;
  }
  out += "\n";
  for (const auto& s : summarizeSteps(config, stages)) {
    std::snprintf(line, sizeof line, "  step %-3d %9.2f ms   bubble %5.1f%%", s.step, s.ms,
                  100.0 * s.bubble);
    out += line;
    if (s.loss) {
      std::snprintf(line, sizeof line, "   loss %.5f", *s.loss);
      out += line;
    }
    out += "\n";
  }
  out += "truth: " + truthPath + "\n";
  return out;
}

}  // namespace bubblescope::engine

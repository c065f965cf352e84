#include "reference_engine/executor/summary.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace bubblescope::engine {

using nlohmann::json;

std::vector<StepSummary> summarizeSteps(const json& truth) {
  const int steps = truth.at("steps");
  const int p = truth.at("p");
  std::vector<StepSummary> out;
  for (int step = 0; step < steps; ++step) {
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    int64_t opFirst = first, opLast = last, busy = 0;
    for (const auto& stage : truth.at("stages")) {
      for (const auto& s : stage.at("steps")) {
        if (s.at("step") != step) continue;
        first = std::min(first, s.at("start_ns").get<int64_t>());
        last = std::max(last, s.at("end_ns").get<int64_t>());
      }
      for (const auto& op : stage.at("ops")) {
        if (op.at("step") != step) continue;
        const int64_t a = op.at("start_ns"), b = op.at("end_ns");
        opFirst = std::min(opFirst, a);
        opLast = std::max(opLast, b);
        busy += b - a;
      }
    }
    StepSummary s;
    s.step = step;
    s.ms = last > first ? static_cast<double>(last - first) / 1e6 : 0;
    if (opLast > opFirst) {
      s.bubble = 1.0 - static_cast<double>(busy) / (static_cast<double>(p) * (opLast - opFirst));
    }
    if (truth.contains("loss") && step < static_cast<int>(truth["loss"].size())) {
      s.loss = truth["loss"][static_cast<size_t>(step)].get<double>();
    }
    out.push_back(s);
  }
  return out;
}

std::string formatSummary(const json& truth, const std::string& truthPath) {
  std::string out;
  char line[256];
  const auto& costs = truth.at("costs_ms");
  std::snprintf(line, sizeof line, "engine: %s, p=%d m=%d v=%d, %d step(s), compute %s",
                truth.at("schedule_kind").get<std::string>().c_str(), truth.at("p").get<int>(),
                truth.at("m").get<int>(), truth.at("v").get<int>(), truth.at("steps").get<int>(),
                truth.at("compute").get<std::string>().c_str());
  out += line;
  if (truth.at("compute") == "sleep") {
    std::snprintf(line, sizeof line, " (F %g, B %g, W %g ms)", costs.at("F").get<double>(),
                  costs.at("B").get<double>(), costs.at("W").get<double>());
    out += line;
  }
  out += "\n";
  for (const auto& s : summarizeSteps(truth)) {
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

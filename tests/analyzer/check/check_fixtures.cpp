#include "tests/analyzer/check/check_fixtures.h"

#include <cmath>

namespace bubblescope::testing {

nlohmann::json pipelineJson(const PipelineNumbers& n) {
  using nlohmann::json;
  const TimeNs span = 1'000'000'000;  // 1 s over all stages and steps: 1% = 10 ms
  const auto pct = [&](double v) { return static_cast<TimeNs>(std::llround(v * span / 100.0)); };
  json classes = json::object();
  for (const char* key : {"warmup", "drain", "schedule", "imbalance", "jitter", "stall_comm",
                          "stall_host", "stall_other"}) {
    auto it = n.classPct.find(key);
    classes[key] = it == n.classPct.end() ? 0 : pct(it->second);
  }
  json stages = json::array();
  for (size_t s = 0; s < n.stageSlowdown.size(); ++s) {
    stages.push_back({{"stage", s}, {"slowdown", n.stageSlowdown[s]}});
  }
  return {
      {"dp_rank", n.dpRank},
      {"schedule", {{"name", "1F1B"}, {"p", n.stageSlowdown.size()}, {"m", 8}}},
      {"step_time_ns",
       {{"measured", static_cast<TimeNs>(n.stepMs * 1e6)},
        {"ideal", static_cast<TimeNs>(n.stepMs * 1e6 / n.slowdown)}}},
      {"slowdown", n.slowdown},
      {"total", {{"span_ns", span}, {"idle_ns", pct(n.bubblePct)}, {"idle_by_class_ns", classes}}},
      {"stages", stages}};
}

nlohmann::json reportJson(const std::vector<PipelineNumbers>& pipelines) {
  nlohmann::json doc = {{"schema_version", 1}, {"tool", "bubblescope"}};
  doc["pipelines"] = nlohmann::json::array();
  for (const auto& p : pipelines) doc["pipelines"].push_back(pipelineJson(p));
  return doc;
}

}  // namespace bubblescope::testing

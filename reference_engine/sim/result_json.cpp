#include "reference_engine/sim/result_json.h"

namespace bubblescope::engine {
namespace {

nlohmann::json kindCostsJson(const KindCosts& k) {
  return {{"f_ns", k.f}, {"b_ns", k.b}, {"w_ns", k.w}, {"bw_ns", k.of(OpKind::BW)}};
}

}  // namespace

nlohmann::json simulationJson(const Schedule& s, const SimCosts& costs, const SimResult& r) {
  nlohmann::json costsJson = kindCostsJson(costs.perKind);
  if (!costs.perStage.empty()) {
    costsJson["per_stage"] = nlohmann::json::array();
    for (const auto& k : costs.perStage) costsJson["per_stage"].push_back(kindCostsJson(k));
  }
  costsJson["per_op"] = !costs.perOp.empty();
  costsJson["transfer_ns"] = costs.transfer;
  costsJson["memory"] = {{"m_b", costs.memory.mB}, {"m_w", costs.memory.mW}};

  nlohmann::json stages = nlohmann::json::array();
  for (size_t st = 0; st < r.stages.size(); ++st) {
    const StageTimeline& t = r.stages[st];
    nlohmann::json ops = nlohmann::json::array();
    for (size_t i = 0; i < t.ops.size(); ++i) {
      const Op& op = s.stages[st][i];
      ops.push_back({{"kind", kindName(op.kind)},
                     {"mb", op.mb},
                     {"chunk", op.chunk},
                     {"ready_ns", t.ops[i].ready},
                     {"start_ns", t.ops[i].start},
                     {"end_ns", t.ops[i].end}});
    }
    stages.push_back({{"stage", st},
                      {"busy_ns", t.busy},
                      {"idle_ns", t.idle},
                      {"first_start_ns", t.firstStart},
                      {"last_end_ns", t.lastEnd},
                      {"span_ns", t.span()},
                      {"peak_memory", t.peakMemory},
                      {"ops", std::move(ops)}});
  }
  return {{"schedule", scheduleName(s.kind)},
          {"p", s.p},
          {"m", s.m},
          {"v", s.v},
          {"layout", s.layout == ChunkLayout::V ? "v" : "looped"},
          {"costs", std::move(costsJson)},
          {"makespan_ns", r.makespan},
          {"bubble_rate", r.bubbleRate},
          {"bubble_ns", r.stages.empty() ? 0 : r.bubble()},
          {"idle_fraction", r.idleFraction},
          {"longest_stage", r.longestStage},
          {"peak_memory", r.peakMemory},
          {"stages", std::move(stages)}};
}

}  // namespace bubblescope::engine

#include "analyzer/report/json_report.h"

#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/report/sections/job_section.h"
#include "analyzer/report/sections/model_section.h"
#include "analyzer/report/sections/root_cause_section.h"
#include "analyzer/report/sections/split_json.h"
#include "analyzer/report/sections/utilization_report.h"
#include "analyzer/report/sections/what_if_section.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

json opJson(const Op& op) {
  return {{"kind", engine::kindName(op.kind)}, {"mb", op.mb}, {"chunk", op.chunk}};
}

json blameJson(const Blame& b) {
  json j = {{"cause", idleClassKey(b.cause)}, {"text", b.text}};
  if (b.stage >= 0) {
    j["stage"] = b.stage;
    j["op"] = opJson(b.op);
    if (b.costRatio > 0) j["cost_ratio"] = b.costRatio;
  }
  return j;
}

json pipelineJson(const PipelineResult& pl) {
  json j;
  j["dp_rank"] = pl.dpRank;
  j["schedule"] = {{"name", pl.schedule.name}, {"exact", pl.schedule.exact},
                   {"p", pl.schedule.p},       {"m", pl.schedule.m},
                   {"v", pl.schedule.v},       {"splits_backward", pl.schedule.splitsBackward}};
  j["step_time_ns"] = {{"measured", pl.stepTimeMeasured},
                       {"ideal", pl.stepTimeIdeal},
                       {"stage_means", pl.stepTimeStage},
                       {"measured_op_costs", pl.stepTimeOps}};
  j["slowdown"] = pl.slowdown;
  j["culprit"] = {{"text", pl.culprit}, {"stage", pl.culpritStage}, {"gain_ns", pl.culpritGain}};
  j["transfer_median_ns"] = pl.transferMedian;
  j["tail_median_ns"] = pl.tailMedian;
  j["total"] = splitJson(pl.total);
  j["bubble_fraction"] =
      pl.total.span > 0 ? static_cast<double>(pl.total.idle) / static_cast<double>(pl.total.span)
                        : 0.0;
  json steps = json::array();
  for (const auto& s : pl.steps) {
    steps.push_back({{"number", s.number}, {"start_ns", s.start}, {"end_ns", s.end}});
  }
  j["steps"] = steps;
  json stages = json::array();
  for (const auto& st : pl.stages) {
    json per = json::array();
    for (const auto& s : st.perStep) per.push_back(splitJson(s));
    json means = json::object();
    for (int k = 0; k < 4; ++k) {
      if (st.meanCost[k] > 0) means[engine::kindName(static_cast<OpKind>(k))] = st.meanCost[k];
    }
    stages.push_back({{"stage", st.stage},
                      {"rank", st.rank},
                      {"ranks", st.ranks},
                      {"slowdown", st.slowdown},
                      {"mean_op_cost_ns", means},
                      {"total", splitJson(st.total)},
                      {"per_step", per}});
    if (st.slowdownBounded) stages.back()["slowdown_bounded"] = true;
  }
  j["stages"] = stages;
  json gaps = json::array();
  for (const auto& g : pl.gaps) {
    json classes = json::object();
    for (int c = 0; c < kIdleClasses; ++c) {
      if (g.byClass[c]) classes[idleClassKey(idleClassAt(c))] = g.byClass[c];
    }
    json gj = {{"stage", g.stage},
               {"step", g.step},
               {"start_ns", g.start},
               {"end_ns", g.end},
               {"idle_ns", g.idle},
               {"idle_by_class_ns", classes},
               {"dominant", idleClassKey(g.dominant)},
               {"blame", blameJson(g.blame)}};
    if (g.nextOp >= 0) gj["next_op"] = g.nextOp;
    if (g.freeMemory != traces::kBytesUnknown) gj["free_memory_bytes"] = g.freeMemory;
    gaps.push_back(gj);
  }
  j["gaps"] = gaps;
  j["top_gaps"] = pl.topGaps;  // kept beside root_causes: gates read it
  j["root_causes"] = rootCausesJson(pl);
  json ops = json::array();
  for (const auto& o : pl.ops) {
    json oj = opJson(o.op);
    oj["stage"] = o.stage;
    oj["step"] = o.step;
    oj["start_ns"] = o.start;
    oj["end_ns"] = o.end;
    oj["ideal_cost_ns"] = o.idealCost;
    ops.push_back(oj);
  }
  j["ops"] = ops;
  json ideal = json::array();
  for (const auto& o : pl.idealOps) {
    json oj = opJson(o.op);
    oj["stage"] = o.stage;
    oj["start_ns"] = o.start;
    oj["end_ns"] = o.end;
    ideal.push_back(oj);
  }
  j["ideal_step"] = ideal;
  json transfers = json::array();
  for (const auto& t : pl.transfers) {
    transfers.push_back({{"pass", engine::kindName(t.pass)},
                         {"mb", t.mb},
                         {"from_stage", t.fromStage},
                         {"to_stage", t.toStage},
                         {"step", t.step},
                         {"send_ns", {t.sendStart, t.sendEnd}},
                         {"recv_ns", {t.recvStart, t.recvEnd}}});
  }
  j["transfers"] = transfers;
  json waits = json::array();
  for (const auto& w : pl.commWaits) {
    waits.push_back({{"stage", w.stage},
                     {"rank", w.rank},
                     {"kernel", w.kernel},
                     {"start_ns", w.start},
                     {"transfer_start_ns", w.transferStart},
                     {"end_ns", w.end},
                     {"gap", w.gap}});
    if (w.members.partial()) waits.back()["members"] = tracedMembersJson(w.members);
  }
  j["comm_waits"] = waits;
  json whatIf = json::array();
  for (const auto& w : pl.whatIf) {
    json wj = {{"scenario", w.scenario}, {"available", w.available}, {"note", w.note}};
    if (w.available) {
      wj["step_time_ns"] = w.stepTime;
      wj["bubble_rate"] = w.bubbleRate;
      wj["speedup"] = w.speedup;
      wj["trusted"] = w.trusted;
      wj["activation_memory"] = activationMemoryJson(w);
    }
    whatIf.push_back(wj);
  }
  j["what_if"] = whatIf;
  j["what_if_withheld"] = pl.whatIfWithheld.empty() ? json(nullptr) : json(pl.whatIfWithheld);
  const ActivationSize& size = pl.activationSize;
  j["activation_bytes_per_microbatch"] =
      size.perMicrobatch.empty() ? json({{"stages", nullptr}, {"unknown", size.unknown}})
                                 : json({{"stages", size.perMicrobatch}, {"unknown", nullptr}});
  j["model_check"] = modelCheckJson(pl.model);
  j["bubble_inventory"] = inventoryJson(bubbleInventory(pl));
  return j;
}

}  // namespace

json toJson(const AnalysisResult& r) {
  json j;
  j["schema_version"] = AnalysisResult::kSchemaVersion;
  j["tool"] = "bubblescope";
  j["run"] = {{"dir", r.runDir},
              {"command", r.command},
              {"ranks", r.ranks},
              {"pp", r.pp},
              {"dp", r.dp},
              {"tp", r.tp},
              {"topology_source", r.topologySource},
              {"rule_set", r.ruleSet},
              {"ops_inferred", r.opsInferred},
              {"op_inference",
               {{"from_p2p", r.inference.fromP2p},
                {"confidence", r.inference.confidence},
                {"evidence", r.inference.evidence}}},
              {"dropped_events", r.droppedEvents},
              // The capture's first step, left out as warm-up (null: every step in range).
              {"warmup_step_left_out",
               r.warmupStepLeftOut ? json(*r.warmupStepLeftOut) : json(nullptr)}};
  j["clock"] = {{"aligned", r.clock.enabled},
                {"offsets_ns", r.clock.offsets},
                {"max_correction_ns", r.clock.maxCorrection}};
  json pipelines = json::array();
  for (const auto& pl : r.pipelines) pipelines.push_back(pipelineJson(pl));
  j["pipelines"] = pipelines;
  if (r.job.present) j["job"] = jobJson(r.job);
  if (r.utilization) j["utilization"] = utilizationJson(*r.utilization);
  j["warnings"] = r.warnings;
  return j;
}

}  // namespace bubblescope::analysis

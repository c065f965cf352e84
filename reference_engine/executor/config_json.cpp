#include "reference_engine/executor/config_json.h"

#include <stdexcept>

#include "reference_engine/schedule/schedule_table.h"

namespace bubblescope::engine {

using nlohmann::json;

namespace {

OpKind kindFromName(const std::string& name) {
  for (OpKind k : {OpKind::F, OpKind::B, OpKind::W, OpKind::BW}) {
    if (name == kindName(k)) return k;
  }
  throw std::invalid_argument("unknown op kind '" + name + "'");
}

ScheduleKind scheduleKindFromName(const std::string& name) {
  const NamedSchedule* named = scheduleByName(name);
  return named ? named->kind : ScheduleKind::Custom;
}

json stallToJson(const Stall& s) {
  json j = {{"stage", s.stage}, {"mb", s.mb}, {"ms", s.ms}, {"step", nullptr}};
  if (s.step) j["step"] = *s.step;
  return j;
}

Stall stallFromJson(const json& j) {
  Stall s;
  s.stage = j.at("stage");
  s.mb = j.at("mb");
  s.ms = j.at("ms");
  if (!j.at("step").is_null()) s.step = j.at("step").get<int>();
  return s;
}

}  // namespace

json scheduleToJson(const Schedule& s) {
  json stages = json::array();
  for (const auto& ops : s.stages) {
    json list = json::array();
    for (const Op& op : ops) list.push_back({kindName(op.kind), op.mb, op.chunk});
    stages.push_back(std::move(list));
  }
  return {{"kind", scheduleName(s.kind)},
          {"p", s.p},
          {"m", s.m},
          {"v", s.v},
          {"layout", s.layout == ChunkLayout::V ? "v" : "looped"},
          {"stages", std::move(stages)}};
}

Schedule scheduleFromJson(const json& j) {
  Schedule s;
  s.kind = scheduleKindFromName(j.at("kind"));
  s.p = j.at("p");
  s.m = j.at("m");
  s.v = j.at("v");
  s.layout = j.at("layout") == "v" ? ChunkLayout::V : ChunkLayout::Looped;
  for (const auto& list : j.at("stages")) {
    auto& ops = s.stages.emplace_back();
    for (const auto& op : list) ops.push_back({kindFromName(op.at(0)), op.at(1), op.at(2)});
  }
  return s;
}

json faultsToJson(const Faults& f) {
  json j = {{"slow_stages", json::array()}, {"stalls", json::array()},
            {"host_stalls", json::array()}, {"comm_delays", json::array()},
            {"jitter_pct", f.jitterPct},    {"crashes", json::array()}};
  for (const auto& s : f.slowStages)
    j["slow_stages"].push_back({{"stage", s.stage}, {"factor", s.factor}});
  for (const auto& s : f.stalls) j["stalls"].push_back(stallToJson(s));
  for (const auto& s : f.hostStalls) j["host_stalls"].push_back(stallToJson(s));
  for (const auto& d : f.commDelays) j["comm_delays"].push_back({{"stage", d.stage}, {"ms", d.ms}});
  for (const auto& c : f.crashes) {
    j["crashes"].push_back({{"stage", c.stage}, {"mb", c.mb}, {"step", c.step}});
  }
  j["mismatches"] = json::array();
  for (const auto& mm : f.mismatches)
    j["mismatches"].push_back({{"stage", mm.stage}, {"mb", mm.mb}});
  j["hangs"] = json::array();
  for (const auto& h : f.hangs) {
    j["hangs"].push_back({{"stage", h.stage}, {"mb", h.mb}, {"step", h.step}});
  }
  return j;
}

Faults faultsFromJson(const json& j) {
  Faults f;
  for (const auto& s : j.at("slow_stages")) f.slowStages.push_back({s.at("stage"), s.at("factor")});
  for (const auto& s : j.at("stalls")) f.stalls.push_back(stallFromJson(s));
  for (const auto& s : j.at("host_stalls")) f.hostStalls.push_back(stallFromJson(s));
  for (const auto& d : j.at("comm_delays")) f.commDelays.push_back({d.at("stage"), d.at("ms")});
  f.jitterPct = j.at("jitter_pct");
  for (const auto& c : j.at("crashes"))
    f.crashes.push_back({c.at("stage"), c.at("mb"), c.at("step")});
  // Absent from configurations written before these faults existed.
  for (const auto& mm : j.value("mismatches", json::array()))
    f.mismatches.push_back({mm.at("stage"), mm.at("mb")});
  for (const auto& h : j.value("hangs", json::array()))
    f.hangs.push_back({h.at("stage"), h.at("mb"), h.at("step")});
  return f;
}

json costsToJson(const OpCosts& c) {
  return {{"F", c.fMs},
          {"B", c.bMs},
          {"W", c.wMs},
          {"BW", c.ms(OpKind::BW)},
          {"optimizer", c.optimizerMs}};
}

json engineConfigToJson(const EngineConfig& c) {
  return {{"schedule_name", c.scheduleName},
          {"schedule", scheduleToJson(c.schedule)},
          {"steps", c.steps},
          {"compute", computeModeName(c.compute)},
          {"labels", c.labels},
          {"costs_ms", costsToJson(c.costs)},
          {"payload_bytes", c.payloadBytes},
          {"mlp",
           {{"width", c.mlp.width},
            {"batch", c.mlp.batch},
            {"lr", c.mlp.lr},
            {"max_grad_norm", c.mlp.maxGradNorm}}},
          {"seed", c.seed},
          {"faults", faultsToJson(c.faults)},
          {"truth", c.truthPath.string()},
          {"timeout_s", c.timeoutSeconds},
          {"worker_command", c.workerCommand},
          {"command", c.commandLine}};
}

EngineConfig engineConfigFromJson(const json& j) {
  EngineConfig c;
  c.scheduleName = j.at("schedule_name");
  c.schedule = scheduleFromJson(j.at("schedule"));
  c.steps = j.at("steps");
  c.compute = parseComputeMode(j.at("compute"));
  c.labels = j.at("labels");
  const auto& costs = j.at("costs_ms");
  c.costs = {costs.at("F"), costs.at("B"), costs.at("W"), costs.at("optimizer")};
  c.payloadBytes = j.at("payload_bytes");
  const auto& mlp = j.at("mlp");
  c.mlp = {mlp.at("width"), mlp.at("batch"), mlp.at("lr"), mlp.at("max_grad_norm")};
  c.seed = j.at("seed");
  c.faults = faultsFromJson(j.at("faults"));
  c.truthPath = j.at("truth").get<std::string>();
  c.timeoutSeconds = j.at("timeout_s");
  c.workerCommand = j.at("worker_command").get<std::vector<std::string>>();
  c.commandLine = j.at("command").get<std::vector<std::string>>();
  return c;
}

}  // namespace bubblescope::engine

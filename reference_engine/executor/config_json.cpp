#include "reference_engine/executor/config_json.h"

#include "reference_engine/executor/order_fault.h"
#include "reference_engine/executor/range_names.h"
#include "reference_engine/schedule/schedule_table.h"

namespace bubblescope::engine {

using nlohmann::json;
using traces::JsonWriter;

namespace {

ScheduleKind scheduleKindFromName(const std::string& name) {
  const NamedSchedule* named = scheduleByName(name);
  return named ? named->kind : ScheduleKind::Custom;
}

// A fault's @FROM[-TO] range as two members, "from_step" (first) and "to_step" (exclusive; null:
// to the run's end), in the byte order of the members around them: each writes its half where it
// sorts. A fault without a range has neither, so its bytes are as before ranges existed.
void writeFromStep(const std::optional<StepRange>& r, JsonWriter& out) {
  if (r) out.field("from_step", r->from);
}
void writeToStep(const std::optional<StepRange>& r, JsonWriter& out) {
  if (r) out.field("to_step", r->to);
}

std::optional<StepRange> stepRangeFromJson(const json& j) {
  if (!j.contains("from_step")) return std::nullopt;
  StepRange r;
  r.from = j.at("from_step");
  if (!j.at("to_step").is_null()) r.to = j.at("to_step").get<int>();
  return r;
}

void writeStall(const Stall& s, JsonWriter& out) {
  out.beginObject();
  writeFromStep(s.steps, out);
  out.field("mb", s.mb);
  out.field("ms", s.ms);
  out.field("stage", s.stage);
  out.field("step", s.step);  // null: every step (or the range's)
  writeToStep(s.steps, out);
  out.endObject();
}

// Where the mismatch makes its two stages block: what a debugger's answer is checked against.
void writeMismatch(const Mismatch& mm, const Schedule* effectsOf, JsonWriter& out) {
  out.beginObject();
  if (!effectsOf) {
    out.field("mb", mm.mb);
    out.field("stage", mm.stage);
    out.endObject();
    return;
  }
  const MismatchEffect e = planMismatch(*effectsOf, mm);
  out.field("mb", mm.mb);
  out.field("op", opRangeName(e.op));
  out.field("op_index", e.index);
  out.field("peer", e.peer);
  out.field("peer_waits", e.peerWaits);
  out.field("runs_after", opRangeName(e.after));
  out.field("stage", mm.stage);
  out.field("stage_waits", e.stageWaits);
  // The ops it finishes in the step before it blocks: all up to the one it waits for, but the
  // late one.
  out.field("stops_at_op", e.afterIndex - 1);
  out.endObject();
}

// A list of faults of one kind, each an object of its fields.
template <class T, class Write>
void writeList(std::string_view name, const std::vector<T>& list, JsonWriter& out, Write write) {
  out.key(name).beginArray();
  for (const T& item : list) write(item);
  out.endArray();
}

Stall stallFromJson(const json& j) {
  Stall s;
  s.stage = j.at("stage");
  s.mb = j.at("mb");
  s.ms = j.at("ms");
  if (!j.at("step").is_null()) s.step = j.at("step").get<int>();
  s.steps = stepRangeFromJson(j);
  return s;
}

}  // namespace

void writeScheduleJson(const Schedule& s, JsonWriter& out) {
  out.beginObject();
  out.field("kind", scheduleName(s.kind));
  out.field("layout", s.layout == ChunkLayout::V ? "v" : "looped");
  out.field("m", s.m);
  out.field("p", s.p);
  out.key("stages").beginArray();
  for (const auto& ops : s.stages) {
    out.beginArray();
    for (const Op& op : ops) {  // [kind, mb, chunk]
      out.beginArray();
      out.value(kindName(op.kind));
      out.value(op.mb);
      out.value(op.chunk);
      out.endArray();
    }
    out.endArray();
  }
  out.endArray();
  out.field("v", s.v);
  out.endObject();
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
    for (const auto& op : list) {
      ops.push_back({kindFromName(op.at(0).get<std::string>()), op.at(1), op.at(2)});
    }
  }
  return s;
}

void writeFaultsJson(const Faults& f, JsonWriter& out, const Schedule* effectsOf) {
  out.beginObject();
  writeList("comm_delays", f.commDelays, out, [&](const CommDelay& d) {
    out.beginObject();
    writeFromStep(d.steps, out);
    out.field("ms", d.ms);
    out.field("stage", d.stage);
    writeToStep(d.steps, out);
    out.endObject();
  });
  writeList("crashes", f.crashes, out, [&](const Crash& c) {
    out.beginObject();
    out.field("mb", c.mb);
    out.field("stage", c.stage);
    out.field("step", c.step);
    out.endObject();
  });
  writeList("hangs", f.hangs, out, [&](const Hang& h) {
    out.beginObject();
    out.field("mb", h.mb);
    out.field("stage", h.stage);
    out.field("step", h.step);
    out.endObject();
  });
  writeList("host_stalls", f.hostStalls, out, [&](const Stall& s) { writeStall(s, out); });
  out.field("jitter_pct", f.jitterPct);
  // Only where given: configurations and truths without it read as before.
  if (!f.lateStarts.empty()) {
    writeList("late_starts", f.lateStarts, out, [&](const LateStart& l) {
      out.beginObject();
      out.field("seconds", l.seconds);
      out.field("stage", l.stage);
      out.endObject();
    });
  }
  writeList("mismatches", f.mismatches, out,
            [&](const Mismatch& mm) { writeMismatch(mm, effectsOf, out); });
  writeList("slow_stages", f.slowStages, out, [&](const SlowStage& s) {
    out.beginObject();
    out.field("factor", s.factor);
    writeFromStep(s.steps, out);
    out.field("stage", s.stage);
    writeToStep(s.steps, out);
    out.endObject();
  });
  writeList("stalls", f.stalls, out, [&](const Stall& s) { writeStall(s, out); });
  out.endObject();
}

Faults faultsFromJson(const json& j) {
  Faults f;
  for (const auto& s : j.at("slow_stages"))
    f.slowStages.push_back({s.at("stage"), s.at("factor"), stepRangeFromJson(s)});
  for (const auto& s : j.at("stalls")) f.stalls.push_back(stallFromJson(s));
  for (const auto& s : j.at("host_stalls")) f.hostStalls.push_back(stallFromJson(s));
  for (const auto& d : j.at("comm_delays"))
    f.commDelays.push_back({d.at("stage"), d.at("ms"), stepRangeFromJson(d)});
  f.jitterPct = j.at("jitter_pct");
  for (const auto& c : j.at("crashes"))
    f.crashes.push_back({c.at("stage"), c.at("mb"), c.at("step")});
  // Absent from configurations written before these faults existed.
  for (const auto& mm : j.value("mismatches", json::array()))
    f.mismatches.push_back({mm.at("stage"), mm.at("mb")});
  for (const auto& h : j.value("hangs", json::array()))
    f.hangs.push_back({h.at("stage"), h.at("mb"), h.at("step")});
  for (const auto& l : j.value("late_starts", json::array()))
    f.lateStarts.push_back({l.at("stage"), l.at("seconds")});
  return f;
}

void writeCostsJson(const OpCosts& c, JsonWriter& out) {
  out.beginObject();
  out.field("B", c.bMs);
  out.field("BW", c.ms(OpKind::BW));
  out.field("F", c.fMs);
  out.field("W", c.wMs);
  out.field("optimizer", c.optimizerMs);
  out.endObject();
}

void writeEngineConfigJson(const EngineConfig& c, std::ostream& stream) {
  {
    // Members in the byte order of their names, as nlohmann wrote the file (json_writer.h).
    JsonWriter out(stream, 1);
    out.beginObject();
    out.field("command", c.commandLine);
    out.field("compute", computeModeName(c.compute));
    out.key("costs_ms");
    writeCostsJson(c.costs, out);
    out.key("faults");
    writeFaultsJson(c.faults, out);
    out.field("labels", c.labels);
    out.key("mlp").beginObject();
    out.field("batch", c.mlp.batch);
    out.field("lr", c.mlp.lr);
    out.field("max_grad_norm", c.mlp.maxGradNorm);
    out.field("width", c.mlp.width);
    out.endObject();
    out.field("payload_bytes", c.payloadBytes);
    out.key("schedule");
    writeScheduleJson(c.schedule, out);
    out.field("schedule_name", c.scheduleName);
    out.field("seed", c.seed);
    out.field("steps", c.steps);
    out.field("timeout_s", c.timeoutSeconds);
    out.field("truth", c.truthPath.string());
    out.field("worker_command", c.workerCommand);
    out.endObject();
  }
  stream << "\n";
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

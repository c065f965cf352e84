#include "reference_engine/executor/stage_record.h"

#include <algorithm>
#include <limits>
#include <map>

namespace bubblescope::engine {

using nlohmann::json;
using traces::JsonWriter;

namespace {

void writeInterval(const Interval& i, JsonWriter& out) {
  out.beginObject();
  out.field("end_ns", i.endNs);
  out.field("start_ns", i.startNs);
  out.endObject();
}

Interval intervalFromJson(const json& j) {
  return {j.at("start_ns"), j.at("end_ns")};
}

void writeTransfers(const std::vector<TransferRecord>& list, JsonWriter& out) {
  std::vector<const TransferRecord*> byStart;
  byStart.reserve(list.size());
  for (const TransferRecord& t : list) byStart.push_back(&t);
  std::stable_sort(byStart.begin(), byStart.end(),
                   [](const auto* a, const auto* b) { return a->startNs < b->startNs; });
  out.beginArray();
  for (const TransferRecord* t : byStart) {
    out.beginObject();
    out.field("bytes", t->bytes);
    out.field("chunk", t->chunk);
    out.field("end_ns", t->endNs);
    out.field("kind", t->gradient ? "B" : "F");
    out.field("mb", t->mb);
    out.field("peer", t->peer);
    out.field("peer_chunk", t->peerChunk);
    out.field("start_ns", t->startNs);
    out.field("step", t->step);
    out.endObject();
  }
  out.endArray();
}

std::vector<TransferRecord> transfersFromJson(const json& list) {
  std::vector<TransferRecord> out;
  for (const json& t : list) {
    out.push_back({t.at("step"), t.at("kind") == "B", t.at("mb"), t.at("chunk"), t.at("peer"),
                   t.at("peer_chunk"), t.at("bytes"), t.at("start_ns"), t.at("end_ns")});
  }
  return out;
}

void writeStep(const StepRecord& s, JsonWriter& out) {
  out.beginObject();
  out.field("end_ns", s.span.endNs);
  out.key("grad_sync");
  writeInterval(s.gradSync, out);
  if (s.loss) out.field("loss", *s.loss);
  out.key("optimizer");
  writeInterval(s.optimizer, out);
  out.field("start_ns", s.span.startNs);
  out.field("step", s.step);
  out.endObject();
}

}  // namespace

void writeStageRecordJson(const StageRecord& r, JsonWriter& out) {
  out.beginObject();
  // By name, a name given twice holding its last value.
  std::map<std::string, std::string> environment;
  for (const auto& [name, value] : r.environment) environment[name] = value;
  out.key("environment").beginObject();
  for (const auto& [name, value] : environment) out.field(name, value);
  out.endObject();
  out.key("injected").beginArray();
  for (const InjectedRecord& i : r.injected) {
    out.beginObject();
    out.field("end_ns", i.span.endNs);
    out.field("fault", i.fault);
    out.field("mb", i.mb);
    out.field("start_ns", i.span.startNs);
    out.field("step", i.step);
    out.endObject();
  }
  out.endArray();
  out.key("nvtx").beginArray();
  for (const RangeRecord& n : r.ranges) {
    out.beginObject();
    out.field("end_ns", n.endNs);
    out.field("name", n.name);
    out.field("start_ns", n.startNs);
    out.field("tid", n.tid);
    out.endObject();
  }
  out.endArray();
  out.key("ops").beginArray();
  for (const OpRecord& o : r.ops) {
    out.beginObject();
    out.field("chunk", o.op.chunk);
    out.field("end_ns", o.endNs);
    out.field("kind", kindName(o.op.kind));
    out.field("mb", o.op.mb);
    out.field("start_ns", o.startNs);
    out.field("step", o.step);
    out.endObject();
  }
  out.endArray();
  out.field("pid", r.pid);
  out.field("rank", r.stage);
  out.key("recvs");
  writeTransfers(r.recvs, out);
  out.key("sends");
  writeTransfers(r.sends, out);
  out.field("stage", r.stage);
  out.key("steps").beginArray();
  for (const StepRecord& s : r.steps) writeStep(s, out);
  out.endArray();
  out.key("threads").beginArray();
  for (const ThreadRecord& t : r.threads) {
    out.beginObject();
    out.field("name", t.name);
    out.field("tid", t.tid);
    out.endObject();
  }
  out.endArray();
  out.endObject();
}

StageRecord stageRecordFromJson(const json& j) {
  StageRecord r;
  r.stage = j.at("stage");
  r.pid = j.at("pid");
  for (const auto& [name, value] : j.at("environment").items()) {
    r.environment.emplace_back(name, value.get<std::string>());
  }
  for (const json& t : j.at("threads")) r.threads.push_back({t.at("tid"), t.at("name")});
  for (const json& o : j.at("ops")) {
    r.ops.push_back({o.at("step"),
                     {kindFromName(o.at("kind").get<std::string>()), o.at("mb"), o.at("chunk")},
                     o.at("start_ns"),
                     o.at("end_ns")});
  }
  r.sends = transfersFromJson(j.at("sends"));
  r.recvs = transfersFromJson(j.at("recvs"));
  for (const json& s : j.at("steps")) {
    StepRecord step;
    step.step = s.at("step");
    step.span = intervalFromJson(s);
    step.gradSync = intervalFromJson(s.at("grad_sync"));
    step.optimizer = intervalFromJson(s.at("optimizer"));
    // A loss that was not a number was written as null; it stays one.
    if (s.contains("loss")) {
      step.loss =
          s["loss"].is_null() ? std::numeric_limits<double>::quiet_NaN() : s["loss"].get<double>();
    }
    r.steps.push_back(step);
  }
  for (const json& i : j.at("injected")) {
    r.injected.push_back({i.at("fault"), i.at("step"), i.at("mb"), intervalFromJson(i)});
  }
  for (const json& n : j.at("nvtx")) {
    r.ranges.push_back({n.at("name"), n.at("tid"), n.at("start_ns"), n.at("end_ns")});
  }
  return r;
}

}  // namespace bubblescope::engine

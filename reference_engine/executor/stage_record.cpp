#include "reference_engine/executor/stage_record.h"

#include <algorithm>

namespace bubblescope::engine {

using nlohmann::json;

namespace {

json intervalToJson(const Interval& i) {
  return {{"start_ns", i.startNs}, {"end_ns", i.endNs}};
}

json transfersToJson(std::vector<TransferRecord> list) {
  std::stable_sort(list.begin(), list.end(),
                   [](const auto& a, const auto& b) { return a.startNs < b.startNs; });
  json out = json::array();
  for (const auto& t : list) {
    out.push_back({{"step", t.step},
                   {"kind", t.gradient ? "B" : "F"},
                   {"mb", t.mb},
                   {"chunk", t.chunk},
                   {"peer", t.peer},
                   {"peer_chunk", t.peerChunk},
                   {"bytes", t.bytes},
                   {"start_ns", t.startNs},
                   {"end_ns", t.endNs}});
  }
  return out;
}

}  // namespace

json stageRecordToJson(const StageRecord& r) {
  json ops = json::array();
  for (const auto& o : r.ops) {
    ops.push_back({{"step", o.step},
                   {"kind", kindName(o.op.kind)},
                   {"mb", o.op.mb},
                   {"chunk", o.op.chunk},
                   {"start_ns", o.startNs},
                   {"end_ns", o.endNs}});
  }
  json steps = json::array();
  for (const auto& s : r.steps) {
    json j = {{"step", s.step},
              {"start_ns", s.span.startNs},
              {"end_ns", s.span.endNs},
              {"grad_sync", intervalToJson(s.gradSync)},
              {"optimizer", intervalToJson(s.optimizer)}};
    if (s.loss) j["loss"] = *s.loss;
    steps.push_back(std::move(j));
  }
  json injected = json::array();
  for (const auto& i : r.injected) {
    injected.push_back({{"fault", i.fault},
                        {"step", i.step},
                        {"mb", i.mb},
                        {"start_ns", i.span.startNs},
                        {"end_ns", i.span.endNs}});
  }
  json ranges = json::array();
  for (const auto& n : r.ranges) {
    ranges.push_back(
        {{"name", n.name}, {"tid", n.tid}, {"start_ns", n.startNs}, {"end_ns", n.endNs}});
  }
  json threads = json::array();
  for (const auto& t : r.threads) threads.push_back({{"tid", t.tid}, {"name", t.name}});
  json env = json::object();
  for (const auto& [name, value] : r.environment) env[name] = value;
  return {{"stage", r.stage},
          {"rank", r.stage},
          {"pid", r.pid},
          {"environment", std::move(env)},
          {"threads", std::move(threads)},
          {"ops", std::move(ops)},
          {"sends", transfersToJson(r.sends)},
          {"recvs", transfersToJson(r.recvs)},
          {"steps", std::move(steps)},
          {"injected", std::move(injected)},
          {"nvtx", std::move(ranges)}};
}

}  // namespace bubblescope::engine

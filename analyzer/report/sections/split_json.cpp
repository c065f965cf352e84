#include "analyzer/report/sections/split_json.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

// The parts both splits have.
json partsJson(TimeNs span, TimeNs compute, TimeNs exposedComm, TimeNs otherBusy, TimeNs idle) {
  return {{"span_ns", span},
          {"compute_ns", compute},
          {"exposed_comm_ns", exposedComm},
          {"other_busy_ns", otherBusy},
          {"idle_ns", idle}};
}

}  // namespace

json splitJson(const Split& s) {
  json classes = json::object();
  for (int c = 0; c < kIdleClasses; ++c) classes[idleClassKey(idleClassAt(c))] = s.idleByClass[c];
  json j = partsJson(s.span, s.compute, s.exposedComm, s.otherBusy, s.idle);
  j["idle_by_class_ns"] = std::move(classes);
  return j;
}

json splitJson(const UtilizationSplit& s) {
  json j = partsJson(s.span, s.compute, s.exposedComm, s.otherBusy, s.idle);
  j["comm_wait_ns"] = s.commWait;
  if (s.waitMembers.partial()) j["comm_wait_members"] = tracedMembersJson(s.waitMembers);
  return j;
}

json tracedMembersJson(const TracedMembers& m) {
  return {{"traced", m.traced}, {"of", m.of}, {"text", tracedMembersText(m)}};
}

}  // namespace bubblescope::analysis

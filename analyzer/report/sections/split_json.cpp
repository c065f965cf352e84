#include "analyzer/report/sections/split_json.h"

#include <algorithm>
#include <string_view>

namespace bubblescope::analysis {
namespace {

// The idle classes in the order of their keys, as a JSON object lists them.
const std::array<int, kIdleClasses>& classesByKey() {
  static const std::array<int, kIdleClasses> order = [] {
    std::array<int, kIdleClasses> o{};
    for (int c = 0; c < kIdleClasses; ++c) o[c] = c;
    std::sort(o.begin(), o.end(), [](int a, int b) {
      return std::string_view(idleClassKey(idleClassAt(a))) <
             std::string_view(idleClassKey(idleClassAt(b)));
    });
    return o;
  }();
  return order;
}

}  // namespace

void writeIdleByClassJson(const IdleByClass& byClass, bool skipZero, JsonWriter& out) {
  out.beginObject();
  for (int c : classesByKey()) {
    if (!skipZero || byClass[c]) out.field(idleClassKey(idleClassAt(c)), byClass[c]);
  }
  out.endObject();
}

void writeSplitJson(const Split& s, JsonWriter& out) {
  out.beginObject();
  out.field("compute_ns", s.compute);
  out.field("exposed_comm_ns", s.exposedComm);
  out.key("idle_by_class_ns");
  writeIdleByClassJson(s.idleByClass, false, out);
  out.field("idle_ns", s.idle);
  out.field("other_busy_ns", s.otherBusy);
  out.field("span_ns", s.span);
  out.endObject();
}

void writeSplitJson(const UtilizationSplit& s, JsonWriter& out, const StepFields* step) {
  out.beginObject();
  if (s.waitMembers.partial()) {
    out.key("comm_wait_members");
    writeTracedMembersJson(s.waitMembers, out);
  }
  out.field("comm_wait_ns", s.commWait);
  out.field("compute_ns", s.compute);
  if (step) out.field("end_ns", step->end);
  out.field("exposed_comm_ns", s.exposedComm);
  out.field("idle_ns", s.idle);
  out.field("other_busy_ns", s.otherBusy);
  out.field("span_ns", s.span);
  if (step) {
    out.field("start_ns", step->start);
    out.field("step", step->number);
  }
  out.endObject();
}

void writeTracedMembersJson(const TracedMembers& m, JsonWriter& out) {
  out.beginObject();
  out.field("of", m.of);
  out.field("text", tracedMembersText(m));
  out.field("traced", m.traced);
  out.endObject();
}

}  // namespace bubblescope::analysis

#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/report/sections/split_json.h"
#include "analyzer/report/sections/utilization_report.h"

namespace bubblescope::analysis {
namespace {

void writeGapJson(const IdleGap& g, JsonWriter& out) {
  out.beginObject();
  out.field("cause", g.cause);
  out.field("detail", g.detail);
  out.field("end_ns", g.end);
  if (g.freeMemory != traces::kBytesUnknown) out.field("free_memory_bytes", g.freeMemory);
  out.field("rank", g.rank);
  out.field("start_ns", g.start);
  out.field("step", g.step);
  out.endObject();
}

}  // namespace

void writeUtilizationJson(const UtilizationResult& u, JsonWriter& out) {
  out.beginObject();
  out.key("bubble_inventory");
  writeRankInventoryJson(u.ranks, out);
  const CollectiveCoverage& cc = u.collectives;
  out.key("collectives").beginObject();
  out.field("collectives", cc.collectives);
  if (cc.partial > 0) {
    out.key("least_traced");
    writeTracedMembersJson(cc.least, out);
  }
  out.field("members", cc.members);
  out.field("partial", cc.partial);
  out.field("traced_members", cc.traced);
  out.endObject();
  out.field("comm_kinds", u.commKinds);
  out.key("copies").beginArray();
  for (const CopyTraffic& c : u.copies) {
    out.beginObject();
    out.field("alone_ns", c.alone);
    out.field("bytes", c.bytes);
    out.field("count", c.count);
    out.field("direction", c.direction);
    out.endObject();
  }
  out.endArray();
  out.field("headline", u.headline);
  out.key("idle_by_cause").beginArray();
  for (const IdleCause& c : u.idleByCause) {
    out.beginObject();
    out.field("cause", c.cause);
    out.field("gaps", c.gaps);
    out.field("idle_ns", c.idle);
    out.endObject();
  }
  out.endArray();
  out.key("largest_gaps").beginArray();
  for (const IdleGap& g : u.largestGaps) writeGapJson(g, out);
  out.endArray();
  out.field("mean_step_time_ns", u.meanStepTime);
  out.field("median_step_time_ns", u.medianStepTime);
  out.key("ranks").beginArray();
  for (const RankUtilization& r : u.ranks) {
    out.beginObject();
    out.field("file", r.file);
    out.field("rank", r.rank);
    out.key("steps").beginArray();
    for (const UtilizationStep& s : r.steps) {
      const StepFields step{s.number, s.start, s.end};
      writeSplitJson(s.split, out, &step);
    }
    out.endArray();
    out.key("total");
    writeSplitJson(r.total, out);
    out.endObject();
  }
  out.endArray();
  out.key("slowest").beginObject();
  out.field("rank", u.slowestRank);
  out.field("step", u.slowestStep);
  out.field("step_time_ns", u.slowestStepTime);
  out.endObject();
  out.field("steps_from_markers", u.stepsFromMarkers);
  out.key("total");
  writeSplitJson(u.total, out);
  out.endObject();
}

}  // namespace bubblescope::analysis

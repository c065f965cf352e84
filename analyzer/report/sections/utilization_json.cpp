#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/report/sections/split_json.h"
#include "analyzer/report/sections/utilization_report.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

json gapJson(const IdleGap& g) {
  json j = {{"rank", g.rank},  {"step", g.step},   {"start_ns", g.start},
            {"end_ns", g.end}, {"cause", g.cause}, {"detail", g.detail}};
  if (g.freeMemory != traces::kBytesUnknown) j["free_memory_bytes"] = g.freeMemory;
  return j;
}

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

json utilizationJson(const UtilizationResult& u) {
  json ranks = json::array();
  for (const RankUtilization& r : u.ranks) {
    json steps = json::array();
    for (const UtilizationStep& s : r.steps) {
      json j = splitJson(s.split);
      j["step"] = s.number;
      j["start_ns"] = s.start;
      j["end_ns"] = s.end;
      steps.push_back(j);
    }
    ranks.push_back(
        {{"rank", r.rank}, {"file", r.file}, {"total", splitJson(r.total)}, {"steps", steps}});
  }
  json gaps = json::array();
  for (const IdleGap& g : u.largestGaps) gaps.push_back(gapJson(g));
  json causes = json::array();
  for (const IdleCause& c : u.idleByCause) {
    causes.push_back({{"cause", c.cause}, {"idle_ns", c.idle}, {"gaps", c.gaps}});
  }
  json copies = json::array();
  for (const CopyTraffic& c : u.copies) {
    copies.push_back({{"direction", c.direction},
                      {"alone_ns", c.alone},
                      {"bytes", c.bytes},
                      {"count", c.count}});
  }
  const CollectiveCoverage& cc = u.collectives;
  json collectives = {{"collectives", cc.collectives},
                      {"partial", cc.partial},
                      {"traced_members", cc.traced},
                      {"members", cc.members}};
  if (cc.partial > 0) collectives["least_traced"] = tracedMembersJson(cc.least);
  return {{"headline", u.headline},
          {"total", splitJson(u.total)},
          {"steps_from_markers", u.stepsFromMarkers},
          {"comm_kinds", u.commKinds},
          {"mean_step_time_ns", u.meanStepTime},
          {"median_step_time_ns", u.medianStepTime},
          {"slowest",
           {{"rank", u.slowestRank}, {"step", u.slowestStep}, {"step_time_ns", u.slowestStepTime}}},
          {"idle_by_cause", causes},
          {"largest_gaps", gaps},
          {"copies", copies},
          {"collectives", collectives},
          {"ranks", ranks},
          {"bubble_inventory", rankInventoryJson(u.ranks)}};
}

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

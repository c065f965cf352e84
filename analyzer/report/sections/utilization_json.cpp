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

}  // namespace bubblescope::analysis

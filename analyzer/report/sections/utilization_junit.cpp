#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/report/format.h"
#include "analyzer/report/junit_xml.h"
#include "analyzer/report/sections/utilization_report.h"

namespace bubblescope::analysis {
namespace {

void splitProperties(const UtilizationSplit& s, JunitProperties& p) {
  p.emplace_back("span_ms", formatMs(s.span, 3));
  p.emplace_back("compute_ms", formatMs(s.compute, 3));
  p.emplace_back("exposed_comm_ms", formatMs(s.exposedComm, 3));
  p.emplace_back("comm_wait_ms", formatMs(s.commWait, 3));
  if (s.waitMembers.partial())
    p.emplace_back("comm_wait_members", tracedMembersText(s.waitMembers));
  p.emplace_back("other_busy_ms", formatMs(s.otherBusy, 3));
  p.emplace_back("idle_ms", formatMs(s.idle, 3));
  p.emplace_back("idle_share_pct", formatPercent(share(s.idle, s.span), 3));
}

}  // namespace

void writeUtilizationJunit(const AnalysisResult& r, std::ostream& out) {
  const UtilizationResult& u = *r.utilization;
  JunitSuite suite;
  suite.name = "bubblescope";
  suite.properties.emplace_back("schema_version", std::to_string(AnalysisResult::kSchemaVersion));
  suite.properties.emplace_back("run", r.runDir);
  suite.properties.emplace_back("pipeline", "none");
  suite.properties.emplace_back("mean_step_time_ms", formatMs(u.meanStepTime, 3));
  suite.properties.emplace_back("slowest_rank", std::to_string(u.slowestRank));
  suite.properties.emplace_back("slowest_step", std::to_string(u.slowestStep));
  splitProperties(u.total, suite.properties);
  for (const RankUtilization& ru : u.ranks) {
    JunitCase c;
    c.classname = "bubblescope.utilization";
    c.name = "rank " + std::to_string(ru.rank);
    // The rank's idle per step, so CI trend charts plot where idle grows.
    c.seconds = static_cast<double>(ru.total.idle) / 1e9 /
                static_cast<double>(std::max<size_t>(1, ru.steps.size()));
    splitProperties(ru.total, c.properties);
    inventoryProperties(ru.inventory, c.properties);
    suite.cases.push_back(std::move(c));
  }
  for (const std::string& w : r.warnings) suite.systemErr += w + "\n";
  writeJunit(suite, out);
}

}  // namespace bubblescope::analysis

// A simulation's JSON, streamed (result_json.h), is byte for byte nlohmann's dump of the same
// document, as `simulate --format json` wrote it before it was streamed (issue 29): on every
// named schedule (with its paper prediction), a custom order (none), and costs with every
// optional member set (per-stage, per-op, transfer, memory).
#include "reference_engine/sim/result_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "reference_engine/schedule/schedule_table.h"

namespace bubblescope::engine {
namespace {

using nlohmann::json;

json expectSameBytesAsDump(const Schedule& s, const SimCosts& costs) {
  std::ostringstream out;
  writeSimulationJson(s, costs, simulate(s, costs), out);
  const json parsed = json::parse(out.str());
  EXPECT_EQ(out.str(), parsed.dump());
  return parsed;
}

SimCosts kindCosts() {
  SimCosts c;
  c.perKind = {1'000'000, 1'500'000, 500'000};
  return c;
}

TEST(SimulationJson, EveryNamedScheduleIsDumpsBytesWithItsPaperPrediction) {
  for (const NamedSchedule& named : kSchedules) {
    SCOPED_TRACE(named.key);
    const Schedule s = Schedule::byName(named.key, 4, 8, 2);
    const json j = expectSameBytesAsDump(s, kindCosts());
    EXPECT_EQ(j["schedule"], named.name);
    EXPECT_EQ(j.contains("paper"), named.paper != nullptr);
    EXPECT_EQ(j["stages"].size(), 4u);
  }
}

TEST(SimulationJson, EveryOptionalCostIsDumpsBytes) {
  const Schedule s = Schedule::byName("zb-h1", 3, 6);
  SimCosts c = kindCosts();
  c.perKind.bw = 1'750'000;
  c.perStage = {c.perKind, {2'000'000, 3'000'000, 1'000'000}, c.perKind};
  c.transfer = 250'000;
  c.memory = {3 << 20, 1 << 20};
  json j = expectSameBytesAsDump(s, c);
  EXPECT_EQ(j["costs"]["per_stage"][1]["b_ns"], 3'000'000);
  EXPECT_EQ(j["costs"]["bw_ns"], 1'750'000);
  EXPECT_EQ(j["costs"]["memory"], json({{"m_b", 3 << 20}, {"m_w", 1 << 20}}));
  EXPECT_EQ(j["costs"]["per_op"], false);
  for (const auto& ops : s.stages) {
    c.perOp.emplace_back();
    for (size_t i = 0; i < ops.size(); ++i) c.perOp.back().push_back(100'000 * (1 + i % 7));
  }
  j = expectSameBytesAsDump(s, c);
  EXPECT_EQ(j["costs"]["per_op"], true);
  const json& op = j["stages"][2]["ops"][0];
  EXPECT_EQ(op["kind"], "F");
  EXPECT_EQ(op["end_ns"].get<int64_t>() - op["start_ns"].get<int64_t>(), 100'000);
}

TEST(SimulationJson, ACustomOrderHasNoPaperPrediction) {
  Schedule s = Schedule::byName("1f1b", 2, 2);
  s.kind = ScheduleKind::Custom;
  const json j = expectSameBytesAsDump(s, kindCosts());
  EXPECT_EQ(j["schedule"], "custom");
  EXPECT_FALSE(j.contains("paper"));
}

}  // namespace
}  // namespace bubblescope::engine

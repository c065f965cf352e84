// The hang report's JSON, streamed (hang_output.h), is byte for byte nlohmann's dump(1) of the
// same document, as it was before it was streamed (issue 29): on diagnosed deadlocks, dead ranks
// and clean runs, a report with every member set, and one of many ranks; and it says what the
// report says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analyzer/hang/diagnose.h"
#include "analyzer/hang/hang_output.h"

namespace bubblescope::analysis::hang {
namespace {

using nlohmann::json;

constexpr TimeNs kT0 = 1'700'000'000'000'000'000;

RankStop stage(int s, RankEnd end = RankEnd::Stopped) {
  RankStop r;
  r.rank = r.stage = s;
  r.label = "stage " + std::to_string(s);
  r.file = "run/rank-" + std::to_string(s) + ".sqlite";
  r.end = end;
  r.aliveNs = kT0 + 5'000'000'000;
  r.step = "step 0";
  r.open = {"step 0"};
  return r;
}

Wait recv(const std::string& what, int on) {
  Wait w;
  w.what = what;
  w.on = {on};
  w.since = kT0;
  return w;
}

std::string jsonText(const HangReport& rep) {
  std::ostringstream out;
  writeHangReportJson(rep, out);
  return out.str();
}

// The streamed text against its own parse and dump: a member out of nlohmann's order, a number
// or an escape it writes otherwise, shows.
json expectSameBytesAsDump(const HangReport& rep) {
  const std::string streamed = jsonText(rep);
  const json parsed = json::parse(streamed);
  EXPECT_EQ(streamed, parsed.dump(1));
  return parsed;
}

TEST(HangJson, DiagnosedReportsAreDumpsBytes) {
  std::vector<RankStop> deadlock = {stage(0), stage(1), stage(2)};
  deadlock[0].waits = {recv("RECV B mb=2 from=1", 1)};
  deadlock[1].waits = {recv("RECV B mb=3 from=2", 2)};
  deadlock[1].opsInStep = 8;
  deadlock[2].waits = {recv("RECV F mb=4 from=1", 1)};
  std::vector<RankStop> dead = {stage(0), stage(1), stage(2, RankEnd::Died)};
  dead[0].waits = {recv("RECV B mb=0 from=1", 1)};
  dead[1].waits = {recv("RECV B mb=0 from=2", 2)};
  std::vector<RankStop> clean = {stage(0, RankEnd::Clean), stage(1, RankEnd::Clean)};
  for (const auto& ranks : {deadlock, dead, clean, std::vector<RankStop>{}}) {
    const HangReport rep = diagnose(ranks, {});
    const json j = expectSameBytesAsDump(rep);
    EXPECT_EQ(j["verdict"], verdictName(rep.verdict));
    EXPECT_EQ(j["found"], rep.found());
    EXPECT_EQ(j["ranks"].size(), ranks.size());
    EXPECT_EQ(j["edges"].size(), rep.edges.size());
  }
}

TEST(HangJson, EveryMemberSetIsWrittenAsDumpWritesIt) {
  HangReport rep;
  rep.verdict = Verdict::NcclStuck;
  rep.diagnosis = "NCCL stuck: \"rank 0\" \\ waits\tin caf\xc3\xa9 \xe2\x82\xac\n";
  rep.culprits = {1, 0};
  rep.details = {"one", "two \x01"};
  RankStop a = stage(0, RankEnd::Running);
  a.rank = 7;
  a.lastOp = "F mb=2";
  a.lastOpEnd = kT0 + 3;
  a.opsInStep = -1;
  a.open = {"step 0", "BW mb=1", "ncclRecv"};
  Wait w = recv("ncclRecv peer=1 count=100 comm=0x00000000c0ffee", 1);
  w.nccl = true;
  w.unwoundAt = kT0 + 9;
  w.kernelLaunch = kT0 + 1'000;
  w.partnerPosted = true;
  w.missingStage = 3;
  Wait outer = recv("RECV F mb=4 from=1", 1);
  outer.on = {1, 0};
  a.waits = {w, outer};
  RankStop b = stage(1);
  b.rank = 9;
  b.step.clear();
  rep.ranks = {a, b};
  rep.edges = {{0, 1, "ncclRecv"}, {1, 0, "ncclSend"}};
  const json j = expectSameBytesAsDump(rep);
  EXPECT_EQ(j["culprits"], json::array({9, 7}));
  EXPECT_EQ(j["details"][1], "two \x01");
  const json& wait = j["ranks"][0]["waits"][0];
  EXPECT_EQ(wait["kernel_launch_ns"], kT0 + 1'000);
  EXPECT_TRUE(wait["kernel_never_finished"].get<bool>());
  EXPECT_EQ(wait["missing_stage"], 3);
  EXPECT_EQ(wait["on"], json::array({9}));
  EXPECT_EQ(wait["unwound_ns"], kT0 + 9);
  EXPECT_EQ(j["ranks"][0]["waits"][1]["on"], json::array({9, 7}));
  EXPECT_EQ(j["ranks"][0]["next_op_index"], -1);
  EXPECT_EQ(j["ranks"][0]["ended"], rankEndName(RankEnd::Running));
  EXPECT_EQ(j["edges"][0], json({{"from", 7}, {"to", 9}, {"what", "ncclRecv"}}));
  EXPECT_EQ(j["schema_version"], 1);
}

TEST(HangJson, AReportOfManyRanksIsDumpsBytes) {
  std::vector<RankStop> ranks;
  for (int s = 0; s < 512; ++s) {
    ranks.push_back(stage(s));
    ranks.back().waits = {recv("RECV B mb=0 from=" + std::to_string((s + 1) % 512), (s + 1) % 512)};
  }
  const json j = expectSameBytesAsDump(diagnose(ranks, {}));
  EXPECT_EQ(j["ranks"].size(), 512u);
}

}  // namespace
}  // namespace bubblescope::analysis::hang

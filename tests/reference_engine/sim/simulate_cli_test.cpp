// `bubblescope simulate` through the real binary: the text timeline and summary, JSON with every
// op, and one-line errors with exit code 2 for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"

namespace bubblescope {
namespace {

using testing::runBubblescope;

TEST(SimulateCli, TextShowsTimelineSummaryAndPaperFormula) {
  const auto r = runBubblescope({"simulate", "--schedule", "zb-h1", "-p", "4", "-m", "8", "--costs",
                                 "1,1,1", "--width", "80"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* text : {"ZB-H1: p=4 stages, m=8 microbatches", "s0 |F0", "s3 |", "makespan",
                           "bubble rate", "11.11 %",
                           "paper formula       bubble (p-1)(T_F+T_B-T_W) = 3.000 ms (simulated "
                           "3.000 ms)",
                           "peak activations pM_B = 4.00 M_B (simulated 4.00 M_B)"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
  EXPECT_EQ(r.err, "");
}

TEST(SimulateCli, InterleavedTimelineLabelsChunks) {
  const auto r = runBubblescope({"simulate", "--schedule", "interleaved", "-p", "2", "-m", "4",
                                 "--v", "2", "--costs", "4,4,4", "--width", "200"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("F0.1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(p-1)(T_F+T_B+T_W)/v"), std::string::npos) << r.out;
}

TEST(SimulateCli, JsonCarriesEveryNumberAndEveryOp) {
  const auto r = runBubblescope({"simulate", "--schedule", "1f1b", "-p", "4", "-m", "8", "--costs",
                                 "1,1.5,0.5", "--transfer", "0.25", "--format", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schedule"], "1F1B");
  EXPECT_EQ(doc["p"], 4);
  EXPECT_EQ(doc["m"], 8);
  EXPECT_EQ(doc["costs"]["b_ns"], 1'500'000);
  EXPECT_EQ(doc["costs"]["bw_ns"], 2'000'000);
  EXPECT_EQ(doc["costs"]["transfer_ns"], 250'000);
  ASSERT_EQ(doc["stages"].size(), 4u);
  int64_t makespan = 0;
  for (const auto& stage : doc["stages"]) {
    EXPECT_EQ(stage["ops"].size(), 16u);
    EXPECT_EQ(stage["busy_ns"], 8 * 3'000'000);
    EXPECT_EQ(stage["idle_ns"].get<int64_t>() + stage["busy_ns"].get<int64_t>(),
              doc["makespan_ns"].get<int64_t>());
    for (const auto& op : stage["ops"]) makespan = std::max(makespan, op["end_ns"].get<int64_t>());
  }
  EXPECT_EQ(doc["makespan_ns"], makespan);
  EXPECT_EQ(doc["paper"]["bubble_formula"], "(p-1)(T_F+T_B+T_W)");
  EXPECT_GE(doc["bubble_rate"].get<double>(), 0.0);
}

struct BadInput {
  std::vector<std::string> args;
  const char* mentions;
};

TEST(SimulateCli, BadInputIsOneLineOnStderrWithExitCode2) {
  // Each case is complete; "-p 4 -m 8" are added unless the case names its own.
  const BadInput cases[] = {
      {{"--schedule", "pipedream"}, "unknown schedule 'pipedream'"},
      {{"--schedule", "1f1b", "-p", "0", "-m", "8"}, "--stages: must be a whole number from 1"},
      {{"--schedule", "1f1b", "-p", "4", "-m", "0"},
       "--microbatches: must be a whole number from 1"},
      {{"--schedule", "interleaved", "-p", "4", "-m", "6"}, "multiple of p (m=6, p=4)"},
      {{"--schedule", "interleaved", "--v", "1"}, "v=1"},
      {{"--schedule", "zb-h1", "--v", "3"}, "--v applies to the interleaved schedule only"},
      {{"--schedule", "1f1b", "--costs", "1,x,1"}, "--costs expects F,B,W"},
      {{"--schedule", "1f1b", "--costs", "1,1"}, "got '1,1'"},
      {{"--schedule", "1f1b", "--costs", "1,-1,1"}, "non-negative"},
      {{"--schedule", "1f1b", "--stage-costs", "9:1,1,1"}, "names stage 9 but p=4"},
      {{"--schedule", "1f1b", "--stage-costs", "one:1,1,1"}, "STAGE:F,B,W"},
      {{"--schedule", "1f1b", "--transfer=-1"}, "--transfer"},
      {{"--schedule", "1f1b", "--memory", "0"}, "--memory"},
      // 1e300 ms wrapped to a negative cost ("op costs must not be negative"), 1e300 MiB silently.
      {{"--schedule", "1f1b", "--costs", "1e300,1,1"}, "--costs expects F,B,W"},
      {{"--schedule", "1f1b", "--stage-costs", "0:1,1e300,1"}, "--stage-costs expects F,B,W"},
      {{"--schedule", "1f1b", "--memory", "1e300"}, "--memory expects M_B[,M_W] in MiB"},
      {{"--schedule", "1f1b", "--format", "xml"}, "--format must be text or json"},
      {{"--schedule", "1f1b", "-p", "100000", "-m", "100000"}, "too large to simulate"},
      {{"-p", "4", "-m", "8"}, "schedule"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"simulate"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    if (std::find(c.args.begin(), c.args.end(), "-p") == c.args.end()) {
      args.insert(args.end(), {"-p", "4", "-m", "8"});
    }
    const auto r = runBubblescope(args);
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    EXPECT_EQ(r.exitCode, 2) << shown << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << r.err;
    EXPECT_NE(r.err.find(c.mentions), std::string::npos) << shown << r.err;
    EXPECT_EQ(r.out, "") << shown;
  }
}

}  // namespace
}  // namespace bubblescope

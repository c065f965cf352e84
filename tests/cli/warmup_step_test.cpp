// The capture's first step is left out by default, and every report says so (issue 26, item 5):
// step 0 holds the allocator's warm-up and NCCL's set-up, and `demo` already left it out while
// `analyze` quietly did not.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "reference_engine/schedule/schedule.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A 1F1B job of `steps` steps (numbered 0, 1, ...) as rank files in `dir`.
fs::path writeRun(const fs::path& dir, int steps) {
  SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 8);
  job.steps = steps;
  fs::create_directories(dir);
  for (const auto& t : synthesize(job).ranks) {
    traces::writeRankTrace(t, dir / ("rank-0000" + std::to_string(t.meta.rank) + ".sqlite"));
  }
  return dir;
}

json analyzeJson(const fs::path& run, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"analyze", run.string(), "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = runBubblescope(args);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return json::parse(r.out);
}

std::vector<int64_t> stepNumbers(const json& report) {
  std::vector<int64_t> numbers;
  for (const auto& s : report["pipelines"][0]["steps"]) numbers.push_back(s["number"]);
  return numbers;
}

TEST(WarmupStep, TheFirstStepIsLeftOutByDefaultAndTheReportSaysSo) {
  TempDir tmp("bubblescope-warmup");
  const fs::path run = writeRun(tmp.path() / "run", 3);
  const json report = analyzeJson(run);
  EXPECT_EQ(stepNumbers(report), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(report["run"]["warmup_step_left_out"], 0);

  const auto text = runBubblescope({"analyze", run.string()});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("steps:    step 0 left out: a capture's first step warms up "
                          "(allocator, NCCL set-up); --steps all keeps it"),
            std::string::npos)
      << text.out;
  for (const char* format : {"md", "html"}) {
    const auto r = runBubblescope({"analyze", run.string(), "--format", format});
    EXPECT_NE(r.out.find("step 0 left out"), std::string::npos) << format;
  }
  const auto junit = runBubblescope({"analyze", run.string(), "--format", "junit"});
  EXPECT_NE(junit.out.find("name=\"warmup_step_left_out\" value=\"0\""), std::string::npos)
      << junit.out;
}

TEST(WarmupStep, StepsAllKeepsItAndARangeTakesWhatItNames) {
  TempDir tmp("bubblescope-warmup");
  const fs::path run = writeRun(tmp.path() / "run", 3);
  const json all = analyzeJson(run, {"--steps", "all"});
  EXPECT_EQ(stepNumbers(all), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(all["run"]["warmup_step_left_out"].is_null());
  const auto text = runBubblescope({"analyze", run.string(), "--steps", "all"});
  EXPECT_EQ(text.out.find("steps:    step 0 left out"), std::string::npos) << text.out;

  const json range = analyzeJson(run, {"--steps", "0:1"});
  EXPECT_EQ(stepNumbers(range), (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(range["run"]["warmup_step_left_out"].is_null());
}

// A capture of one step has nothing else to show: it is analysed, warm-up and all.
TEST(WarmupStep, ACaptureOfOneStepKeepsIt) {
  TempDir tmp("bubblescope-warmup");
  const json report = analyzeJson(writeRun(tmp.path() / "run", 1));
  EXPECT_EQ(stepNumbers(report), (std::vector<int64_t>{0}));
  EXPECT_TRUE(report["run"]["warmup_step_left_out"].is_null());
}

TEST(WarmupStep, ABadStepsSpecNamesAllAmongTheChoices) {
  TempDir tmp("bubblescope-warmup");
  const auto r = runBubblescope({"analyze", writeRun(tmp.path() / "run", 2).string(), "--steps",
                                 "first"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("or all"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bubblescope::testing

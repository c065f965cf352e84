// `bubblescope check` as a user runs it: exit 0 without regression, 1 with one (saying what and
// by how much), 2 with one line naming the file for every kind of bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "analyzer/report/json_report.h"
#include "tests/analyzer/check/check_fixtures.h"
#include "tests/analyzer/report/report_fixtures.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope {
namespace {

namespace fs = std::filesystem;
using testing::runBubblescope;

// Reports of a balanced and a slow-stage run, and the slow run's traces, made once.
class CheckCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir("bubblescope-check");
    const auto balanced = testing::oneF1BJob(4, 8);
    const auto slow = testing::oneF1BJob(4, 8, 2, 1.5);
    testing::writeFile(
        *dir_ / "balanced.json",
        analysis::jsonReportText(testing::analyzeJob(balanced), 2, analysis::JsonDetail::Summary));
    testing::writeFile(
        *dir_ / "slow.json",
        analysis::jsonReportText(testing::analyzeJob(slow), 2, analysis::JsonDetail::Summary));
    testing::writeFile(*dir_ / "two-stages.json",
                       analysis::jsonReportText(testing::analyzeJob(testing::oneF1BJob(2, 8)), 2,
                                                analysis::JsonDetail::Summary));
    const traces::Run run = testing::synthesize(slow);
    fs::create_directories(*dir_ / "slow-run");
    for (const auto& rank : run.ranks) {
      traces::writeRankTrace(rank, *dir_ / "slow-run" / fs::path(rank.file).filename());
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }

  static testing::TempDir* dir_;
};

testing::TempDir* CheckCli::dir_ = nullptr;

std::string lastLine(const std::string& s) {
  std::string t = s;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  return t.substr(t.rfind('\n') + 1);
}

long lines(const std::string& s) {
  return std::count(s.begin(), s.end(), '\n');
}

TEST_F(CheckCli, RegressionExitsOneAndSaysWhatAndByHowMuch) {
  const auto r = runBubblescope({"check", "--baseline", path("balanced.json"), path("slow.json")});
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("bubble share "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\u2192"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("S_s stage 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("idle: imbalance"), std::string::npos) << r.out;
  EXPECT_TRUE(lastLine(r.out).starts_with("REGRESSED: bubble share +")) << r.out;
}

TEST_F(CheckCli, SameRunPasses) {
  const auto r =
      runBubblescope({"check", "--baseline", path("balanced.json"), path("balanced.json")});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(lastLine(r.out), "OK: no regression (3 gated metrics within their limits)") << r.out;
}

TEST_F(CheckCli, ImprovementIsReportedAndPasses) {
  const auto r = runBubblescope({"check", "--baseline", path("slow.json"), path("balanced.json")});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("IMPROVED"), std::string::npos) << r.out;
  EXPECT_NE(lastLine(r.out).find("; improved: "), std::string::npos) << r.out;
}

TEST_F(CheckCli, LooseThresholdsLetTheSlowRunPass) {
  const auto r = runBubblescope({"check", "--baseline", path("balanced.json"), path("slow.json"),
                                 "--max-bubble-pp", "50", "--max-slowdown", "1",
                                 "--max-step-time-pct", "100"});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
}

TEST_F(CheckCli, RunDirectoryIsAnalysedFirst) {
  const auto r = runBubblescope({"check", "--baseline", path("balanced.json"), path("slow-run")});
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("REGRESSED"), std::string::npos) << r.out;
  // The same figures as its JSON report.
  const auto viaJson =
      runBubblescope({"check", "--baseline", path("balanced.json"), path("slow.json")});
  EXPECT_EQ(lastLine(r.out), lastLine(viaJson.out));
}

TEST_F(CheckCli, JunitFileHasAFailurePerRegression) {
  testing::TempDir out;
  const auto r = runBubblescope({"check", "--baseline", path("balanced.json"), path("slow.json"),
                                 "--junit", (out / "check.xml").string()});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  const testing::XmlElement root = testing::parseXml(testing::readFile(out / "check.xml"));
  EXPECT_EQ(root.all("testcase").size(), 3u);
  EXPECT_GE(root.all("failure").size(), 1u);
}

// Every bad input: exit 2, one line on stderr that names the file, nothing on stdout.
void expectBadInput(const std::vector<std::string>& args, const std::string& file,
                    const std::string& what) {
  const auto r = runBubblescope(args);
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

TEST_F(CheckCli, MissingFilesAreBadInput) {
  expectBadInput({"check", "--baseline", path("nothing.json"), path("slow.json")},
                 path("nothing.json"), "no such file");
  expectBadInput({"check", "--baseline", path("balanced.json"), path("nothing.json")},
                 path("nothing.json"), "no such file");
}

TEST_F(CheckCli, RunDirectoryAsTheBaselineIsAnalysedToo) {
  const auto r = runBubblescope({"check", "--baseline", path("slow-run"), path("balanced.json")});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(r.out.starts_with("bubblescope check: " + path("balanced.json") +
                                " against the baseline " + path("slow-run") +
                                " (run directory, analysed)\n"))
      << r.out;
  const auto viaJson =
      runBubblescope({"check", "--baseline", path("slow.json"), path("balanced.json")});
  EXPECT_EQ(lastLine(r.out), lastLine(viaJson.out));
}

TEST_F(CheckCli, NotJsonIsBadInput) {
  testing::TempDir d;
  testing::writeFile(d / "notes.txt", "bubble share was fine\n");
  expectBadInput({"check", "--baseline", path("balanced.json"), (d / "notes.txt").string()},
                 (d / "notes.txt").string(), "neither JSON nor SQLite");
}

TEST_F(CheckCli, OtherJsonIsBadInput) {
  testing::TempDir d;
  testing::writeFile(d / "package.json", R"({"name": "x", "version": "1.0"})");
  expectBadInput({"check", "--baseline", (d / "package.json").string(), path("slow.json")},
                 (d / "package.json").string(),
                 "JSON, but neither a bubblescope report nor a trace");
}

TEST_F(CheckCli, NewerSchemaIsBadInput) {
  testing::TempDir d;
  auto doc = testing::reportJson({testing::PipelineNumbers{}});
  doc["schema_version"] = 99;
  testing::writeFile(d / "future.json", doc.dump());
  expectBadInput({"check", "--baseline", path("balanced.json"), (d / "future.json").string()},
                 (d / "future.json").string(), "written by a newer bubblescope");
}

TEST_F(CheckCli, DifferentPipelineShapesAreBadInput) {
  expectBadInput({"check", "--baseline", path("balanced.json"), path("two-stages.json")},
                 path("two-stages.json"), "has 2 stages but the baseline's");
}

TEST_F(CheckCli, RunDirectoryWithoutTracesIsBadInput) {
  testing::TempDir empty;
  expectBadInput({"check", "--baseline", path("balanced.json"), empty.path().string()},
                 empty.path().string(), "no traces");
}

TEST_F(CheckCli, StepsChooseWhatIsAnalysedAndAreCheckedAsForAnalyze) {
  // Steps 1 on of the slow run: still the slow stage, still a regression.
  const auto r = runBubblescope(
      {"check", "--baseline", path("balanced.json"), path("slow-run"), "--steps", "1:"});
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  const auto bad = runBubblescope(
      {"check", "--baseline", path("balanced.json"), path("slow.json"), "--steps", "x"});
  EXPECT_EQ(bad.exitCode, 2) << bad.out << bad.err;
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("--steps 'x'"), std::string::npos) << bad.err;
}

TEST_F(CheckCli, NegativeThresholdIsAUsageError) {
  const auto r = runBubblescope(
      {"check", "--baseline", path("balanced.json"), path("slow.json"), "--max-slowdown", "-1"});
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
}

TEST_F(CheckCli, HelpNamesTheThresholds) {
  const auto r = runBubblescope({"check", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  for (const char* opt :
       {"--baseline", "--max-bubble-pp", "--max-slowdown", "--max-step-time-pct", "--junit"}) {
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  }
}

}  // namespace
}  // namespace bubblescope

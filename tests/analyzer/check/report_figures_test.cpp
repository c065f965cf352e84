// Reading reports back for `check`: the figures it compares, and one clear sentence naming the
// file for anything that is not a bubblescope report it can read.
#include <gtest/gtest.h>

#include "analyzer/analyze.h"
#include "analyzer/check/report_figures.h"
#include "analyzer/report/json_report.h"
#include "tests/analyzer/check/check_fixtures.h"
#include "tests/analyzer/report/report_fixtures.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;
using testing::PipelineNumbers;
using testing::reportJson;

std::string errorOf(const json& doc) {
  try {
    figuresFromJson(doc, "r.json");
  } catch (const CheckInputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportFigures, ReadsWhatCheckCompares) {
  PipelineNumbers n;
  n.dpRank = 3;
  const ReportFigures f = figuresFromJson(reportJson({n}), "r.json");
  ASSERT_EQ(f.pipelines.size(), 1u);
  const PipelineFigures& pl = f.pipelines[0];
  EXPECT_EQ(pl.dpRank, 3);
  EXPECT_EQ(pl.p, 4);
  EXPECT_EQ(pl.schedule, "1F1B");
  EXPECT_NEAR(pl.bubbleShare(), 0.20, 1e-12);
  EXPECT_NEAR(pl.classShare(static_cast<int>(IdleClass::Imbalance)), 0.04, 1e-12);
  EXPECT_DOUBLE_EQ(pl.slowdown, 1.1);
  EXPECT_EQ(pl.stepTime, 100'000'000);
  EXPECT_DOUBLE_EQ(pl.stageSlowdown[2], 1.1);
}

TEST(ReportFigures, ReadsTheAnalyzersOwnJson) {
  const AnalysisResult r = testing::analyzeJob(testing::oneF1BJob(4, 8, 2));
  const ReportFigures f = figuresFromJson(toJson(r), "run");
  ASSERT_EQ(f.pipelines.size(), 1u);
  const PipelineResult& pl = r.pipelines[0];
  EXPECT_EQ(f.pipelines[0].p, 4);
  EXPECT_EQ(f.pipelines[0].idle, pl.total.idle);
  EXPECT_EQ(f.pipelines[0].idleByClass, pl.total.idleByClass);
  EXPECT_EQ(f.pipelines[0].stepTime, pl.stepTimeMeasured);
  EXPECT_DOUBLE_EQ(f.pipelines[0].stageSlowdown[2], pl.stages[2].slowdown);
}

TEST(ReportFigures, RefusesWhatIsNotABubblescopeReport) {
  EXPECT_EQ(errorOf(json::array()).rfind("r.json: not a bubblescope report", 0), 0u);
  EXPECT_EQ(errorOf(json{{"tool", "other"}, {"schema_version", 1}})
                .rfind("r.json: not a bubblescope report", 0),
            0u);
  EXPECT_EQ(errorOf(json{{"tool", "bubblescope"}, {"schema_version", "1"}})
                .rfind("r.json: not a bubblescope report", 0),
            0u);
}

TEST(ReportFigures, RefusesANewerSchema) {
  json doc = reportJson({PipelineNumbers{}});
  doc["schema_version"] = AnalysisResult::kSchemaVersion + 1;
  EXPECT_EQ(errorOf(doc),
            "r.json: written by a newer bubblescope (report schema_version 3; this "
            "one reads up to 2): upgrade bubblescope");
}

// A baseline written before the inventory's free memory became an object still gates.
TEST(ReportFigures, ReadsAVersionOneBaseline) {
  json doc = reportJson({PipelineNumbers{}});
  doc["schema_version"] = 1;
  EXPECT_EQ(figuresFromJson(doc, "r.json").schemaVersion, 1);
}

TEST(ReportFigures, NamesTheMissingField) {
  json doc = reportJson({PipelineNumbers{}});
  doc["pipelines"][0]["total"].erase("idle_ns");
  EXPECT_EQ(errorOf(doc),
            "r.json: not a complete bubblescope report (pipelines[0].total.idle_ns is missing)");
  doc = reportJson({PipelineNumbers{}});
  doc["pipelines"][0]["slowdown"] = "fast";
  EXPECT_EQ(errorOf(doc),
            "r.json: not a valid bubblescope report (pipelines[0].slowdown is not a number)");
}

TEST(ReportFigures, FileErrorsNameTheFile) {
  testing::TempDir dir;
  auto errorOfFile = [](const std::filesystem::path& p) -> std::string {
    try {
      readReportFile(p);
    } catch (const CheckInputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(errorOfFile(dir / "none.json"), (dir / "none.json").string() + ": no such file or directory");
  EXPECT_EQ(errorOfFile(dir.path()).rfind(dir.path().string() + ": is a directory", 0), 0u);
  testing::writeFile(dir / "bad.json", "{\"tool\": ");
  EXPECT_EQ(errorOfFile(dir / "bad.json"),
            (dir / "bad.json").string() + ": not JSON (syntax error at byte 10)");
  testing::writeFile(dir / "empty.json", "");
  EXPECT_EQ(errorOfFile(dir / "empty.json").rfind((dir / "empty.json").string() + ": not JSON", 0),
            0u);
  testing::writeFile(dir / "good.json", reportJson({PipelineNumbers{}}).dump());
  EXPECT_EQ(errorOfFile(dir / "good.json"), "");
}

}  // namespace
}  // namespace bubblescope::analysis

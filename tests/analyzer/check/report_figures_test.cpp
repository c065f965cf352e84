// Reading reports back for `check`: the figures it compares, and one clear sentence naming the
// file for anything that is not a bubblescope report it can read.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <functional>

#include "analyzer/analyze.h"
#include "analyzer/check/report_figures.h"
#include "analyzer/report/json_report.h"
#include "tests/analyzer/check/check_fixtures.h"
#include "tests/analyzer/report/report_fixtures.h"

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
  const ReportFigures f =
      figuresFromJson(nlohmann::json::parse(jsonReportText(r, -1, JsonDetail::Summary)), "run");
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
  const std::string newer = std::to_string(AnalysisResult::kSchemaVersion + 1);
  const std::string own = std::to_string(AnalysisResult::kSchemaVersion);
  EXPECT_EQ(errorOf(doc), "r.json: written by a newer bubblescope (report schema_version " + newer +
                              "; this one reads up to " + own + "): upgrade bubblescope");
}

// A baseline written before the report became a summary (version 2) still gates.
TEST(ReportFigures, ReadsAVersionTwoBaseline) {
  json doc = reportJson({PipelineNumbers{}});
  doc["schema_version"] = 2;
  EXPECT_EQ(figuresFromJson(doc, "r.json").schemaVersion, 2);
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

// Integers were cast where they were narrowed (schema_version 4294967298 read as 2, dp_rank 2^32
// as pipeline 0) and a field of the wrong type ended in "internal error: [json.exception...]".
TEST(ReportFigures, FieldsOutOfRangeOrOfTheWrongTypeAreNamed) {
  struct Case {
    std::function<void(json&)> spoil;
    std::string says;
  };
  const Case cases[] = {
      {[](json& d) { d["schema_version"] = 4294967298; },
       "r.json: written by a newer bubblescope (report schema_version 4294967298; this one reads "
       "up to"},
      {[](json& d) { d["schema_version"] = uint64_t{18446744073709551615u}; },
       "r.json: written by a newer bubblescope (report schema_version 18446744073709551615;"},
      {[](json& d) { d["schema_version"] = 0; },
       "r.json: not a bubblescope report (schema_version is not a positive integer)"},
      {[](json& d) { d["pipelines"][0]["dp_rank"] = 4294967296; },
       "r.json: not a valid bubblescope report (pipelines[0].dp_rank = 4294967296 is out of range "
       "0 "
       "to 2147483647)"},
      {[](json& d) { d["pipelines"][0]["dp_rank"] = -1; },
       "r.json: not a valid bubblescope report (pipelines[0].dp_rank = -1 is out of range"},
      {[](json& d) { d["pipelines"][0]["schedule"]["m"] = "eight"; },
       "r.json: not a valid bubblescope report (pipelines[0].schedule.m is not an integer)"},
      {[](json& d) { d["pipelines"][0]["schedule"]["m"] = 4294967304; },
       "r.json: not a valid bubblescope report (pipelines[0].schedule.m = 4294967304 is out of "
       "range 0 to 2147483647)"},
      {[](json& d) { d["pipelines"][0]["schedule"]["name"] = 7; },
       "r.json: not a valid bubblescope report (pipelines[0].schedule.name is not text)"},
      {[](json& d) { d["pipelines"][0]["total"]["span_ns"] = uint64_t{9223372036854775808u}; },
       "r.json: not a valid bubblescope report (pipelines[0].total.span_ns = 9223372036854775808 "
       "is "
       "out of range 0 to 9223372036854775807)"},
      {[](json& d) { d["pipelines"][0]["step_time_ns"]["measured"] = -5; },
       "r.json: not a valid bubblescope report (pipelines[0].step_time_ns.measured = -5 is out of "
       "range"},
  };
  for (const Case& c : cases) {
    json doc = reportJson({PipelineNumbers{}});
    c.spoil(doc);
    EXPECT_EQ(errorOf(doc).rfind(c.says, 0), 0u) << c.says << " <- " << errorOf(doc);
  }
  // A utilization report's figures are JSON numbers of any kind: beyond int64, refused.
  json u = {{"tool", "bubblescope"},
            {"schema_version", 2},
            {"pipelines", json::array()},
            {"utilization",
             {{"ranks", json::array({1})},
              {"total", {{"span_ns", 1e300}, {"idle_ns", 0}}},
              {"mean_step_time_ns", 1}}}};
  EXPECT_EQ(errorOf(u),
            "r.json: not a valid bubblescope report (utilization.total.span_ns = 1e+300 is not a "
            "duration in nanoseconds)");
}

TEST(ReportFigures, TextErrorsNameTheFile) {
  auto errorOfText = [](const std::string& text) -> std::string {
    try {
      figuresFromText(text, "r.json");
    } catch (const CheckInputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(errorOfText("{\"tool\": "), "r.json: not JSON (syntax error at byte 10)");
  EXPECT_EQ(errorOfText("").rfind("r.json: not JSON", 0), 0u);
  // nlohmann refuses a number beyond a double's range while parsing: named by its key.
  EXPECT_EQ(errorOfText(R"({"tool": "bubblescope", "slowdown": 1e400})"),
            "r.json: not a valid bubblescope report (\"slowdown\" holds a number beyond a double's "
            "range)");
  EXPECT_EQ(errorOfText(reportJson({PipelineNumbers{}}).dump()), "");
}

}  // namespace
}  // namespace bubblescope::analysis

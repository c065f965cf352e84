// The report is a summary unless --detail asks for every record (issue 29, item 2): the JSON
// summary holds no ops[], transfers[], gaps[], comm_waits[], per-step splits or index lists, and
// its top gaps are whole; with detail it has all of them, and the summary's top gaps are the
// detailed gaps they name. `check` reads the same figures from either.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analyzer/check/report_figures.h"
#include "analyzer/report/json_report.h"
#include "analyzer/report/report.h"
#include "tests/analyzer/report/report_fixtures.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

// A 4-stage 1F1B job with a slow stage: imbalance gaps on every stage, listed top gaps and
// root causes with knock-ons.
const AnalysisResult& slowJob() {
  static const AnalysisResult r = testing::analyzeJob(testing::oneF1BJob(4, 8, 2, 1.5));
  return r;
}

json reportOf(const AnalysisResult& r, JsonDetail detail) {
  return json::parse(jsonReportText(r, -1, detail));
}

TEST(ReportDetail, JsonSummaryLeavesOutEveryRecordList) {
  const json doc = reportOf(slowJob(), JsonDetail::Summary);
  EXPECT_EQ(doc["schema_version"], AnalysisResult::kSchemaVersion);
  ASSERT_EQ(doc["pipelines"].size(), 1u);
  const json& pl = doc["pipelines"][0];
  for (const char* key : {"ops", "transfers", "gaps", "comm_waits"}) {
    EXPECT_FALSE(pl.contains(key)) << key;
  }
  for (const json& st : pl["stages"]) {
    EXPECT_FALSE(st.contains("per_step"));
    EXPECT_TRUE(st.contains("total"));
  }
  ASSERT_FALSE(pl["root_causes"].empty());
  for (const json& rc : pl["root_causes"]) {
    EXPECT_FALSE(rc.contains("gaps"));
    EXPECT_FALSE(rc.contains("steps"));
    EXPECT_FALSE(rc["knock_ons"].contains("gaps"));
    EXPECT_GE(rc["gap_count"].get<size_t>() + rc["knock_ons"]["count"].get<size_t>(), 1u);
    EXPECT_GE(rc["step_count"].get<size_t>(), 1u);
  }
  // What a user reads first is all there.
  for (const char* key :
       {"schedule", "step_time_ns", "slowdown", "stages", "steps", "total", "top_gaps",
        "root_causes", "what_if", "bubble_inventory", "culprit", "ideal_step", "model_check"}) {
    EXPECT_TRUE(pl.contains(key)) << key;
  }
  ASSERT_FALSE(pl["top_gaps"].empty());
  for (const json& g : pl["top_gaps"]) {
    EXPECT_TRUE(g["blame"]["text"].is_string());
    EXPECT_GT(g["idle_ns"].get<int64_t>(), 0);
  }
}

TEST(ReportDetail, SummaryTopGapsAreTheDetailedGapsTheyName) {
  const AnalysisResult& r = slowJob();
  const json summary = reportOf(r, JsonDetail::Summary)["pipelines"][0];
  const json full = reportOf(r, JsonDetail::Full)["pipelines"][0];
  ASSERT_EQ(full["gaps"].size(), r.pipelines[0].gaps.size());
  ASSERT_EQ(full["ops"].size(), r.pipelines[0].ops.size());
  ASSERT_EQ(summary["top_gaps"], full["top_gaps"]);
  for (const json& listed : summary["top_gaps"]) {
    const json& gap = full["gaps"][listed["index"].get<size_t>()];
    json plain = listed;  // less what only a listed gap says of itself
    for (const char* key : {"index", "next", "step_number"}) plain.erase(key);
    EXPECT_EQ(plain, gap);
    EXPECT_EQ(listed["step_number"], full["steps"][gap["step"].get<size_t>()]["number"]);
    if (gap.contains("next_op")) {
      const json& op = full["ops"][gap["next_op"].get<size_t>()];
      EXPECT_EQ(listed["next"],
                (json{{"chunk", op["chunk"]}, {"kind", op["kind"]}, {"mb", op["mb"]}}));
    } else {
      EXPECT_FALSE(listed.contains("next"));
    }
  }
  // The counts a summary gives are the detailed lists' lengths.
  ASSERT_EQ(summary["root_causes"].size(), full["root_causes"].size());
  for (size_t i = 0; i < full["root_causes"].size(); ++i) {
    const json& s = summary["root_causes"][i];
    const json& f = full["root_causes"][i];
    EXPECT_EQ(s["gap_count"], f["gaps"].size());
    EXPECT_EQ(s["step_count"], f["steps"].size());
    EXPECT_EQ(s["knock_ons"]["count"], f["knock_ons"]["gaps"].size());
  }
  for (size_t s = 0; s < full["stages"].size(); ++s) {
    EXPECT_EQ(full["stages"][s]["per_step"].size(), full["steps"].size());
    json without = full["stages"][s];
    without.erase("per_step");
    EXPECT_EQ(without, summary["stages"][s]);
  }
}

TEST(ReportDetail, CheckReadsTheSameFiguresFromEither) {
  const AnalysisResult& r = slowJob();
  const ReportFigures a = figuresFromText(jsonReportText(r, 2, JsonDetail::Summary), "summary");
  const ReportFigures b = figuresFromText(jsonReportText(r, 2, JsonDetail::Full), "detail");
  ASSERT_EQ(a.pipelines.size(), b.pipelines.size());
  for (size_t i = 0; i < a.pipelines.size(); ++i) {
    const PipelineFigures& x = a.pipelines[i];
    const PipelineFigures& y = b.pipelines[i];
    EXPECT_EQ(x.span, y.span);
    EXPECT_EQ(x.idle, y.idle);
    EXPECT_EQ(x.idleByClass, y.idleByClass);
    EXPECT_EQ(x.slowdown, y.slowdown);
    EXPECT_EQ(x.stepTime, y.stepTime);
    EXPECT_EQ(x.stageSlowdown, y.stageSlowdown);
  }
}

TEST(ReportDetail, TextDetailAddsOneLinePerGapAfterTheSummary) {
  const AnalysisResult& r = slowJob();
  std::ostringstream summary, detail;
  writeReport(r, reportFormat("text"), summary);
  writeReport(r, reportFormat("text"), detail, {.detail = true});
  const std::string s = summary.str(), d = detail.str();
  ASSERT_EQ(d.compare(0, s.size(), s), 0) << "the detail only appends";
  const std::string list = d.substr(s.size());
  const size_t gaps = r.pipelines[0].gaps.size();
  EXPECT_NE(list.find("Every gap (" + std::to_string(gaps) + ";"), std::string::npos) << list;
  EXPECT_EQ(static_cast<size_t>(std::count(list.begin(), list.end(), '\n')), gaps + 2) << list;
  EXPECT_EQ(s.find("Every gap"), std::string::npos);
}

// As a user runs it: the summary by default, every record with --detail, and the summary much
// smaller on a job with many gaps.
TEST(ReportDetail, AnalyzeWritesTheSummaryUnlessAskedForDetail) {
  testing::TempDir dir("bubblescope-detail");
  const traces::Run run = testing::synthesize(testing::oneF1BJob(4, 16, 2, 1.5));
  const std::filesystem::path runDir = dir.path() / "run";
  std::filesystem::create_directories(runDir);
  for (const auto& rank : run.ranks) {
    traces::writeRankTrace(rank, runDir / std::filesystem::path(rank.file).filename());
  }
  const auto summary = testing::runBubblescope({"analyze", runDir.string(), "--format", "json"});
  const auto detail =
      testing::runBubblescope({"analyze", runDir.string(), "--format", "json", "--detail"});
  ASSERT_EQ(summary.exitCode, 0) << summary.err;
  ASSERT_EQ(detail.exitCode, 0) << detail.err;
  const json s = json::parse(summary.out)["pipelines"][0];
  const json d = json::parse(detail.out)["pipelines"][0];
  EXPECT_FALSE(s.contains("gaps"));
  ASSERT_TRUE(d.contains("gaps"));
  EXPECT_FALSE(d["gaps"].empty());
  EXPECT_FALSE(d["ops"].empty());
  EXPECT_LT(summary.out.size() * 2, detail.out.size())
      << summary.out.size() << " vs " << detail.out.size();
}

}  // namespace
}  // namespace bubblescope::analysis

// The regression gate's judgement on small reports: each gated metric against its threshold,
// improvements pass, shapes must match, and the verdict says what regressed and by how much.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "analyzer/check/check_output.h"
#include "analyzer/check/compare.h"
#include "tests/analyzer/check/check_fixtures.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

using testing::PipelineNumbers;
using testing::reportJson;

CheckResult check(const PipelineNumbers& base, const PipelineNumbers& cur,
                  const CheckThresholds& t = {}) {
  return compareReports(figuresFromJson(reportJson({base}), "base.json"),
                        figuresFromJson(reportJson({cur}), "cur.json"), t);
}

const MetricComparison& metric(const CheckResult& r, const std::string& key) {
  for (const auto& m : r.pipelines.at(0).metrics) {
    if (m.key == key) return m;
  }
  throw std::runtime_error("no metric " + key);
}

TEST(Compare, EachGatedMetricAgainstItsThreshold) {
  struct Case {
    const char* what;
    double bubblePct, slowdown, stepMs;
    MetricVerdict bubble, slow, step;
  } cases[] = {
      {"unchanged", 20, 1.10, 100, MetricVerdict::Ok, MetricVerdict::Ok, MetricVerdict::Ok},
      {"within limits", 21.9, 1.149, 104.9, MetricVerdict::Ok, MetricVerdict::Ok,
       MetricVerdict::Ok},
      {"exactly at the limits", 22, 1.15, 105, MetricVerdict::Ok, MetricVerdict::Ok,
       MetricVerdict::Ok},
      {"beyond the limits", 22.5, 1.16, 106, MetricVerdict::Regressed, MetricVerdict::Regressed,
       MetricVerdict::Regressed},
      {"only the step time", 20, 1.10, 120, MetricVerdict::Ok, MetricVerdict::Ok,
       MetricVerdict::Regressed},
      {"better beyond the limits", 15, 1.0, 90, MetricVerdict::Improved, MetricVerdict::Improved,
       MetricVerdict::Improved},
  };
  for (const Case& c : cases) {
    PipelineNumbers cur;
    cur.bubblePct = c.bubblePct;
    cur.slowdown = c.slowdown;
    cur.stepMs = c.stepMs;
    const CheckResult r = check(PipelineNumbers{}, cur);
    EXPECT_EQ(metric(r, "bubble_share").verdict, c.bubble) << c.what;
    EXPECT_EQ(metric(r, "slowdown").verdict, c.slow) << c.what;
    EXPECT_EQ(metric(r, "step_time").verdict, c.step) << c.what;
    const bool regressed = c.bubble == MetricVerdict::Regressed ||
                           c.slow == MetricVerdict::Regressed || c.step == MetricVerdict::Regressed;
    EXPECT_EQ(r.regressed(), regressed) << c.what;
  }
}

TEST(Compare, DeltasAreInPointsAbsoluteAndPercent) {
  PipelineNumbers cur;
  cur.bubblePct = 26.5;
  cur.slowdown = 1.32;
  cur.stepMs = 120;
  const CheckResult r = check(PipelineNumbers{}, cur);
  EXPECT_NEAR(metric(r, "bubble_share").delta, 6.5, 1e-9);  // percentage points
  EXPECT_NEAR(metric(r, "slowdown").delta, 0.22, 1e-9);
  EXPECT_NEAR(metric(r, "step_time").delta, 20.0, 1e-9);  // percent
  EXPECT_DOUBLE_EQ(metric(r, "bubble_share").limit, 2.0);
  EXPECT_TRUE(metric(r, "bubble_share").gated);
}

TEST(Compare, ThresholdsAreTheCallers) {
  PipelineNumbers cur;
  cur.bubblePct = 26;
  CheckThresholds loose;
  loose.bubblePp = 10;
  EXPECT_FALSE(check(PipelineNumbers{}, cur, loose).regressed());
  CheckThresholds strict;
  strict.stepTimePct = 0;
  cur = PipelineNumbers{};
  cur.stepMs = 100.5;
  EXPECT_TRUE(check(PipelineNumbers{}, cur, strict).regressed());
}

TEST(Compare, ClassesAndStagesAreShownNotGated) {
  PipelineNumbers cur;
  cur.classPct["imbalance"] = 30;  // far beyond any threshold, but not gated
  cur.stageSlowdown = {1.0, 1.05, 1.9, 1.0};
  const CheckResult r = check(PipelineNumbers{}, cur);
  EXPECT_FALSE(r.regressed());
  EXPECT_FALSE(metric(r, "idle_imbalance").gated);
  EXPECT_NEAR(metric(r, "idle_imbalance").delta, 26.0, 1e-9);
  EXPECT_NEAR(metric(r, "stage_2_slowdown").delta, 0.8, 1e-9);
  // Classes that never occur in either report are left out.
  for (const auto& m : r.pipelines[0].metrics) EXPECT_NE(m.key, "idle_stall_host");
}

TEST(Compare, PipelinesAreMatchedByDpRank) {
  PipelineNumbers b0, b1, c1, c2;
  b1.dpRank = 1;
  c1.dpRank = 1;
  c1.stepMs = 150;
  c2.dpRank = 2;
  const CheckResult r = compareReports(figuresFromJson(reportJson({b0, b1}), "base.json"),
                                       figuresFromJson(reportJson({c2, c1}), "cur.json"), {});
  ASSERT_EQ(r.pipelines.size(), 1u);
  EXPECT_EQ(r.pipelines[0].dpRank, 1);
  EXPECT_TRUE(r.regressed());
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0], "pipeline 2 is not in the baseline: not compared");
  EXPECT_EQ(r.notes[1], "pipeline 0 of the baseline is not in the current run: not compared");
}

TEST(Compare, DifferentShapesAreRefused) {
  PipelineNumbers cur;
  cur.stageSlowdown = {1, 1, 1, 1, 1, 1, 1, 1};
  try {
    check(PipelineNumbers{}, cur);
    FAIL() << "compared pipelines of 4 and 8 stages";
  } catch (const CheckInputError& e) {
    EXPECT_STREQ(e.what(),
                 "cur.json: pipeline 0 has 8 stages but the baseline's (base.json) has 4: "
                 "pipelines of different shapes cannot be compared");
  }
  PipelineNumbers other;
  other.dpRank = 5;
  EXPECT_THROW(check(PipelineNumbers{}, other), CheckInputError);
}

TEST(CheckOutput, PrintsEachMetricAndAOneLineVerdict) {
  PipelineNumbers cur;
  cur.bubblePct = 26.5;
  cur.slowdown = 1.32;
  cur.stepMs = 95;
  cur.stageSlowdown = {1.0, 1.05, 1.3, 1.0};
  const CheckResult r = check(PipelineNumbers{}, cur);
  std::ostringstream out;
  printCheck(r, {"base.json", "cur.json", "", ""}, out, false);
  const std::string text = out.str();
  EXPECT_TRUE(text.starts_with("bubblescope check: cur.json against the baseline base.json\n"))
      << text;
  auto line = [&](const std::string& pattern) {
    EXPECT_TRUE(std::regex_search(text, std::regex(pattern))) << pattern << "\n" << text;
  };
  line(R"(\n  bubble share +20\.00% → +26\.50% +\(\+6\.50 pp\) +REGRESSED +limit \+2\.00 pp\n)");
  line(R"(\n  slowdown S +1\.100x → +1\.320x +\(\+0\.220\) +REGRESSED +limit \+0\.050\n)");
  line(R"(\n  step time +100\.00 ms → +95\.00 ms +\(-5\.00%\) +OK +limit \+5\.00%\n)");
  line(R"(\n    S_s stage 2 +1\.100x → 1\.300x  \(\+0\.200\)\n)");
  EXPECT_NE(text.find("idle: imbalance"), std::string::npos) << text;
  EXPECT_EQ(checkVerdict(r),
            "REGRESSED: bubble share +6.50 pp (limit 2.00 pp), slowdown S +0.220 (limit 0.050)");
  EXPECT_TRUE(text.ends_with(checkVerdict(r) + "\n")) << text;

  PipelineNumbers better;
  better.stepMs = 80;
  EXPECT_EQ(checkVerdict(check(PipelineNumbers{}, better)),
            "OK: no regression (3 gated metrics within their limits); improved: step time "
            "-20.00%");
}

TEST(CheckOutput, AnInputAnalysedHereIsSaidToBe) {
  std::ostringstream out;
  printCheck(check(PipelineNumbers{}, PipelineNumbers{}),
             {"base/", "trace.json", "run directory, analysed", "Kineto JSON, analysed"}, out,
             false);
  EXPECT_TRUE(
      out.str().starts_with("bubblescope check: trace.json (Kineto JSON, analysed) "
                            "against the baseline base/ (run directory, analysed)\n"))
      << out.str();
}

TEST(CheckOutput, AJobWithNoPipelineCountsItsRanks) {
  for (const int ranks : {1, 2}) {
    const nlohmann::json doc = {{"tool", "bubblescope"},
                                {"schema_version", 2},
                                {"pipelines", nlohmann::json::array()},
                                {"utilization",
                                 {{"ranks", std::vector<int>(static_cast<size_t>(ranks))},
                                  {"total", {{"span_ns", 1e9}, {"idle_ns", 1e8}}},
                                  {"mean_step_time_ns", 1e8}}}};
    const ReportFigures f = figuresFromJson(doc, "u.json");
    std::ostringstream out;
    printCheck(compareReports(f, f, {}), {"u.json", "u.json", "", ""}, out, false);
    EXPECT_NE(out.str().find(ranks == 1 ? "\njob with no pipeline (1 rank): utilization\n"
                                        : "\njob with no pipeline (2 ranks): utilization\n"),
              std::string::npos)
        << out.str();
  }
}

// A figure beyond what fits in its column's buffer was cut short into another number: an S_s of
// 1.8e308 printed as 17976931348623157081452742373170435679807056752x, a limit of 1e300 alike.
TEST(CheckOutput, FiguresTooLargeForDigitsAreWrittenWholeInScientificNotation) {
  PipelineNumbers cur;
  cur.stageSlowdown = {1.0, 1.7976931348623157e308, 1.1, 1.0};
  CheckThresholds limits;
  limits.slowdown = 1e300;
  const CheckResult r = check(PipelineNumbers{}, cur, limits);
  std::ostringstream out;
  printCheck(r, {"base.json", "cur.json", "", ""}, out, false);
  writeCheckJunit(r, {"base.json", "cur.json", "", ""}, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("S_s stage 1             1.050x → 1.798e+308x  (+1.798e+308)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("limit +1.000e+300\n"), std::string::npos) << text;
  EXPECT_FALSE(std::regex_search(text, std::regex("[0-9]{20}"))) << text;
}

TEST(CheckOutput, JunitHasAFailingCasePerRegression) {
  PipelineNumbers cur;
  cur.bubblePct = 30;
  const CheckResult r = check(PipelineNumbers{}, cur);
  std::ostringstream out;
  writeCheckJunit(r, {"base.json", "cur.json", "", ""}, out);
  const testing::XmlElement root = testing::parseXml(out.str());
  const auto cases = root.all("testcase");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0]->attr("name"), "bubble share");
  const auto failures = root.all("failure");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0]->attr("message"), "bubble share +10.00 pp (limit 2.00 pp)");
  EXPECT_EQ(root.all("testsuite")[0]->attr("failures"), "1");
}

}  // namespace
}  // namespace bubblescope::analysis

// The JUnit report: valid XML a CI system reads, a test case per pipeline and stage with the
// headline figures as properties.
#include <gtest/gtest.h>

#include <sstream>

#include "analyzer/report/junit_report.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

using testing::analyzeJob;
using testing::oneF1BJob;

std::string junit(const AnalysisResult& r) {
  std::ostringstream out;
  writeJunitReport(r, out);
  return out.str();
}

std::string property(const testing::XmlElement& testcase, const std::string& name) {
  for (const auto* p : testcase.all("property")) {
    if (p->attr("name") == name) return p->attr("value");
  }
  return "<missing>";
}

TEST(JunitReport, OneSuiteWithACasePerPipelineAndStage) {
  const AnalysisResult r = analyzeJob(oneF1BJob(4, 8, 2));
  const testing::XmlElement root = testing::parseXml(junit(r));
  const auto suites = root.all("testsuite");
  ASSERT_EQ(suites.size(), 1u);
  EXPECT_EQ(suites[0]->attr("name"), "bubblescope");
  EXPECT_EQ(suites[0]->attr("tests"), "5");
  EXPECT_EQ(suites[0]->attr("failures"), "0");
  const auto cases = root.all("testcase");
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[0]->attr("name"), "pipeline 0");
  EXPECT_EQ(cases[3]->attr("name"), "stage 2");

  const PipelineResult& pl = r.pipelines[0];
  EXPECT_EQ(property(*cases[0], "schedule"), "1F1B");
  EXPECT_EQ(property(*cases[0], "p"), "4");
  EXPECT_NEAR(std::stod(property(*cases[0], "slowdown")), pl.slowdown, 1e-4);
  EXPECT_NEAR(std::stod(property(*cases[0], "step_time_measured_ms")),
              static_cast<double>(pl.stepTimeMeasured) / 1e6, 1e-3);
  EXPECT_NEAR(
      std::stod(property(*cases[0], "idle_imbalance_ms")),
      static_cast<double>(pl.total.idleByClass[static_cast<int>(IdleClass::Imbalance)]) / 1e6,
      1e-3);
  EXPECT_EQ(property(*cases[0], "parts_add_up"), "true");
  EXPECT_NEAR(std::stod(property(*cases[3], "slowdown_s")), pl.stages[2].slowdown, 1e-4);
  // The time attribute is the step time, so CI trend charts plot it.
  EXPECT_NEAR(std::stod(cases[0]->attr("time")), static_cast<double>(pl.stepTimeMeasured) / 1e9,
              1e-6);
  // Readable output.
  const auto out = cases[0]->all("system-out");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0]->text.find("slowdown S = "), std::string::npos) << out[0]->text;
  EXPECT_TRUE(out[0]->text.starts_with("culprit: stage 2")) << out[0]->text;
  EXPECT_NE(out[0]->text.find("root causes:\n  1. stage 2: its ops run"), std::string::npos)
      << out[0]->text;
}

TEST(JunitReport, EscapesEverythingFromTheTrace) {
  AnalysisResult r = analyzeJob(oneF1BJob(2, 4));
  r.command = "a<b & \"c\" 'd' ]]> \x07 \xFF";
  r.warnings.push_back("</system-err><injected/>");
  const std::string xml = junit(r);
  EXPECT_EQ(testing::xmlWellFormedError(xml), "") << xml;
  const testing::XmlElement root = testing::parseXml(xml);
  EXPECT_TRUE(root.all("injected").empty());
  const auto err = root.all("system-err");
  ASSERT_EQ(err.size(), 1u);
  EXPECT_NE(err[0]->text.find("</system-err><injected/>"), std::string::npos);
  std::string command;
  for (const auto* p : root.all("property")) {
    if (p->attr("name") == "command") command = p->attr("value");
  }
  EXPECT_EQ(command, "a<b & \"c\" 'd' ]]> \xEF\xBF\xBD \xEF\xBF\xBD");
}

}  // namespace
}  // namespace bubblescope::analysis

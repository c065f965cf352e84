// The HTML report is one self-contained file with the timeline, the charts and the tables, and
// nothing from a trace can inject markup into it.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "analyzer/report/html_report.h"
#include "analyzer/report/palette.h"
#include "analyzer/report/svg_breakdown.h"
#include "analyzer/report/svg_timeline.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

using testing::analyzeJob;
using testing::oneF1BJob;

std::string html(const AnalysisResult& r) {
  std::ostringstream out;
  writeHtmlReport(r, out);
  return out.str();
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(HtmlReport, IsSelfContained) {
  const std::string page = html(analyzeJob(oneF1BJob(4, 8, 2)));
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
  EXPECT_FALSE(has(page, "<script"));
  EXPECT_FALSE(has(page, "<link"));
  EXPECT_FALSE(has(page, " src="));
  EXPECT_FALSE(has(page, "url("));
  EXPECT_FALSE(has(page, "@import"));
  // The only URL is the SVG namespace name, which is never fetched.
  const std::regex url(R"(https?://[^"' <]+)");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), url); it != std::sregex_iterator();
       ++it) {
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
  }
}

TEST(HtmlReport, HasTheHeadlineTimelineChartsAndTables) {
  const std::string page = html(analyzeJob(oneF1BJob(4, 8, 2)));
  for (const char* part : {"<h1>bubblescope", "slowdown S", "ideal step", "<h3>Timeline of step ",
                           "class=\"bubblescope-timeline\"", "class=\"bubblescope-breakdown\"",
                           "<th>S_s</th>", "The parts add up", "<h3>Root causes</h3>",
                           "<h3>What if</h3>", "ZB-H1", "slowest stage", "stage 2"}) {
    EXPECT_TRUE(has(page, part)) << part;
  }
  // The culprit opens the pipeline's section; the slow stage's knock-ons fold under it.
  EXPECT_LT(page.find("<p class=\"culprit\">"), page.find("<div class=\"cards\">"));
  EXPECT_TRUE(has(page, "<details><summary>Knock-ons: ")) << page;
  // The class colors in the table headers are the timeline's.
  EXPECT_TRUE(has(page, hexColor(idleClassRgb(IdleClass::Imbalance))));
  EXPECT_TRUE(has(page, hexColor(opKindRgb(OpKind::BW))));
}

TEST(HtmlReport, TraceStringsAreEscaped) {
  AnalysisResult r = analyzeJob(oneF1BJob(2, 4));
  r.command = "python -c '<script>alert(1)</script>' & \x01";
  r.runDir = "/runs/<b>bold</b>";
  r.warnings.push_back("<img src=x onerror=alert(1)>");
  const std::string page = html(r);
  EXPECT_FALSE(has(page, "<script>"));
  EXPECT_FALSE(has(page, "<b>bold"));
  EXPECT_FALSE(has(page, "<img"));
  EXPECT_TRUE(has(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_TRUE(has(page, "&amp; \xEF\xBF\xBD"));
}

TEST(HtmlReport, EachPipelineGetsItsSection) {
  AnalysisResult r = analyzeJob(oneF1BJob(2, 4));
  r.pipelines.push_back(r.pipelines[0]);
  r.pipelines[1].dpRank = 1;
  r.dp = 2;
  const std::string page = html(r);
  EXPECT_TRUE(has(page, "<h2>Pipelines</h2>"));
  EXPECT_TRUE(has(page, "id=\"pipeline-0\""));
  EXPECT_TRUE(has(page, "id=\"pipeline-1\""));
  EXPECT_TRUE(has(page, "href=\"#pipeline-1\""));
}

TEST(SvgTimeline, IsWellFormedStandaloneSvg) {
  testing::SyntheticJob job = oneF1BJob(4, 8, 1);
  job.stall[{2, 1, 4, engine::OpKind::F}] = 5'000'000;
  const AnalysisResult r = analyzeJob(job);
  const std::string svg = stepTimelineSvg(r.pipelines[0]);
  EXPECT_EQ(testing::xmlWellFormedError(svg), "");
  const testing::XmlElement root = testing::parseXml(svg);
  EXPECT_EQ(root.name, "svg");
  EXPECT_EQ(root.attr("xmlns"), "http://www.w3.org/2000/svg");
  // Ops in their kind colors, labelled; idle in a class color; an axis in ms.
  int f = 0, bw = 0, idle = 0, labels = 0;
  for (const auto* rect : root.all("rect")) {
    const std::string fill = rect->attr("fill");
    f += fill == hexColor(opKindRgb(OpKind::F)) && rect->attr("fill-opacity").empty();
    bw += fill == hexColor(opKindRgb(OpKind::BW)) && rect->attr("fill-opacity").empty();
    for (int c = 0; c < kIdleClasses; ++c) idle += fill == hexColor(idleClassRgb(idleClassAt(c)));
  }
  for (const auto* text : root.all("text")) labels += text->text == "F3" || text->text == "BW3";
  EXPECT_GE(f, 4 * 8);  // every F of the step, plus the legend swatch
  EXPECT_GE(bw, 4 * 8);
  EXPECT_GT(idle, 4);
  EXPECT_GE(labels, 8);
  EXPECT_TRUE(has(svg, "ms from the step's start"));
}

TEST(SvgBreakdown, BarsSplitEachStagesSpan) {
  const AnalysisResult r = analyzeJob(oneF1BJob(4, 8, 2));
  const std::string svg = breakdownSvg(r.pipelines[0], 1000);
  const testing::XmlElement root = testing::parseXml(svg);
  // Each stage's segments (those with a tooltip) add up to the same bar length.
  std::map<std::string, double> widthByRow;
  for (const auto* rect : root.all("rect")) {
    if (rect->children.empty()) continue;  // legend swatches have no tooltip
    widthByRow[rect->attr("y")] += std::stod(rect->attr("width"));
  }
  ASSERT_EQ(widthByRow.size(), 5u);  // all stages + 4
  const double first = widthByRow.begin()->second;
  for (const auto& [y, w] : widthByRow) EXPECT_NEAR(w, first, 1.0) << "row at y=" << y;
  EXPECT_TRUE(has(svg, "idle: imbalance"));
}

}  // namespace
}  // namespace bubblescope::analysis

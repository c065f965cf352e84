// The Markdown report fits a pull-request comment and says what the text report says.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "analyzer/report/markdown_report.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

using testing::analyzeJob;
using testing::oneF1BJob;

std::string markdown(const AnalysisResult& r) {
  std::ostringstream out;
  writeMarkdownReport(r, out);
  return out.str();
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(MarkdownReport, FourStageRunFitsAPullRequestComment) {
  const std::string md = markdown(analyzeJob(oneF1BJob(4, 8, 2)));
  EXPECT_LE(std::count(md.begin(), md.end(), '\n'), 60) << md;
  EXPECT_TRUE(has(md, "## bubblescope: step ")) << md;
  EXPECT_TRUE(has(md, "### 1F1B (p=4, m=8), 3 steps")) << md;
  EXPECT_TRUE(has(md, "| mean per step | **")) << md;
  EXPECT_TRUE(has(md, "slowdown S")) << md;
  // The culprit opens the pipeline's section, before its figures.
  EXPECT_LT(md.find("**Culprit:** stage 2"), md.find("| step time |")) << md;
  // One row per stage and the total, with the classes that occur and S_s.
  for (const char* row : {"\n| 0 | ", "\n| 1 | ", "\n| 2 | ", "\n| 3 | ", "\n| **all** | "}) {
    EXPECT_TRUE(has(md, row)) << row << "\n" << md;
  }
  EXPECT_TRUE(has(md, " imbal. |")) << md;
  EXPECT_TRUE(has(md, " S_s |")) << md;
  EXPECT_FALSE(has(md, " stall: host |")) << "a class that never occurs gets no column";
  EXPECT_TRUE(has(md, "✅ The parts add up")) << md;
  // The root causes name the slow stage (1.5x the others: 1.3x the mean of all), its knock-ons
  // under it; the what-if rows.
  EXPECT_TRUE(has(md, "**Root causes**")) << md;
  EXPECT_TRUE(has(md, "1. **stage 2: its ops run up to 1.3x their ideal")) << md;
  EXPECT_TRUE(has(md, "Knock-ons: ")) << md;
  EXPECT_FALSE(has(md, "\n2. **")) << "the slow stage is the one cause";
  EXPECT_TRUE(has(md, "| ZB-H1 | ")) << md;
  EXPECT_TRUE(has(md, "| balanced stages, no stalls (1F1B) | ")) << md;
  EXPECT_FALSE(has(md, "<details>")) << "4 stages are shown open";
}

TEST(MarkdownReport, EveryTableRowHasTheHeadersColumnCount) {
  const std::string md = markdown(analyzeJob(oneF1BJob(4, 8, 2)));
  std::istringstream lines(md);
  std::string line;
  long columns = -1;
  while (std::getline(lines, line)) {
    if (!line.starts_with("|")) {
      columns = -1;
      continue;
    }
    // Escaped pipes inside cells do not count.
    long n = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++n;
    }
    if (columns < 0) columns = n;
    EXPECT_EQ(n, columns) << line;
  }
}

TEST(MarkdownReport, BigPipelineCollapsesTheStageTable) {
  const AnalysisResult r = analyzeJob(oneF1BJob(20, 20, 7));
  const std::string md = markdown(r);
  EXPECT_TRUE(has(md, "<details><summary>All 20 stages</summary>")) << md;
  EXPECT_TRUE(has(md, "</details>")) << md;
  // Above the fold: the worst stages first (stage 7 is slow) and the total.
  const auto fold = md.find("<details>");
  const std::string open = md.substr(0, fold);
  EXPECT_TRUE(has(open, "\n| 7 | ")) << open;
  EXPECT_TRUE(has(open, "\n| **all** | ")) << open;
  EXPECT_LE(std::count(open.begin(), open.end(), '\n'), 40) << open;
  // Inside: all 20.
  EXPECT_TRUE(has(md.substr(fold), "\n| 19 | ")) << md;
}

TEST(MarkdownReport, RunIdentityCannotBreakTheMarkup) {
  AnalysisResult r = analyzeJob(oneF1BJob(2, 4));
  r.command = "train.py --tag `x` | tee <log>";
  r.warnings.push_back("a warning with | a pipe");
  const std::string md = markdown(r);
  EXPECT_TRUE(has(md, "``train.py --tag `x` \\| tee <log>``")) << md;
  EXPECT_TRUE(has(md, "- ⚠️ a warning with \\| a pipe")) << md;
}

}  // namespace
}  // namespace bubblescope::analysis

// The text report's per-stage table stays a table whatever its figures: a long capture sums to
// millions of ms (10^6 steps of 20 ms), and a pipeline of 10,000 stages names its rows "9999
// r19999"; both ran into the next column (issue 28's large runs). Every row's columns are
// apart and its separators where the header's are, in ms or, for totals past what 8 characters
// of ms hold, in seconds.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "analyzer/report/format.h"
#include "analyzer/report/report.h"
#include "analyzer/report/text_report.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

// The table's lines: its title, header and two lines a row.
std::vector<std::string> stageTable(const AnalysisResult& r) {
  std::ostringstream text;
  writeTextReport(r, text, {});
  std::istringstream in(text.str());
  std::vector<std::string> out;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Where the time went", 0) == 0) inside = true;
    if (inside && line.rfind("Each row adds up", 0) == 0) break;
    if (inside) out.push_back(line);
  }
  return out;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Every line's separators in the header's columns, and each row's figures one word each:
// "NAME rRANK", five amounts, nine classes (an amount or "-"), and S_s on a stage's row.
void expectColumnsApart(const std::vector<std::string>& table) {
  ASSERT_GE(table.size(), 4u);
  const std::string& header = table[1];
  const size_t bar = header.find(" |");
  ASSERT_NE(bar, std::string::npos);
  for (size_t i = 2; i < table.size(); ++i) {
    SCOPED_TRACE(table[i]);
    EXPECT_EQ(table[i].find(" |"), bar);
    if ((i - 2) % 2 != 0) continue;  // a row's shares
    const std::vector<std::string> w = words(table[i]);
    const bool all = w[0] == "all";
    ASSERT_EQ(w.size(), all ? 17u : 19u);
    const size_t first = all ? 1 : 2;
    for (size_t k = first; k < first + 5; ++k) {
      EXPECT_NE(w[k].find('.'), std::string::npos) << w[k];
      EXPECT_EQ(w[k].find('.'), w[k].rfind('.')) << "two figures run together: " << w[k];
    }
  }
}

AnalysisResult scaled(int64_t factor, int stageBase) {
  AnalysisResult r = testing::analyzeJob(testing::oneF1BJob(4, 8, 2, 1.5));
  auto scale = [&](Split& s) {
    for (TimeNs* v : {&s.span, &s.compute, &s.exposedComm, &s.otherBusy, &s.idle}) *v *= factor;
    for (TimeNs& v : s.idleByClass) v *= factor;
  };
  for (PipelineResult& pl : r.pipelines) {
    for (StageResult& st : pl.stages) {
      scale(st.total);
      st.stage += stageBase;
      st.rank += 2 * stageBase;
    }
    scale(pl.total);
  }
  return r;
}

TEST(StageTable, ColumnsStayApartWithSmallFigures) {
  const AnalysisResult r = scaled(1, 0);
  const std::vector<std::string> table = stageTable(r);
  ASSERT_FALSE(table.empty());
  EXPECT_NE(table[0].find("(ms;"), std::string::npos) << table[0];
  expectColumnsApart(table);
}

TEST(StageTable, LongCapturesAreInSecondsAndLongNamesWidenTheirColumn) {
  // A total span of ~1e9 ms: "1000000000.0" in ms, twelve characters.
  const AnalysisResult r = scaled(10'000'000, 9'990);
  const std::vector<std::string> table = stageTable(r);
  ASSERT_FALSE(table.empty());
  EXPECT_NE(table[0].find("(s;"), std::string::npos) << table[0];
  expectColumnsApart(table);
  // A stage's span, read back in seconds, is its span.
  const StageResult& st = r.pipelines[0].stages[0];
  const std::vector<std::string> row = words(table[2]);
  EXPECT_EQ(row[0], std::to_string(st.stage));
  EXPECT_EQ(row[2], formatMs(st.total.span / 1000));
}

}  // namespace
}  // namespace bubblescope::analysis

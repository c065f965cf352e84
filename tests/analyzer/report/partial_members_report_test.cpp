// A job with no pipeline whose all-reduces have 2 of their 128 members traced: every report says
// so on the wait figures that hold such waiting (text: a mark and a note under the table; JSON:
// "comm_wait_members"; Markdown and HTML: beside the figure; JUnit: a property) and warns once.
// The same job with every member traced says nothing of the kind. A pipeline's NCCL waits carry
// their members in the JSON's "comm_waits".
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/report/report.h"
#include "tests/analyzer/comm/collective_run.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;
using testing::collectiveRun;
using testing::kCollectiveMs;

AnalysisResult analyzeCollectives(int world, int commSize) {
  AnalyzeOptions options;
  options.utilizationWithoutPipeline = true;
  return analyzeRun(collectiveRun({.traced = 2, .world = world, .commSize = commSize, .calls = 3}),
                    options);
}

std::string report(const AnalysisResult& r, const char* format) {
  std::ostringstream out;
  writeReport(r, reportFormat(format), out, {.detail = true});  // comm_waits[]
  return out.str();
}

TEST(PartialMembersReport, TextAndJsonSayTwoOf128MembersTraced) {
  const AnalysisResult r = analyzeCollectives(128, 128);
  ASSERT_TRUE(r.utilization.has_value());

  const std::string text = report(r, "text");
  // Rank 0 waited 4 ms per all-reduce for rank 1: 12 ms, marked, on its row and the job's.
  EXPECT_NE(text.find("rank 0"), std::string::npos) << text;
  EXPECT_NE(text.find("12.0*"), std::string::npos) << text;
  EXPECT_NE(text.find("(2 of 128 members traced): a lower bound, not the job's wait"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("3 NCCL collective(s) ran on communicators with members the run does not "
                      "hold (2 of 128 members traced)"),
            std::string::npos)
      << text;

  const json j = json::parse(report(r, "json"));
  const json& u = j["utilization"];
  EXPECT_EQ(u["total"]["comm_wait_ns"], 12 * kCollectiveMs);
  EXPECT_EQ(u["total"]["comm_wait_members"],
            json({{"traced", 2}, {"of", 128}, {"text", "2 of 128 members traced"}}));
  ASSERT_EQ(u["ranks"].size(), 2u);
  EXPECT_EQ(u["ranks"][0]["total"]["comm_wait_members"]["text"], "2 of 128 members traced");
  // Rank 1 started last: it waited for nobody, and its figure holds no partial wait.
  EXPECT_EQ(u["ranks"][1]["total"]["comm_wait_ns"], 0);
  EXPECT_FALSE(u["ranks"][1]["total"].contains("comm_wait_members"));
  int partialWarnings = 0;
  for (const json& w : j["warnings"]) {
    partialWarnings += w.get<std::string>().find("2 of 128 members traced") != std::string::npos;
  }
  EXPECT_EQ(partialWarnings, 1) << j["warnings"].dump(2);
}

TEST(PartialMembersReport, MarkdownHtmlAndJunitSayItBesideTheFigure) {
  const AnalysisResult r = analyzeCollectives(128, 128);
  EXPECT_NE(report(r, "md").find("| 12.0 (2 of 128 members traced) |"), std::string::npos)
      << report(r, "md");
  EXPECT_NE(report(r, "html").find("12.0 (2 of 128 members traced)"), std::string::npos);
  EXPECT_NE(report(r, "junit")
                .find(R"(<property name="comm_wait_members" value="2 of 128 members traced"/>)"),
            std::string::npos)
      << report(r, "junit");
}

TEST(PartialMembersReport, EveryMemberTracedSaysNothingOfMembers) {
  const AnalysisResult r = analyzeCollectives(2, 2);
  ASSERT_TRUE(r.utilization.has_value());
  EXPECT_EQ(r.utilization->total.commWait, 12 * kCollectiveMs);
  for (const char* format : {"text", "json", "md", "html", "junit"}) {
    const std::string out = report(r, format);
    EXPECT_EQ(out.find("members traced"), std::string::npos) << format << "\n" << out;
    EXPECT_EQ(out.find("comm_wait_members"), std::string::npos) << format;
  }
}

// A pipeline's NCCL waits: the one in a partial collective carries its members, the other none.
TEST(PartialMembersReport, PipelineCommWaitsInPartialCollectivesCarryTheirMembersInJson) {
  AnalysisResult r = testing::analyzeJob(testing::oneF1BJob(2, 4));
  ASSERT_FALSE(r.pipelines.empty());
  CommWait full;
  full.start = 0;
  full.transferStart = 3 * kCollectiveMs;
  full.end = 4 * kCollectiveMs;
  CommWait partial = full;
  partial.members = {2, 128};
  r.pipelines.front().commWaits = {full, partial};
  const json waits = json::parse(report(r, "json"))["pipelines"][0]["comm_waits"];
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_FALSE(waits[0].contains("members"));
  EXPECT_EQ(waits[1]["members"],
            json({{"traced", 2}, {"of", 128}, {"text", "2 of 128 members traced"}}));
}

}  // namespace
}  // namespace bubblescope::analysis

// The gap lists every report prints (a pipeline's top gaps, a job's largest idle gaps) hold no row
// that would read 0.00 ms: a job with fewer real gaps than the list holds gets a shorter list.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/idle/root_causes.h"
#include "analyzer/pipeline_analysis.h"
#include "analyzer/report/report.h"
#include "analyzer/utilization/utilization.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kUs = 1'000;
constexpr TimeNs kMs = 1'000'000;

std::string report(const AnalysisResult& r, const char* format) {
  std::ostringstream out;
  writeReport(r, reportFormat(format), out);
  return out.str();
}

// The part of `text` from `from` to the next `to` (or its end).
std::string section(const std::string& text, const std::string& from, const std::string& to) {
  const size_t a = text.find(from);
  if (a == std::string::npos) return "";
  const size_t b = text.find(to, a + from.size());
  return text.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Moves `amount` of a gap's idle from the class holding most of it into jitter (avoidable).
void makeAvoidable(Gap& g, TimeNs amount) {
  auto most = std::max_element(g.byClass.begin(), g.byClass.end());
  ASSERT_GE(*most, amount);
  *most -= amount;
  g.byClass[static_cast<int>(IdleClass::Jitter)] += amount;
}

// A fault-free 1F1B job whose gaps then get avoidable idle: two of 2 ms, six of 3 us (ops a few
// microseconds late, as every real job has). Only the two are listed: as top gaps in the JSON,
// as the knock-ons the reports name under their root cause (the walk found no place for any, so
// they are one cause); the six are counted, not named.
TEST(GapLists, TopGapsLeaveOutGapsThatWouldReadZero) {
  AnalysisResult r = testing::analyzeJob(testing::oneF1BJob(4, 8));
  PipelineResult& pl = r.pipelines.at(0);
  ASSERT_TRUE(pl.topGaps.empty());
  ASSERT_TRUE(pl.rootCauses.empty());
  int large = 0, small = 0;
  for (Gap& g : pl.gaps) {
    if (large < 2 && g.idle > 2 * kMs) {
      makeAvoidable(g, 2 * kMs);
      ++large;
    } else if (small < 6 && g.idle > 3 * kUs && g.idle <= 2 * kMs) {
      makeAvoidable(g, 3 * kUs);
      ++small;
    }
  }
  ASSERT_EQ(large, 2);
  ASSERT_EQ(small, 6);
  pl.topGaps = topGapsOf(pl.gaps);
  ASSERT_EQ(pl.topGaps.size(), 2u);
  for (int gi : pl.topGaps) EXPECT_EQ(avoidableIdle(pl.gaps[gi]), 2 * kMs);
  const Links links(pl.transfers);
  std::vector<std::optional<CauseId>> causes;
  for (const Gap& g : pl.gaps) causes.push_back(causeOf(g, links));
  pl.rootCauses = groupRootCauses(pl.gaps, causes, pl.ops, {});
  ASSERT_EQ(pl.rootCauses.size(), 1u);
  EXPECT_EQ(pl.rootCauses[0].knockOns.size(), 8u);

  const std::string text = section(report(r, "text"), "Root causes", "What if");
  EXPECT_EQ(count(text, "2.00 ms before"), 2u) << text;
  EXPECT_EQ(count(text, "and 6 more"), 1u) << text;
  const std::string md = section(report(r, "md"), "**Root causes**", "**What if**");
  EXPECT_EQ(count(md, "2.00 ms before"), 2u) << md;
  const std::string html = section(report(r, "html"), "<h3>Root causes</h3>", "</ol>");
  EXPECT_EQ(count(html, "<li>step "), 2u) << html;
  EXPECT_EQ(count(html, "<li>and 6 more</li>"), 1u) << html;
  const std::string junit = section(report(r, "junit"), "root causes:", "what if:");
  EXPECT_EQ(count(junit, "2.00 ms before"), 2u) << junit;
  for (const std::string* s : {&text, &md, &html, &junit}) {
    EXPECT_EQ(s->find("0.00 ms"), std::string::npos) << *s;
  }
  const nlohmann::json json = nlohmann::json::parse(report(r, "json"));
  EXPECT_EQ(json["pipelines"][0]["top_gaps"].size(), 2u);
  EXPECT_EQ(json["pipelines"][0]["root_causes"].size(), 1u);
}

// One rank whose kernels run back to back, 2 us apart (a launch each), but for two idle gaps of
// 3 and 1 ms: the largest idle gaps are those two, not ten rows of 0.00 ms.
traces::Run backToBackKernels() {
  traces::Run run;
  run.dir = "ddp";
  traces::RankTrace& t = run.ranks.emplace_back();
  t.file = "ddp/rank-00000.sqlite";
  t.meta.rank = 0;
  const traces::StreamIndex s = t.streamIndex(0, 7);
  const traces::StringId gemm = t.strings.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
  TimeNs at = 0;
  for (int k = 0; k < 16; ++k) {
    t.kernels->start.push_back(at);
    t.kernels->end.push_back(at + kMs);
    t.kernels->stream.push_back(s);
    t.kernels->name.push_back(gemm);
    t.kernels->correlation.push_back(0);
    at += kMs + (k == 4 ? 3 * kMs : k == 9 ? 1 * kMs : 2 * kUs);
  }
  return run;
}

TEST(GapLists, LargestIdleGapsLeaveOutGapsThatWouldReadZero) {
  AnalysisResult r;
  r.runDir = "ddp";
  r.ranks = 1;
  r.utilization = utilizationOf(backToBackKernels(), false);
  const UtilizationResult& u = *r.utilization;
  ASSERT_EQ(u.largestGaps.size(), 2u);
  EXPECT_EQ(u.largestGaps[0].length(), 3 * kMs);
  EXPECT_EQ(u.largestGaps[1].length(), 1 * kMs);
  // The short gaps still count as idle, and in the inventory.
  EXPECT_EQ(u.total.idle, 4 * kMs + 13 * 2 * kUs);

  const std::string text = section(report(r, "text"), "Largest idle gaps", "\n\n");
  EXPECT_EQ(count(text, " ms idle"), 2u) << text;
  const std::string md = section(report(r, "md"), "**Largest idle gaps**", "\n\n**");
  EXPECT_EQ(count(md, " ms idle"), 2u) << md;
  const std::string html = section(report(r, "html"), "Largest idle gaps", "</ol>");
  EXPECT_EQ(count(html, "<li>"), 2u) << html;
  for (const std::string* s : {&text, &md, &html}) {
    EXPECT_EQ(s->find("0.00 ms"), std::string::npos) << *s;
  }
  const nlohmann::json json = nlohmann::json::parse(report(r, "json"));
  EXPECT_EQ(json["utilization"]["largest_gaps"].size(), 2u) << json.dump(1);
}

}  // namespace
}  // namespace bubblescope::analysis

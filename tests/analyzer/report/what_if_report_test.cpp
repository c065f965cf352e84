// The what-if table in every report format: each row's activations per stage (in microbatches of
// the measured job, in bytes where the trace records live tensors, or why not), what the best
// scenario assumes, and, for a run without a finished step, why there is no table.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "analyzer/report/report.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;
using testing::analyzeJob;
using testing::oneF1BJob;

constexpr int64_t kMiB = int64_t{1} << 20;

std::string written(const AnalysisResult& r, const char* format) {
  std::ostringstream out;
  writeReport(r, reportFormat(format), out);
  return out.str();
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// 1F1B, 4 stages, 8 microbatches, fused backward, stage 2 slow; with `bytes` per microbatch of
// live-tensor samples.
AnalysisResult run(int64_t bytes = 0) {
  testing::SyntheticJob job = oneF1BJob(4, 8, 2);
  job.activationBytes = bytes;
  job.weightBytes = bytes ? 1024 * kMiB : 0;
  return analyzeJob(job);
}

const json& row(const json& report, const std::string& scenario) {
  for (const json& w : report["pipelines"][0]["what_if"]) {
    if (w["scenario"] == scenario) return w;
  }
  throw std::logic_error("no what-if row " + scenario);
}

TEST(WhatIfReport, JsonRowsCarryTheirActivationsPerStageAndBytesOrWhyNot) {
  const json j = json::parse(written(run(), "json"));
  const json& zbH2 = row(j, "ZB-H2")["activation_memory"];
  EXPECT_EQ(zbH2["microbatches"], json({7, 7, 7, 7}));
  EXPECT_EQ(zbH2["most_microbatches"], 7);
  EXPECT_TRUE(zbH2["bytes"].is_null());
  EXPECT_EQ(row(j, "measured")["activation_memory"]["microbatches"], json({4, 3, 2, 1}));
  EXPECT_EQ(row(j, "2x microbatches (1F1B, m=16)")["activation_memory"]["microbatches"],
            json({2, 1.5, 1, 0.5}));
  EXPECT_EQ(j["pipelines"][0]["activation_bytes_per_microbatch"],
            json({{"stages", nullptr}, {"unknown", "no memory records"}}));
  EXPECT_TRUE(j["pipelines"][0]["what_if_withheld"].is_null());

  const json m = json::parse(written(run(96 * kMiB), "json"));
  EXPECT_EQ(m["pipelines"][0]["activation_bytes_per_microbatch"]["stages"],
            json(std::vector<int64_t>(4, 96 * kMiB)));
  EXPECT_EQ(row(m, "ZB-H2")["activation_memory"]["bytes"],
            json(std::vector<int64_t>(4, 7 * 96 * kMiB)));
  EXPECT_EQ(row(m, "ZB-H2")["activation_memory"]["most_bytes"], 7 * 96 * kMiB);
}

TEST(WhatIfReport, TextMarkdownHtmlAndJunitHaveTheActivationsColumn) {
  const AnalysisResult r = run();
  const std::string text = written(r, "text");
  EXPECT_TRUE(has(text, "speedup     activations  note")) << text;
  EXPECT_TRUE(has(text, "bytes unknown (no memory records)")) << text;
  const std::string md = written(r, "md");
  EXPECT_TRUE(has(md, "| scenario | step (ms) | bubble | speedup | activations | note |")) << md;
  EXPECT_TRUE(has(md, "| ZB-H2 | ")) << md;
  EXPECT_TRUE(has(md, " | 7 | B and W not timed apart")) << md;
  const std::string html = written(r, "html");
  EXPECT_TRUE(has(html, "<th>speedup</th><th>activations</th>")) << html;
  EXPECT_TRUE(has(html, "<td title=\"per stage: 7, 7, 7, 7\">7</td>")) << html;
  const std::string junit = written(r, "junit");
  EXPECT_TRUE(has(junit, "name=\"what_if: ZB-H2: activations_microbatches\" value=\"7.00\""))
      << junit;

  const std::string bytes = written(run(96 * kMiB), "text");
  EXPECT_TRUE(has(bytes, "a microbatch's take 96 MiB on every stage")) << bytes;
  EXPECT_TRUE(has(bytes, "7 (672 MiB)")) << bytes;
}

TEST(WhatIfReport, TheBestWhatIfSaysWhatItAssumes) {
  // The run's backward is fused, so the zero-bubble rows split it in halves; its 1F1B holds 4
  // microbatches on stage 0.
  const AnalysisResult r = run();
  const WhatIf* best = nullptr;
  for (const WhatIf& w : r.pipelines[0].whatIf) {
    if (w.available && w.scenario != "measured" && (!best || w.speedup > best->speedup)) best = &w;
  }
  ASSERT_NE(best, nullptr);
  const std::string md = written(r, "md");
  EXPECT_TRUE(has(md, "**Best what-if: " + best->scenario)) << md;
  EXPECT_TRUE(has(md, "Assumes: B and W not timed apart: each taken as half of BW")) << md;
  // Each zero-bubble schedule holds 4 on every stage: as much as 1F1B's stage 0, but 4x its
  // last stage's 1.
  EXPECT_TRUE(has(md,
                  "activations on every stage, 1.00x the measured 1F1B's 4 (stage 0); stage 3 "
                  "holds 4.00x what it holds now."))
      << md;
  const std::string html = written(r, "html");
  EXPECT_TRUE(has(html, "<br>assumes: B and W not timed apart")) << html;
  EXPECT_TRUE(has(written(r, "text"), "  best: " + best->scenario)) << written(r, "text");

  // In bytes where the trace has them.
  EXPECT_TRUE(has(written(run(96 * kMiB), "md"),
                  "holds up to 384 MiB of activations on every stage, 1.00x the measured 1F1B's "
                  "384 MiB (stage 0); stage 3 holds 4.00x what it holds now"));
}

TEST(WhatIfReport, ARunWithoutAFinishedStepSaysWhyItHasNoWhatIf) {
  AnalysisResult r = run();
  r.pipelines[0].whatIf.clear();
  r.pipelines[0].whatIfWithheld = "no step finished (step 0: B7 never runs): a run that hung";
  EXPECT_TRUE(has(written(r, "text"), "What if: none, no step finished (step 0: B7 never runs)"));
  EXPECT_TRUE(has(written(r, "md"), "**What if**: none, no step finished"));
  const std::string html = written(r, "html");
  EXPECT_TRUE(has(html, "<p class=\"note\">None: no step finished")) << html;
  EXPECT_FALSE(has(html, "best what-if")) << html;
  EXPECT_EQ(json::parse(written(r, "json"))["pipelines"][0]["what_if_withheld"],
            r.pipelines[0].whatIfWithheld);
  EXPECT_TRUE(has(written(r, "junit"), "what if: none, no step finished"));
}

}  // namespace
}  // namespace bubblescope::analysis

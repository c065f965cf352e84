// ByteDance's published NDTimeline timelines of Megatron-LM jobs (StragglerAnalysis, OSDI '25),
// read as they are published (the thread names after all the events), against that study's own
// answers in its result files: the ranks and topology, the job's S and its straggler stage.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "tests/support/subprocess.h"
#include "tests/traces/import/shared_data.h"
#include "traces/import/run_import.h"

namespace bubblescope {
namespace {

using nlohmann::json;
using testing::sharedData;

json readJson(const std::filesystem::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

struct Published {
  json answer;  // the study's result file
  traces::import::ImportedRun imported;
  analysis::AnalysisResult result;
};

Published analysePublished(const std::string& trial) {
  Published p;
  p.answer = readJson(sharedData("ndtimeline/bytedance-" + trial + "-result.json"));
  p.imported = traces::import::importRun(traces::import::resolveInputs(
      {sharedData("ndtimeline/bytedance-" + trial + "-timeline.json.gz")}));
  p.result = analysis::analyzeRun(p.imported.run);
  return p;
}

// The ranks the timeline holds: one per (PP, TP, DP) rank (SE's data-sequence-parallel pairs
// are traced once).
int tracedRanks(const json& meta) {
  return meta["pp_size"].get<int>() * meta["tp_size"].get<int>() * meta["dp_size"].get<int>();
}

void expectTopologyOf(const Published& p) {
  const json& meta = p.answer["job_meta"];
  ASSERT_EQ(p.imported.files.size(), 1u);
  EXPECT_EQ(p.imported.files[0].format, "ndtimeline");
  EXPECT_EQ(static_cast<int>(p.imported.run.ranks.size()), tracedRanks(meta));
  EXPECT_EQ(p.result.ranks, tracedRanks(meta));
  EXPECT_EQ(p.result.pp, meta["pp_size"].get<int>());
  EXPECT_EQ(p.result.dp, meta["dp_size"].get<int>());
  EXPECT_EQ(p.result.tp, meta["tp_size"].get<int>());
  EXPECT_EQ(p.result.topologySource, "metadata");
}

// The part of a decomposition the study found slowing the job most ("3", "backward-compute").
std::string largestOf(const json& decomposition) {
  std::string largest;
  double most = 0;
  for (const auto& [part, s] : decomposition.items()) {
    if (s.get<double>() > most) most = s.get<double>(), largest = part;
  }
  return largest;
}

std::string largestOf(const std::vector<analysis::PartSlowdown>& parts) {
  const analysis::PartSlowdown* largest = nullptr;
  for (const auto& p : parts) {
    if (!largest || p.slowdown > largest->slowdown) largest = &p;
  }
  return largest ? largest->name : "";
}

// The study's answers: S within 3%, its straggler stage and op type, and the model (the observed
// order re-run at the measured costs) reproducing the measured step.
void expectTheStudysAnswers(const Published& p) {
  const analysis::JobResult& job = p.result.job;
  const double theirs = p.answer["blocking_slowdown"].get<double>();
  EXPECT_NEAR(job.slowdown, theirs, 0.03 * theirs) << job.culprit;
  const std::string stage = largestOf(p.answer["blocking_decompose_by_stage"]);
  ASSERT_FALSE(stage.empty());
  EXPECT_EQ(job.culpritStage, std::stoi(stage)) << job.culprit;
  const std::string opType = largestOf(p.answer["blocking_decompose_by_optype"]);
  EXPECT_EQ(largestOf(job.opTypes), opType);
  EXPECT_NE(job.culprit.find(opType), std::string::npos) << job.culprit;
  EXPECT_TRUE(job.model.reproduces)
      << "replayed " << job.model.replayed << " ns against " << job.model.measured << " ns";
  std::cout << "S " << job.slowdown << " against the study's " << theirs << "; " << job.culprit
            << "\n";
}

double meanStepSeconds(const json& steps) {
  double sum = 0;
  for (const auto& [step, seconds] : steps.items()) sum += seconds.get<double>();
  return sum / static_cast<double>(steps.size());
}

TEST(NdTimelinePublished, StTimelineAsPublishedIsPp4Dp2WithTheStudysSlowdownAndStraggler) {
  SKIP_WITHOUT_SHARED_DATA();
  const Published p = analysePublished("st");
  expectTopologyOf(p);
  ASSERT_EQ(p.result.pipelines.size(), 2u);
  expectTheStudysAnswers(p);
  // step_t_noblk: the study's step with no op slower than its kind's ideal, step by step.
  const double ideal = static_cast<double>(p.result.job.stepTimeIdeal) / 1e9;
  for (const auto& [step, seconds] : p.answer["step_t_noblk"].items()) {
    EXPECT_NEAR(ideal, seconds.get<double>(), 0.05 * seconds.get<double>()) << "step " << step;
  }
}

// PP 2 x DP 32 x DSP 2: a different replica arrives last at the DP sync each step, so the tail is
// the least-waited replica's per step (issue 27 part 2), or S reads 1.17 and the replay 20% long.
TEST(NdTimelinePublished, SeTimelineAsPublishedIsSixtyFourRanksPp2Dp32WithTheStudysAnswers) {
  SKIP_WITHOUT_SHARED_DATA();
  const Published p = analysePublished("se");
  expectTopologyOf(p);
  ASSERT_EQ(p.result.pipelines.size(), static_cast<size_t>(p.result.dp));
  const double theirs = meanStepSeconds(p.answer["step_t_base"]);
  const double measured = static_cast<double>(p.result.job.stepTimeMeasured) / 1e9;
  EXPECT_NEAR(measured, theirs, 0.01 * theirs);
  expectTheStudysAnswers(p);
  const double ideal = static_cast<double>(p.result.job.stepTimeIdeal) / 1e9;
  const double noblk = meanStepSeconds(p.answer["step_t_noblk"]);
  EXPECT_NEAR(ideal, noblk, 0.05 * noblk);
}

// The command the issue found refusing the file (exit 2, "no step could be re-run").
TEST(NdTimelinePublished, AnalyzeReadsTheStTimelineAsPublished) {
  SKIP_WITHOUT_SHARED_DATA();
  const auto r = testing::runBubblescope(
      {"analyze", sharedData("ndtimeline/bytedance-st-timeline.json.gz").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("ranks:    8 (PP 4 x DP 2, topology from metadata)"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace bubblescope

// A ZB-V job (torch's ScheduleZBVZeroBubble) on every stack, labelled as torch's action runtime
// labels it (PP:{virtual stage}{F|I|W}{mb} around the ops, PP:{stage}SEND_F{mb} ... around the
// p2p actions) or as our convention asks (F mb=3 ch=1, SEND F mb=3 ch=1 to=2): the analysis finds
// p stages of two chunks, the schedule named ZB-V, and the truth's idle per stage and S.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <tuple>

#include "analyzer/report/report.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/expect_found.h"
#include "tests/tracegen/nsys_stack.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/tracegen/unlabelled.h"

namespace bubblescope::tracegen {
namespace {

std::vector<Stack> stacks() {
  std::vector<Stack> s = {Stack::Kineto, Stack::Nsys};
#if BUBBLESCOPE_TRACEGEN_AGENT
  s.push_back(Stack::Agent);
#endif
  return s;
}

const char* stackName(Stack s) {
  return s == Stack::Kineto ? "Kineto" : s == Stack::Nsys ? "Nsys" : "Agent";
}

std::string paramName(const ::testing::TestParamInfo<std::tuple<Stack, Case>>& i) {
  return std::string(stackName(std::get<0>(i.param))) + std::get<1>(i.param).name;
}

// The ZB-V pipeline, and per stage idle and S within 2% of the truth (expect_found.h's bounds).
void expectTheTruthsPipeline(const StackRun& run, const JobSpec& spec) {
  ASSERT_EQ(run.result.pipelines.size(), 1u) << describe(run);
  const analysis::PipelineResult& pl = run.result.pipelines[0];
  const std::string what = describe(run);
  EXPECT_FALSE(run.result.inference.fromP2p);
  ASSERT_EQ(pl.stages.size(), static_cast<size_t>(spec.p)) << what;
  EXPECT_EQ(pl.schedule.v, 2);
  EXPECT_EQ(pl.schedule.m, spec.m);
  EXPECT_TRUE(pl.schedule.splitsBackward);
  EXPECT_EQ(pl.schedule.name, "ZB-V");
  double worst = 0;  // the largest idle error of any stage, % of its true idle
  for (size_t s = 0; s < pl.stages.size(); ++s) {
    const TimeNs want = run.truth.stages[s].idle;
    EXPECT_NEAR(pl.stages[s].total.idle, want, 0.02 * want) << "stage " << s << "\n" << what;
    worst =
        std::max(worst, 100.0 * std::abs(double(pl.stages[s].total.idle - want)) / double(want));
  }
  EXPECT_NEAR(pl.slowdown, run.truth.slowdown, 0.02 * run.truth.slowdown) << what;
  // The figures behind the closing notes (`--gtest_output=json` keeps them).
  char figure[64];
  std::snprintf(figure, sizeof figure, "%.4f", worst);
  ::testing::Test::RecordProperty("worst_stage_idle_error_pct", figure);
  std::snprintf(figure, sizeof figure, "%.4f / %.4f", pl.slowdown, run.truth.slowdown);
  ::testing::Test::RecordProperty("slowdown_found_truth", figure);
  ::testing::Test::RecordProperty("schedule", pl.schedule.name);
}

JobSpec withP2pLabels(JobSpec spec) {
  spec.labelP2p = true;
  return spec;
}

class ZbVLabelled : public ::testing::TestWithParam<std::tuple<Stack, Case>> {};

TEST_P(ZbVLabelled, IdlePerStageAndSlowdownAreTheTruths) {
  const auto& [stack, c] = GetParam();
  testing::TempDir dir;
  const JobSpec spec = withP2pLabels(c.spec);
  expectTheTruthsPipeline(analyseAs(stack, spec, dir.path()), spec);
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, ZbVLabelled,
                         ::testing::Combine(::testing::ValuesIn(stacks()),
                                            ::testing::ValuesIn(zbVCases())),
                         paramName);

// The dominant avoidable class and the culprit, as for 1F1B, on the cases where the analysis
// names them today. Left out, though idle and S are right (above): CommDelay, whose slow link
// comes out as "stall: other" with no "stall: comm" on every stack, and Mix, whose largest gap the
// agent's run blames on stage 0's slow link, not the slow stage 2. In both, messages queue behind
// others on their pair's one stream (a slow transfer delays the link's other direction too: the
// sends 2 -> 1 start up to 4 ms after their data is made in CommDelay), and the blame walk stops
// at an op that started ~0.1 ms after its ready time instead of walking on to the slow link.
std::vector<Case> findingCases() {
  std::vector<Case> out;
  for (const Case& c : zbVCases()) {
    if (c.name != "CommDelay" && c.name != "Mix") out.push_back(c);
  }
  return out;
}

class ZbVLabelledFindings : public ::testing::TestWithParam<std::tuple<Stack, Case>> {};

TEST_P(ZbVLabelledFindings, AnalysisFindsWhatTheGeneratorDid) {
  const auto& [stack, c] = GetParam();
  testing::TempDir dir;
  expectFound(analyseAs(stack, withP2pLabels(c.spec), dir.path()), c);
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, ZbVLabelledFindings,
                         ::testing::Combine(::testing::ValuesIn(stacks()),
                                            ::testing::ValuesIn(findingCases())),
                         paramName);

// Only the ops labelled, as the stacks label 1F1B (and as torch's ScheduleZBVZeroBubble runs
// without the action runtime): the p2p traffic comes from the NCCL kernels, whose sends and
// receives are tied to the ops by the chunk layout the ops show (chunk 1's activations flow back
// up the V).
class ZbVOpsLabelled : public ::testing::TestWithParam<std::tuple<Stack, Case>> {};

TEST_P(ZbVOpsLabelled, IdlePerStageAndSlowdownAreTheTruths) {
  const auto& [stack, c] = GetParam();
  testing::TempDir dir;
  expectTheTruthsPipeline(analyseAs(stack, c.spec, dir.path()), c.spec);
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, ZbVOpsLabelled,
                         ::testing::Combine(::testing::ValuesIn(stacks()),
                                            ::testing::ValuesIn(zbVCases())),
                         paramName);

// nsys's three payload shapes on ZB-V, only the ops labelled (the transfers come from the NCCL
// kernels): with --include-blobs=true the JSON export's report; with neither, the sends and
// receives paired by posting order along the V the ops show (a receive, posted when its sender
// sends, by the stream of its pair), the truth's idle per stage and S, and the JSON export's
// within 2%.
class ZbVNsysPayloads : public ::testing::TestWithParam<Case> {};

StackRun analyseNsysShape(const Case& c, NsysPayloads shape, const testing::TempDir& dir,
                          Labels labels = Labels::Labelled) {
  const JobTimeline job = execute(c.spec);
  NsysOptions o;
  o.payloads = shape;
  writeNsysExports(labels == Labels::Unlabelled ? withoutOpLabels(job) : job, dir.path(), o);
  return analyseWritten(job, dir.path());
}

std::string jsonReport(analysis::AnalysisResult result) {
  result.runDir = "run";  // the one line that names the files' directory
  std::ostringstream out;
  analysis::writeReport(result, analysis::reportFormat("json"), out, {.detail = true});
  return out.str();
}

TEST_P(ZbVNsysPayloads, BlobsGiveTheJsonReportAndNoPayloadTheTruthsPipeline) {
  const Case& c = GetParam();
  testing::TempDir jsonDir, blobDir, noneDir;
  const StackRun json = analyseNsysShape(c, NsysPayloads::Json, jsonDir);
  const StackRun blobs = analyseNsysShape(c, NsysPayloads::Blobs, blobDir);
  EXPECT_EQ(jsonReport(blobs.result), jsonReport(json.result));
  const StackRun none = analyseNsysShape(c, NsysPayloads::None, noneDir);
  expectTheTruthsPipeline(none, c.spec);
  ASSERT_EQ(none.result.pipelines.size(), 1u);
  ASSERT_EQ(json.result.pipelines.size(), 1u);
  const analysis::PipelineResult& got = none.result.pipelines[0];
  const analysis::PipelineResult& want = json.result.pipelines[0];
  ASSERT_EQ(got.stages.size(), want.stages.size());
  for (size_t s = 0; s < want.stages.size(); ++s) {
    EXPECT_NEAR(got.stages[s].total.idle, want.stages[s].total.idle,
                0.02 * want.stages[s].total.idle)
        << "stage " << s << "\n"
        << describe(none);
  }
  EXPECT_NEAR(got.slowdown, want.slowdown, 0.02 * want.slowdown) << describe(none);
  std::string warnings;
  for (const std::string& w : none.result.warnings) warnings += w + "\n";
  EXPECT_EQ(warnings.find("call(s) name no peer"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("confidence high"), std::string::npos) << warnings;
}

// Nobody labelled the V: its stages come from the p2p traffic the payloads' peers give, so the
// blob export gives the JSON export's report (zb_v_unlabelled_test checks that one).
TEST_P(ZbVNsysPayloads, UnlabelledBlobsGiveTheJsonReport) {
  const Case& c = GetParam();
  testing::TempDir jsonDir, blobDir;
  const StackRun json = analyseNsysShape(c, NsysPayloads::Json, jsonDir, Labels::Unlabelled);
  const StackRun blobs = analyseNsysShape(c, NsysPayloads::Blobs, blobDir, Labels::Unlabelled);
  ASSERT_TRUE(json.result.inference.fromP2p) << describe(json);
  EXPECT_EQ(blobs.importNotes, json.importNotes);
  EXPECT_EQ(jsonReport(blobs.result), jsonReport(json.result));
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, ZbVNsysPayloads, ::testing::ValuesIn(zbVCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace bubblescope::tracegen

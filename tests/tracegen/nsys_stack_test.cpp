// The analysis on Nsight Systems exports shaped as nsys writes a torch.distributed.pipelining
// job, against the generator's truth (the same cases and checks as the Kineto stack's), and what
// the exports hold once imported.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "analyzer/report/report.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/expect_found.h"
#include "tests/tracegen/nsys_stack.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/tracegen/unlabelled.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

Case caseNamed(const std::string& name) {
  for (const Case& c : standardCases()) {
    if (c.name == name) return c;
  }
  throw std::invalid_argument("no case " + name);
}

StackRun analyseNsys(const Case& c, const NsysOptions& o, const testing::TempDir& dir) {
  const JobTimeline job = execute(c.spec);
  writeNsysExports(job, dir.path(), o);
  return analyseWritten(job, dir.path());
}

class NsysCases : public ::testing::TestWithParam<Case> {};

TEST_P(NsysCases, AnalysisFindsWhatTheGeneratorDid) {
  testing::TempDir dir;
  const StackRun run = analyseAs(Stack::Nsys, GetParam().spec, dir.path());
  expectFound(run, GetParam());
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, NsysCases, ::testing::ValuesIn(standardCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// The other layouts and conventions a user may bring give the same findings.
TEST(NsysLayouts, OneExportForTheWholeJobOnOneClock) {
  testing::TempDir dir;
  NsysOptions o;
  o.ranksPerHost = 4;
  expectFound(analyseNsys(caseNamed("Mix"), o, dir), caseNamed("Mix"));
}

TEST(NsysLayouts, OneExportPerRankEachOnItsOwnClock) {
  testing::TempDir dir;
  NsysOptions o;
  o.ranksPerHost = 1;
  expectFound(analyseNsys(caseNamed("CommDelay"), o, dir), caseNamed("CommDelay"));
}

TEST(NsysLayouts, PointToPointOnThePipelineGroupsCommunicator) {
  testing::TempDir dir;
  NsysOptions o;
  o.p2p = NsysOptions::P2pComms::Group;
  expectFound(analyseNsys(caseNamed("SlowStage"), o, dir), caseNamed("SlowStage"));
}

// torch >= 2.1: batched p2p on the group's communicator, whose one NCCL stream serialises a
// stage's batches to both neighbours. Every case, as the default layout's.
class NsysSharedStreamCases : public ::testing::TestWithParam<Case> {};

TEST_P(NsysSharedStreamCases, AnalysisFindsWhatTheGeneratorDid) {
  testing::TempDir dir;
  Case c = GetParam();
  c.spec.sharedP2pStream = true;
  NsysOptions o;
  o.p2p = NsysOptions::P2pComms::Group;
  expectFound(analyseNsys(c, o, dir), c);
}

// No payload there either: one stream serves both neighbours, so each receive is told by the op
// it feeds.
TEST_P(NsysSharedStreamCases, WithoutPayloadsPostingOrderPairsEveryCall) {
  testing::TempDir dir;
  Case c = GetParam();
  c.spec.sharedP2pStream = true;
  NsysOptions o;
  o.p2p = NsysOptions::P2pComms::Group;
  o.payloads = NsysPayloads::None;
  const StackRun run = analyseNsys(c, o, dir);
  expectFound(run, c);
  std::string warnings;
  for (const std::string& w : run.result.warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("confidence high"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("call(s) name no peer"), std::string::npos) << warnings;
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, NsysSharedStreamCases, ::testing::ValuesIn(standardCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// Without the communicators' creation no call knows its own rank in them: a pair's
// communicator is known as the one two traced ranks share.
TEST(NsysLayouts, ACaptureThatBeganAfterNcclSetUp) {
  testing::TempDir dir;
  NsysOptions o;
  o.ncclSetupCaptured = false;
  expectFound(analyseNsys(caseNamed("Jitter"), o, dir), caseNamed("Jitter"));
}

TEST(NsysLayouts, BubblescopeLabelsInsteadOfEmitNvtx) {
  testing::TempDir dir;
  NsysOptions o;
  o.labels = NsysOptions::Labels::Bubblescope;
  expectFound(analyseNsys(caseNamed("HostStall"), o, dir), caseNamed("HostStall"));
}

// The three shapes nsys exports NCCL's payloads in give one answer, on every case: with
// --include-blobs=true the JSON export's report, byte for byte; with neither (nsys's default)
// each labelled stage's sends and receives are paired with its neighbours' by posting order, so
// its kernels are matched and split as usual: per stage and class the idle of the JSON export
// within 2% of the span, S within 2%.
class NsysPayloadShapes : public ::testing::TestWithParam<Case> {};

StackRun analyseShape(const Case& c, NsysPayloads shape, const testing::TempDir& dir) {
  NsysOptions o;
  o.payloads = shape;
  return analyseNsys(c, o, dir);
}

// The same job as nobody labelled it (unlabelled.h), in one shape; the truth is the labelled job's.
StackRun analyseUnlabelledShape(const Case& c, Labels labels, NsysPayloads shape,
                                const testing::TempDir& dir) {
  const JobTimeline job = execute(c.spec);
  NsysOptions o;
  o.payloads = shape;
  writeNsysExports(labels == Labels::Bare ? withoutAnyMarkers(job) : withoutOpLabels(job),
                   dir.path(), o);
  return analyseWritten(job, dir.path());
}

// The JSON report, with the one line that names the files' directory made alike.
std::string jsonReport(analysis::AnalysisResult result) {
  result.runDir = "run";
  std::ostringstream out;
  analysis::writeReport(result, analysis::reportFormat("json"), out, {.detail = true});
  return out.str();
}

std::string warningsOf(const StackRun& run) {
  std::string all;
  for (const std::string& w : run.result.warnings) all += w + "\n";
  return all;
}

TEST_P(NsysPayloadShapes, BlobsGiveTheJsonExportsReport) {
  testing::TempDir jsonDir, blobDir;
  const StackRun json = analyseShape(GetParam(), NsysPayloads::Json, jsonDir);
  const StackRun blobs = analyseShape(GetParam(), NsysPayloads::Blobs, blobDir);
  EXPECT_EQ(blobs.importNotes, json.importNotes);
  EXPECT_EQ(jsonReport(blobs.result), jsonReport(json.result));
  expectFound(blobs, GetParam());
}

TEST_P(NsysPayloadShapes, WithoutPayloadsPostingOrderGivesTheJsonExportsAnswer) {
  testing::TempDir jsonDir, noneDir;
  const StackRun json = analyseShape(GetParam(), NsysPayloads::Json, jsonDir);
  const StackRun none = analyseShape(GetParam(), NsysPayloads::None, noneDir);
  const std::string warnings = warningsOf(none);
  // Every send and receive of the job paired, and the report says how and how sure.
  size_t p2p = 0;
  for (const RankTimeline& tl : execute(GetParam().spec).ranks) {
    for (const NcclCall& c : tl.calls) p2p += c.kind != CallKind::AllReduce;
  }
  const std::string n = std::to_string(p2p);
  EXPECT_NE(warnings.find(n + " of " + n +
                          " NCCL send/receive call(s) that name no peer (an nsys export made "
                          "without --include-json=true drops NCCL's payloads) were paired with "
                          "their neighbours' in posting order"),
            std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("confidence high"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("call(s) name no peer"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("not in the run"), std::string::npos) << warnings;

  ASSERT_EQ(none.result.pipelines.size(), 1u);
  ASSERT_EQ(json.result.pipelines.size(), 1u);
  const analysis::PipelineResult& got = none.result.pipelines[0];
  const analysis::PipelineResult& want = json.result.pipelines[0];
  ASSERT_EQ(got.stages.size(), want.stages.size());
  double worst = 0;  // the largest difference of any class on any stage, % of its span
  for (size_t s = 0; s < want.stages.size(); ++s) {
    const analysis::Split& a = got.stages[s].total;
    const analysis::Split& b = want.stages[s].total;
    for (size_t k = 0; k < b.idleByClass.size(); ++k) {
      EXPECT_NEAR(a.idleByClass[k], b.idleByClass[k], 0.02 * b.span)
          << "stage " << s << " "
          << analysis::idleClassName(analysis::idleClassAt(static_cast<int>(k))) << "\n"
          << describe(none);
      worst = std::max(
          worst, 100.0 * std::abs(double(a.idleByClass[k] - b.idleByClass[k])) / double(b.span));
    }
    EXPECT_NEAR(a.idle, b.idle, 0.02 * b.span) << "stage " << s << "\n" << describe(none);
  }
  EXPECT_NEAR(got.slowdown, want.slowdown, 0.02 * want.slowdown) << describe(none);
  char figure[64];
  std::snprintf(figure, sizeof figure, "%.4f", worst);
  ::testing::Test::RecordProperty("worst_class_idle_difference_pct_of_span", figure);
  std::snprintf(figure, sizeof figure, "%.4f / %.4f", got.slowdown, want.slowdown);
  ::testing::Test::RecordProperty("slowdown_none_json", figure);
  expectFound(none, GetParam());
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, NsysPayloadShapes, ::testing::ValuesIn(standardCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// Unlabelled jobs take their stages from the p2p traffic the payloads' peers give, so the blob
// export must give the JSON export's report there too, with and without step ranges. (With
// neither, nothing gives the stages: posting order needs the labels.)
class NsysUnlabelledPayloadShapes : public ::testing::TestWithParam<Case> {};

TEST_P(NsysUnlabelledPayloadShapes, BlobsGiveTheJsonExportsReport) {
  for (const Labels labels : {Labels::Unlabelled, Labels::Bare}) {
    SCOPED_TRACE(labels == Labels::Bare ? "no op labels, no step ranges" : "no op labels");
    testing::TempDir jsonDir, blobDir;
    const StackRun json = analyseUnlabelledShape(GetParam(), labels, NsysPayloads::Json, jsonDir);
    const StackRun blobs = analyseUnlabelledShape(GetParam(), labels, NsysPayloads::Blobs, blobDir);
    ASSERT_TRUE(json.result.inference.fromP2p) << describe(json);
    EXPECT_EQ(blobs.importNotes, json.importNotes);
    EXPECT_EQ(jsonReport(blobs.result), jsonReport(json.result));
  }
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, NsysUnlabelledPayloadShapes,
                         ::testing::ValuesIn(standardCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// What the importer reads back: every rank a process of its host's file, its kernels on the true
// time plus its host's skew, and each p2p batch's one fused kernel tied to all its calls.
TEST(NsysExports, ImportAsTheExecutionModelRanThem) {
  testing::TempDir dir;
  const JobSpec spec = caseNamed("FaultFree").spec;
  const JobTimeline job = execute(spec);
  const auto files = writeNsysExports(job, dir.path());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[1].filename(), "node1.sqlite");
  const auto imported = traces::import::importRun(traces::import::resolveInputs({dir.path()}));
  ASSERT_EQ(imported.run.ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    const traces::RankTrace& t = imported.run.ranks[r];
    const RankTimeline& tl = job.ranks[r];
    EXPECT_EQ(t.meta.rank, r);
    EXPECT_EQ(t.meta.host, r < 2 ? "node0" : "node1");
    EXPECT_EQ(t.meta.extra.at("nsys.device"), std::to_string(r % 2));
    ASSERT_EQ(t.kernels->size(), tl.kernels.size());
    // The host's clock: ranks 2 and 3 share rank 2's skew.
    const TimeNs skew = spec.clockSkew[r < 2 ? 0 : 2];
    const auto first =
        std::min_element(tl.kernels.begin(), tl.kernels.end(),
                         [](const Kernel& a, const Kernel& b) { return a.start < b.start; });
    EXPECT_EQ(*std::min_element(t.kernels->start.begin(), t.kernels->start.end()),
              first->start + skew);
    // One NCCL call per send, receive and all-reduce (plus the group brackets and communicator
    // creations, which launch nothing); one correlation row per call that ran on a kernel.
    size_t work = 0, fusedRows = 0;
    for (size_t i = 0; i < t.ncclCalls->size(); ++i) {
      const auto op = t.ncclCalls->op[i];
      if (op == traces::NcclOp::Send || op == traces::NcclOp::Recv ||
          op == traces::NcclOp::AllReduce) {
        ++work;
        EXPECT_GE(t.ncclCalls->commRank[i], 0);
      }
    }
    EXPECT_EQ(work, tl.calls.size());
    // torch's ranges under their record_function names; the loop's step as a start/end range.
    std::map<std::string, int> named;
    for (size_t i = 0; i < t.ranges->size(); ++i) {
      const std::string name(t.strings.at(t.ranges->name[i]));
      named[name] += 1;
      if (name == "step 1") {
        EXPECT_EQ(t.ranges->kind[i], traces::RangeKind::StartEnd);
      }
    }
    EXPECT_EQ(named["PP:" + std::to_string(r) + "F3"], spec.steps);
    EXPECT_EQ(named["step 1"], 1);
    EXPECT_EQ(named["Optimizer.step#AdamW.step"], spec.steps);
    EXPECT_EQ(t.correlations->size(), tl.calls.size());
    for (const auto& batch : tl.batches) fusedRows += batch.size() > 1 ? batch.size() : 0;
    EXPECT_GT(fusedRows, 0u);
    size_t sharedRows = 0;
    for (size_t i = 0; i + 1 < t.correlations->size(); ++i) {
      sharedRows += t.correlations->correlation[i] == t.correlations->correlation[i + 1];
    }
    EXPECT_EQ(sharedRows, fusedRows - fusedRows / 2);  // batches here are pairs
  }
  EXPECT_TRUE(imported.files[0].notes.empty());
}

}  // namespace
}  // namespace bubblescope::tracegen

// The JSON report written as it is made (json_report.h, writeJsonReport) is byte for byte what
// nlohmann's dump writes for the same document (keys sorted, its numbers and escapes), as the
// report was before it was streamed (issue 29; until then these tests compared it with that
// document's dump): on every generated stack case, a Megatron job with its job section, the public
// real traces, and a result with every optional member set.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analyzer/analyze.h"
#include "analyzer/inventory/bubble_inventory.h"
#include "analyzer/report/json_report.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/megatron_execution.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/traces/import/shared_data.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

// "" when equal, else where they part and a little of each.
std::string difference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  if (i == a.size() && i == b.size()) return "";
  const size_t from = i > 80 ? i - 80 : 0;
  return "byte " + std::to_string(i) + " of " + std::to_string(a.size()) + "/" +
         std::to_string(b.size()) + ":\n--- streamed\n" + a.substr(from, 160) +
         "\n--- parsed and dumped\n" + b.substr(from, 160);
}

// The streamed report against its own parse and dump, at the report's indent and on one line:
// a key out of nlohmann's order, a number or an escape it writes otherwise, shows.
void expectSameBytes(const analysis::AnalysisResult& r, const std::string& what) {
  SCOPED_TRACE(what);
  for (auto detail : {analysis::JsonDetail::Summary, analysis::JsonDetail::Full}) {
    for (int indent : {2, -1}) {
      const std::string streamed = analysis::jsonReportText(r, indent, detail);
      EXPECT_EQ(difference(streamed, nlohmann::json::parse(streamed).dump(indent)), "")
          << indent << (detail == analysis::JsonDetail::Full ? " full" : " summary");
    }
  }
}

TEST(JsonReportStream, SameBytesAsDumpOnEveryKinetoAndNsysCase) {
  for (Stack stack : {Stack::Kineto, Stack::Nsys}) {
    for (const auto& cases : {standardCases(), zbVCases(), bufferedCases()}) {
      for (const Case& c : cases) {
        testing::TempDir dir;
        expectSameBytes(analyseAs(stack, c.spec, dir.path()).result,
                        (stack == Stack::Kineto ? "kineto " : "nsys ") + c.name);
      }
    }
  }
}

TEST(JsonReportStream, SameBytesAsDumpUnlabelledAndBare) {
  for (Labels labels : {Labels::Unlabelled, Labels::Bare}) {
    for (const Case& c : standardCases()) {
      testing::TempDir dir;
      expectSameBytes(analyseAs(Stack::Kineto, c.spec, dir.path(), labels).result,
                      std::string(labels == Labels::Bare ? "bare " : "unlabelled ") + c.name);
    }
  }
}

TEST(JsonReportStream, SameBytesAsDumpOnAMegatronJob) {
  MegatronJob job;
  job.pp = 2, job.tp = 2, job.dp = 2;
  job.slowReplica = 1, job.slowReplicaFactor = 1.3;
  job.slowTpRank = MegatronJob::TpRank{0, 1, 1};
  testing::TempDir dir;
  const auto file = dir.path() / "timeline.json.gz";
  writeNdTimeline(executeMegatron(job), file, /*gzip=*/true, NdMetadata::Last);
  const auto imported = traces::import::importRun(traces::import::resolveInputs({file}));
  const analysis::AnalysisResult r = analysis::analyzeRun(imported.run);
  ASSERT_TRUE(r.job.present);
  expectSameBytes(r, "megatron pp 2 x tp 2 x dp 2");
}

TEST(JsonReportStream, SameBytesAsDumpOnThePublicTraces) {
  SKIP_WITHOUT_SHARED_DATA();
  for (const char* f :
       {"kineto/hta-ddp2-rank0-nccl.json.gz", "kineto/hta-ws128-sampled-rank0.json.gz",
        "kineto/hta-ws16-rank0-sendrecv.json.gz", "kineto/hta-ns-resolution-rank0.json.gz",
        "kineto/deepseek-dualpipe-ep64-rank0.json.gz", "nsys/nsys-ai-2gpu-mfu-before.sqlite",
        "nsys/nsys-ai-h100-2gpu-fsdp.sqlite", "ndtimeline/bytedance-st-timeline.json.gz",
        "ndtimeline/bytedance-se-timeline.json.gz"}) {
    const auto imported =
        traces::import::importRun(traces::import::resolveInputs({testing::sharedData(f)}));
    analysis::AnalyzeOptions options;
    options.utilizationWithoutPipeline = true;
    expectSameBytes(analysis::analyzeRun(imported.run, options), f);
  }
}

// Every member written only sometimes, texts that need escaping, numbers at their edges.
TEST(JsonReportStream, SameBytesAsDumpWithEveryOptionalMember) {
  testing::TempDir dir;
  analysis::AnalysisResult r =
      analyseAs(Stack::Kineto, standardCases().back().spec, dir.path()).result;
  ASSERT_FALSE(r.pipelines.empty());
  r.warmupStepLeftOut = 0;
  r.runDir = "run \"q\"\\ \t\n\x01\x1f\x7f caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  r.droppedEvents = std::numeric_limits<uint64_t>::max();
  analysis::PipelineResult& pl = r.pipelines.front();
  pl.slowdown = std::numeric_limits<double>::quiet_NaN();
  pl.whatIfWithheld = "withheld";
  pl.activationSize.perMicrobatch = {1, 2, 3};
  pl.stages.front().slowdownBounded = true;
  pl.stages.front().slowdown = 1e300;
  pl.gaps.front().freeMemory = 123;
  pl.gaps.front().blame.stage = 1;
  pl.gaps.front().blame.costRatio = 0.1;
  pl.gaps.back().nextOp = -1;
  if (!pl.commWaits.empty()) pl.commWaits.front().members = {2, 8};
  for (analysis::WhatIf& w : pl.whatIf) {
    w.activations = {1.5, 2, 1e-7};
    w.activationBytes = {1, 2, 3};
  }
  pl.whatIf.front().available = false;
  analysis::RootCause rc;
  rc.id.cause = analysis::IdleClass::CommStall;
  rc.id.toStage = 1;
  rc.id.hasOp = true;
  rc.costRatio = 2.5;
  pl.rootCauses.push_back(rc);
  rc.id.cause = analysis::IdleClass::Imbalance;
  rc.id.stage = 2;
  pl.rootCauses.push_back(rc);
  expectSameBytes(r, "every optional member");

  // A job's utilization (written whenever there is one), every optional member set.
  analysis::UtilizationResult u;
  u.headline = {"one", "two"};
  u.commKinds = "all-reduce";
  u.total.waitMembers = {1, 3};
  u.idleByCause = {{"data loading", 5, 1}};
  u.copies = {{"HtoD", 10, std::numeric_limits<uint64_t>::max(), 2}};
  u.collectives = {4, 1, 5, 12, {1, 3}, false};
  u.largestGaps = {{0, 1, 10, 20, "host work", "aten::foo", 7}, {1, 2, 30, 40, "nothing", "", -1}};
  for (int rank = 0; rank < 2; ++rank) {
    analysis::RankUtilization ru;
    ru.rank = rank;
    ru.file = "rank" + std::to_string(rank) + ".json";
    ru.steps.push_back({3, 100, 200, {}});
    ru.steps.back().split.waitMembers = {2, 4};
    ru.steps.push_back({4, 200, 300, {}});
    ru.inventory = pl.stages.front().total.span ? analysis::bubbleInventory(pl).front()
                                                : analysis::IdleInventory{};
    ru.inventory.deviceMemory = 80ull << 30;
    ru.inventory.freeMemoryMin = 1 << 30;
    u.ranks.push_back(ru);
  }
  r.utilization = u;
  expectSameBytes(r, "a utilization with every optional member");
}

}  // namespace
}  // namespace bubblescope::tracegen

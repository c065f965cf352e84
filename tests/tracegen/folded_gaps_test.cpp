// A summary's analysis (AnalyzeOptions::everyGap false, KeptGaps::Listed) keeps whole only the
// gaps its reports name (the top gaps, each root cause's largest own and knock-on gaps, with their
// sentences); every gap is folded into the root causes, the culprit and the inventory as its step
// is classified, and, where nothing reads them after (no memory look, no inference check), every
// op record but those the kept gaps end with. The summary reports (text, JSON, Markdown,
// JUnit) must be the same bytes as from an analysis that kept every gap, and what it kept the
// same, on every generated stack case, a Megatron job of several replicas and the public real
// traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>

#include "analyzer/analyze.h"
#include "analyzer/report/report.h"
#include "analyzer/timeline/kept_room.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/megatron_execution.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/traces/import/shared_data.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

struct Seen {
  size_t listedWithText = 0;  // printed gaps kept with their sentence
  size_t dropped = 0;         // gaps not kept whole
  size_t opsDropped = 0;      // op records not kept (no memory look or inference check reads them)
};

std::set<int> listedGaps(const analysis::PipelineResult& pl) {
  std::set<int> listed(pl.topGaps.begin(), pl.topGaps.end());
  for (const analysis::RootCause& rc : pl.rootCauses) {
    if (!rc.own.empty()) listed.insert(rc.own.front());
  }
  return listed;
}

std::string summary(const analysis::AnalysisResult& r, const analysis::ReportFormat& f) {
  std::ostringstream out;
  analysis::writeReport(r, f, out, {false, false});
  return out.str();
}

// The summary of `run` on `threads` threads against `all`, its analysis that kept every gap.
void expectSameSummary(const traces::Run& run, const analysis::AnalysisResult& all,
                       unsigned threads, Seen& seen) {
  SCOPED_TRACE("threads " + std::to_string(threads));
  analysis::AnalyzeOptions listed;
  listed.utilizationWithoutPipeline = true;
  listed.everyGap = false;
  listed.threads = threads;
  // Every replica whole (ByteDance's SE job has 32): the folding is what is compared here; a
  // summary of a few replicas whole is megatron_test's.
  listed.pipelinesListedWhole = SIZE_MAX;
  const analysis::AnalysisResult few = analysis::analyzeRun(run, listed);
  for (const analysis::ReportFormat& f : analysis::reportFormats()) {
    if (f.namesFewGaps) {
      EXPECT_EQ(summary(few, f), summary(all, f)) << f.key;
    }
  }
  ASSERT_EQ(few.pipelines.size(), all.pipelines.size());
  for (size_t p = 0; p < all.pipelines.size(); ++p) {
    const analysis::PipelineResult &a = all.pipelines[p], &b = few.pipelines[p];
    // Every gap a bubble, or tallied as one for the inventory; whole only the listed, each the
    // gap it was among all.
    if (b.bubbleTallies.empty()) {
      EXPECT_EQ(b.bubbles.size(), a.gaps.size());
      EXPECT_TRUE(b.opIndex.empty());
      EXPECT_EQ(b.ops.size(), a.ops.size());
    } else {
      EXPECT_TRUE(b.bubbles.empty());
      EXPECT_EQ(b.bubbleTallies.size(), b.stages.size());
      // Only the ops the kept gaps end with, each the op it was among all.
      ASSERT_EQ(b.opIndex.size(), b.ops.size());
      EXPECT_TRUE(std::is_sorted(b.opIndex.begin(), b.opIndex.end()));
      for (size_t i = 0; i < b.ops.size(); ++i) {
        const analysis::OpRecord& whole = a.ops.at(static_cast<size_t>(b.opIndex[i]));
        EXPECT_EQ(b.ops[i].start, whole.start) << "op " << i;
        EXPECT_EQ(b.ops[i].op, whole.op) << "op " << i;
      }
      for (const analysis::Gap& g : b.gaps) {
        if (g.nextOp >= 0) {
          EXPECT_TRUE(std::ranges::binary_search(b.opIndex, g.nextOp));
        }
      }
      seen.opsDropped += a.ops.size() - b.ops.size();
    }
    EXPECT_TRUE(b.transfers.empty());
    ASSERT_EQ(b.gapIndex.size(), b.gaps.size());
    EXPECT_TRUE(std::is_sorted(b.gapIndex.begin(), b.gapIndex.end()));
    const auto original = [&](int g) { return b.gapIndex[static_cast<size_t>(g)]; };
    ASSERT_EQ(b.topGaps.size(), a.topGaps.size());
    for (size_t i = 0; i < a.topGaps.size(); ++i) EXPECT_EQ(original(b.topGaps[i]), a.topGaps[i]);
    ASSERT_EQ(b.rootCauses.size(), a.rootCauses.size());
    for (size_t c = 0; c < a.rootCauses.size(); ++c) {
      const analysis::RootCause &ra = a.rootCauses[c], &rb = b.rootCauses[c];
      EXPECT_EQ(rb.ownCount, ra.own.size());
      EXPECT_EQ(rb.knockOnCount, ra.knockOns.size());
      for (size_t i = 0; i < rb.own.size(); ++i) EXPECT_EQ(original(rb.own[i]), ra.own[i]);
      for (size_t i = 0; i < rb.knockOns.size(); ++i) {
        EXPECT_EQ(original(rb.knockOns[i]), ra.knockOns[i]);
      }
      EXPECT_EQ(rb.own.size(), std::min<size_t>(1, ra.own.size()));
      EXPECT_EQ(rb.knockOns.size(), std::min(analysis::kKnockOnsNamed, ra.knockOns.size()));
    }
    const std::set<int> printed = listedGaps(a);
    for (size_t g = 0; g < b.gaps.size(); ++g) {
      const analysis::Gap& whole = a.gaps[static_cast<size_t>(original(static_cast<int>(g)))];
      EXPECT_EQ(b.gaps[g].idle, whole.idle) << "gap " << g;
      EXPECT_EQ(b.gaps[g].start, whole.start) << "gap " << g;
      EXPECT_EQ(b.gaps[g].blame.cause, whole.blame.cause) << "gap " << g;
      EXPECT_EQ(b.gaps[g].blame.text, whole.blame.text) << "gap " << g;
      seen.listedWithText +=
          printed.contains(original(static_cast<int>(g))) && !b.gaps[g].blame.text.empty();
    }
    seen.dropped += a.gaps.size() - b.gaps.size();
  }
}

// On one thread a step's gaps are folded as each stage is classified (pipeline_step.h, StepFolder);
// on two, steps small enough go several at a time and are folded as each is committed.
void expectSameSummaries(const traces::Run& run, const std::string& what, Seen& seen) {
  SCOPED_TRACE(what);
  analysis::AnalyzeOptions every;
  every.utilizationWithoutPipeline = true;
  const analysis::AnalysisResult all = analysis::analyzeRun(run, every);
  for (unsigned threads : {1u, 2u}) expectSameSummary(run, all, threads, seen);
}

TEST(FoldedGaps, SummariesAreTheSameOnEveryKinetoAndNsysCase) {
  Seen seen;
  for (Stack stack : {Stack::Kineto, Stack::Nsys}) {
    for (const auto& cases : {standardCases(), zbVCases(), bufferedCases()}) {
      for (const Case& c : cases) {
        testing::TempDir dir;
        analyseAs(stack, c.spec, dir.path());
        const auto imported =
            traces::import::importRun(traces::import::resolveInputs({dir.path()}));
        expectSameSummaries(imported.run, (stack == Stack::Kineto ? "kineto " : "nsys ") + c.name,
                            seen);
      }
    }
  }
  // Not vacuous: printed gaps were kept, and others folded.
  EXPECT_GT(seen.listedWithText, 20u);
  EXPECT_GT(seen.dropped, 200u);
}

// The job's op-level timeline, written and imported as a user's would be.
traces::Run importedMegatron(const MegatronJob& job) {
  testing::TempDir dir;
  const auto file = dir.path() / "timeline.json";
  writeNdTimeline(executeMegatron(job), file, /*gzip=*/false, NdMetadata::First);
  return traces::import::importRun(traces::import::resolveInputs({file})).run;
}

TEST(FoldedGaps, SummariesAreTheSameOnAMegatronJobOfSeveralReplicas) {
  MegatronJob job;
  job.pp = 4, job.tp = 1, job.dp = 2;
  job.slowReplica = 1, job.slowReplicaFactor = 1.3;
  Seen seen;
  expectSameSummaries(importedMegatron(job), "megatron pp 4 x dp 2", seen);
  EXPECT_GT(seen.listedWithText, 0u);
  EXPECT_GT(seen.dropped, 0u);
  // An op-level timeline has no memory samples: its op records go with their steps.
  EXPECT_GT(seen.opsDropped, 100u);
}

// A step of more ops than a pass keeps its lists' room for (kept_room.h): each phase lets go of
// its lists and the next step makes them anew, its op records are folded one by one, and its
// ideal step is replayed again after the steps. 1,040 stages, one slow, m 8: 16,640 ops a step.
TEST(FoldedGaps, SummariesAreTheSameOnStepsLargerThanTheRoomKept) {
  MegatronJob job;
  job.pp = 1040, job.tp = 1, job.dp = 1, job.m = 8, job.steps = 3;
  job.slowReplica.reset();
  job.slowStage = 517, job.slowStageFactor = 1.3;
  ASSERT_GT(static_cast<size_t>(job.pp * job.m * 2), analysis::kRoomKeptOps);
  Seen seen;
  expectSameSummaries(importedMegatron(job), "megatron pp 1040", seen);
  EXPECT_GT(seen.dropped, 1000u);
  EXPECT_GT(seen.opsDropped, 10000u);
}

TEST(FoldedGaps, SummariesAreTheSameOnThePublicTraces) {
  SKIP_WITHOUT_SHARED_DATA();
  Seen seen;
  for (const char* f :
       {"kineto/hta-ws16-rank0-sendrecv.json.gz", "nsys/nsys-ai-2gpu-mfu-before.sqlite",
        "ndtimeline/bytedance-st-timeline.json.gz", "ndtimeline/bytedance-se-timeline.json.gz"}) {
    const auto imported =
        traces::import::importRun(traces::import::resolveInputs({testing::sharedData(f)}));
    expectSameSummaries(imported.run, f, seen);
  }
  EXPECT_GT(seen.listedWithText, 0u);
  EXPECT_GT(seen.dropped, 0u);
}

}  // namespace
}  // namespace bubblescope::tracegen
